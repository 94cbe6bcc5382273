//! The portal's words: one JSON file a language, `static/languages/<code>.json` (served as
//! such at `/static/languages/<code>.json`, the files LemonLDAP::NG's `/error` points to), a
//! flat map from key to text. The build lists the files (`LANGUAGES`), so adding a language is
//! adding its file, and reads each into a table sorted by key (`WORDS`): a page looks its words
//! up in the program's constants, with nothing parsed or kept in memory. English is the
//! reference: every shipped file must hold exactly its keys (a test says which are missing). A
//! key missing at run time falls back to English, then to the key itself. Texts may hold
//! `{name}` placeholders (`fill`).

include!(concat!(env!("OUT_DIR"), "/languages.rs"));

/// The language every page falls back to.
pub const DEFAULT: &str = "en";

/// The words of the shipped language `code`, sorted by key.
fn words(code: &str) -> Option<&'static [(&'static str, &'static str)]> {
    let i = LANGUAGES.iter().position(|(c, _)| *c == code)?;
    WORDS.get(i).copied()
}

/// The text of `key` in the shipped language `code`, if its file has it.
fn find(code: &str, key: &str) -> Option<&'static str> {
    let words = words(code)?;
    let i = words.binary_search_by(|(k, _)| (*k).cmp(key)).ok()?;
    Some(words[i].1)
}

/// The codes of the shipped languages, English first.
pub fn codes() -> impl Iterator<Item = &'static str> {
    LANGUAGES.iter().map(|(code, _)| *code)
}

/// The shipped language `code` names (`fr`, `fr-FR`, `FR` all name `fr`), if any.
pub fn shipped(code: &str) -> Option<&'static str> {
    let code = code.trim();
    let primary = code.split(['-', '_']).next().unwrap_or("");
    codes()
        .find(|c| c.eq_ignore_ascii_case(code))
        .or_else(|| codes().find(|c| c.eq_ignore_ascii_case(primary)))
}

/// The language file of a shipped language, as served.
pub fn file(code: &str) -> Option<&'static str> {
    LANGUAGES.iter().find(|(c, _)| *c == code).map(|(_, t)| *t)
}

/// Any message key (`PE5`, `gotNewMessages`, ...) in `lang`, English as fallback.
pub fn lookup(lang: &str, key: &str) -> Option<&'static str> {
    find(lang, key).or_else(|| find(DEFAULT, key))
}

/// The text of `key` in `lang`, the key itself when no file has it.
pub fn word(lang: &str, key: &str) -> String {
    lookup(lang, key).unwrap_or(key).to_string()
}

/// The message of portal error `num` (`PE<num>`) in `lang`, English as fallback.
pub fn text(lang: &str, num: u16) -> String {
    lookup(lang, &format!("PE{num}")).map_or_else(|| format!("Error {num}"), str::to_string)
}

/// `template` with each `{name}` replaced by its value (once each, left to right).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in values {
        out = out.replacen(&format!("{{{name}}}"), value, 1);
    }
    out
}

/// A server's message in `lang`. The code writes its refusals in English (so the log and JSON
/// clients read them); a page says them in its language: a message key (`csrfError`) is
/// looked up; an English text that a `srv…` key of the English file holds, word for word or
/// with its `{name}` placeholders standing for any text, is said with that key in `lang`, the
/// same values put back (a `{why}` or `{reason}` value is itself a message, said the same
/// way; a `{key}` value is a key's name: one word, no `: ` in it); messages joined by `; `
/// (the start-up gate's refusals) are said one by one; anything else is shown as it is.
pub fn translate(lang: &str, text: &str) -> String {
    let key_like = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric());
    if key_like {
        if let Some(t) = lookup(lang, text) {
            return t.to_string();
        }
    }
    said(lang, text).unwrap_or_else(|| text.to_string())
}

/// `text` said by the `srv…` key it matches, else part by part when it is a list of messages
/// joined by `; `; `None` when nothing matched.
fn said(lang: &str, text: &str) -> Option<String> {
    if let Some(s) = said_one(lang, text) {
        return Some(s);
    }
    let parts: Vec<&str> = text.split("; ").collect();
    if parts.len() < 2 {
        return None;
    }
    let out: Vec<String> = parts
        .iter()
        .map(|p| said_one(lang, p).unwrap_or_else(|| p.to_string()))
        .collect();
    let joint = if lang == "fr" { " ; " } else { "; " };
    (out.iter().zip(&parts).any(|(o, p)| o != p)).then(|| out.join(joint))
}

