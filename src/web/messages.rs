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