/// `text` said by the `srv…` key whose English template matches it most closely (the one
/// whose placeholders take the least of it: "supported: authentication = DBI: ..." before
/// "supported: {list}"; the first in key order among equals).
fn said_one(lang: &str, text: &str) -> Option<String> {
    let english = words(DEFAULT)?;
    let start = english.partition_point(|(k, _)| *k < "srv");
    let (key, values) = english[start..]
        .iter()
        .take_while(|(k, _)| k.starts_with("srv"))
        .filter_map(|(k, template)| Some((*k, captures(template, text)?)))
        .min_by_key(|(_, values)| values.iter().map(|(_, v)| v.len()).sum::<usize>())?;
    let values: Vec<(&str, String)> = values
        .into_iter()
        .map(|(n, v)| match n {
            // Shorter than `text` (a template has words of its own): this ends.
            "why" | "reason" if v.len() < text.len() => {
                (n, said(lang, v).unwrap_or_else(|| v.to_string()))
            }
            _ => (n, v.to_string()),
        })
        .collect();
    let values: Vec<(&str, &str)> = values.iter().map(|(n, v)| (*n, v.as_str())).collect();
    Some(fill(&word(lang, key), &values))
}

/// The values of `template`'s `{name}` placeholders that make it `text`, if any do (two
/// placeholders side by side never match: which text is whose would be a guess; a `{key…}`
/// value never holds `: `, which ends a key's name in a message; a `{why}` or `{reason}` is
/// whole: its parentheses close).
fn captures<'t, 'a>(template: &'t str, text: &'a str) -> Option<Vec<(&'t str, &'a str)>> {
    let (mut literals, mut names, mut rest) = (Vec::new(), Vec::new(), template);
    while let Some((before, after)) = rest.split_once('{') {
        let Some((name, tail)) = after.split_once('}') else {
            break;
        };
        literals.push(before);
        names.push(name);
        rest = tail;
    }
    literals.push(rest);
    let mut t = text.strip_prefix(literals.first()?)?;
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let next = literals.get(i + 1)?;
        let end = match i + 1 == names.len() {
            true => t.strip_suffix(next)?.len(),
            false if next.is_empty() => return None,
            false => t.find(next)?,
        };
        let value = &t[..end];
        let nested = matches!(*name, "why" | "reason");
        if (name.starts_with("key") && value.contains(": ")) || (nested && !balanced(value)) {
            return None;
        }
        out.push((*name, value));
        t = &t[end + next.len()..];
    }
    t.is_empty().then_some(out)
}

/// Whether every `(` of `text` closes, in order (a reason in parentheses is whole).
fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    for c in text.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

#[cfg(test)]
/// The keys `code`'s file lacks (or leaves empty) and those it has beyond English's: both empty
/// for a complete file.
pub fn gaps(code: &str) -> (Vec<String>, Vec<String>) {
    let (Some(reference), Some(file)) = (words(DEFAULT), words(code)) else {
        return (vec!["<the whole file>".into()], Vec::new());
    };
    let has = |k: &str| find(code, k).is_some_and(|s| !s.is_empty());
    let missing = reference
        .iter()
        .filter(|(k, _)| !has(k))
        .map(|(k, _)| k.to_string())
        .collect();
    let extra = file
        .iter()
        .filter(|(k, _)| find(DEFAULT, k).is_none())
        .map(|(k, _)| k.to_string())
        .collect();
    (missing, extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_language_is_complete() {
        assert!(codes().count() >= 2, "English and French at least");
        assert_eq!(codes().next(), Some("en"));
        for code in codes() {
            // The table the build made is the file as served, word for word.
            let parsed: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(file(code).unwrap_or("")).expect("a JSON object");
            let table = words(code).unwrap_or_default();
            assert_eq!(table.len(), parsed.len(), "{code}: the table's size");
            for (key, text) in table {
                assert_eq!(
                    parsed.get(*key).and_then(|v| v.as_str()),
                    Some(*text),
                    "{code}: {key}"
                );
            }
            assert!(table.windows(2).all(|w| w[0].0 < w[1].0), "{code}: sorted");
            let (missing, extra) = gaps(code);
            assert!(missing.is_empty(), "{code}.json lacks {missing:?}");
            assert!(extra.is_empty(), "{code}.json has unknown keys {extra:?}");
            let months = word(code, "months");
            assert_eq!(months.split(',').count(), 12, "{code}: months");
        }
    }

    /// The keys the code names as literals: `say("k")`, `say_fill("k"`, `say_around("k"`,
    /// `raw("k")`, `Said::new("k")`, `.render("k"` (the console's titles), `word(<lang>, "k")`, in every file under `src/`.
    fn keys_in_code() -> Vec<(String, String)> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                match p.is_dir() {
                    true => walk(&p, out),
                    false if p.extension().is_some_and(|x| x == "rs") => out.push(p),
                    false => {}
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let calls = [
            "say(\"",
            "say_fill(\"",
            "say_around(\"",
            "raw(\"",
            "Said::new(\"",
            ".render(\"",
        ];
        let mut found = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            let name = f.display().to_string();
            if name.ends_with("web/messages.rs") {
                continue; // its own tests' made-up keys
            }
            let mut add = |rest: &str| {
                let key: String = rest.chars().take_while(|c| *c != '"').collect();
                if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric()) {
                    found.push((name.clone(), key));
                }
            };
            for call in calls {
                text.split(call).skip(1).for_each(&mut add);
            }
            for rest in text.split("word(").skip(1) {
                if let Some((_, after)) = rest
                    .split_once(", \"")
                    .filter(|(a, _)| !a.contains(['(', ')', '"', '\n']))
                {
                    add(after);
                }
            }
        }
        found
    }

    #[test]
    fn every_key_the_code_names_is_in_every_language() {
        let keys = keys_in_code();
        assert!(
            keys.len() > 200,
            "the scan finds the code's keys: {}",
            keys.len()
        );
        assert!(keys.iter().any(|(_, k)| k == "mgrConfirm"));
        assert!(keys.iter().any(|(_, k)| k == "mgrSessionsDeleted"));
        for code in codes() {
            let missing: Vec<_> = keys
                .iter()
                .filter(|(_, k)| find(code, k).is_none())
                .collect();
            assert!(missing.is_empty(), "{code}.json lacks {missing:?}");
        }
    }

    #[test]
    fn server_messages_are_said_in_the_page_language() {
        assert_eq!(translate("fr", "csrfError"), word("fr", "csrfError"));
        assert_eq!(translate("fr", "Not found"), word("fr", "srvNotFound"));
        assert_eq!(
            translate("fr", "unexpected end of the rule"),
            word("fr", "srvRuleEnd")
        );
        let fr = translate("fr", "no relying party named app");
        assert_eq!(fr, fill(&word("fr", "srvNoRp"), &[("name", "app")]));
        assert!(fr.contains("app") && fr != "no relying party named app");
        assert_eq!(translate("fr", "something else"), "something else");
        assert_eq!(
            captures("a {x} b {y}", "a 1 b 2"),
            Some(vec![("x", "1"), ("y", "2")])
        );
        assert_eq!(captures("a {x}", "b 1"), None);
        assert_eq!(captures("a", "a b"), None);
        assert_eq!(captures("{x}{y}", "ab"), None);
        // A reason inside a message is said too; messages joined by "; " one by one.
        let nested = "relying party app would be disabled: unexpected end of the rule";
        let end = word("fr", "srvRuleEnd");
        assert_eq!(
            translate("fr", nested),
            fill(
                &word("fr", "srvRpDisabled"),
                &[("name", "app"), ("reason", &end)]
            )
        );
        assert_eq!(translate("en", nested), nested);
        let (nf, nu) = (word("fr", "srvNotFound"), word("fr", "srvNoSuchUser"));
        assert_eq!(
            translate("fr", "Not found; No such user"),
            format!("{nf} ; {nu}")
        );
        assert_eq!(translate("fr", "x; y"), "x; y");
        // A key's name holds no ": "; a reason's parentheses close.
        assert_eq!(captures("{key} = {v}", "a: b = c"), None);
        assert_eq!(
            captures("{key} = {v}", "a = c"),
            Some(vec![("key", "a"), ("v", "c")])
        );
        assert_eq!(captures("({why}) end", "(a) b) end"), None);
        assert_eq!(
            captures("({why}) end", "(a (b)) end"),
            Some(vec![("why", "a (b)")])
        );
        assert!(balanced("(a (b)) c") && !balanced("a) (b") && !balanced("(a"));
    }

    #[test]
    fn languages_are_named_loosely_and_fall_back_to_english() {
        assert_eq!(shipped("fr-FR"), Some("fr"));
        assert_eq!(shipped("FR"), Some("fr"));
        assert_eq!(shipped("en_GB"), Some("en"));
        assert_eq!(shipped("de"), None);
        assert_eq!(shipped(""), None);
        assert_eq!(text("fr", 5), "Identifiant ou mot de passe incorrect");
        assert_eq!(text("de", 5), "Wrong username or password");
        assert_eq!(word("fr", "noSuchKey"), "noSuchKey");
        assert_eq!(
            fill("A {x} and {y}", &[("x", "1"), ("y", "{x}")]),
            "A 1 and {x}"
        );
    }
}
