//! The portal's words: one JSON file a language, `static/languages/<code>.json` (served as
//! such at `/static/languages/<code>.json`, the files LemonLDAP::NG's `/error` points to), a
//! flat map from key to text. The build lists the files (`LANGUAGES`), so adding a language is
//! adding its file; English is the reference: every shipped file must hold exactly its keys (a
//! test says which are missing). A key missing at run time falls back to English, then to the
//! key itself. Texts may hold `{name}` placeholders (`fill`).
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/languages.rs"));

/// The language every page falls back to.
pub const DEFAULT: &str = "en";

fn parsed() -> &'static BTreeMap<&'static str, Map<String, Value>> {
    static ALL: OnceLock<BTreeMap<&'static str, Map<String, Value>>> = OnceLock::new();
    ALL.get_or_init(|| {
        LANGUAGES
            .iter()
            .map(|(code, text)| (*code, serde_json::from_str(text).unwrap_or_default()))
            .collect()
    })
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
pub fn lookup(lang: &str, key: &str) -> Option<String> {
    let all = parsed();
    let get = |l: &str| all.get(l).and_then(|m| m.get(key)).and_then(Value::as_str);
    get(lang).or_else(|| get(DEFAULT)).map(str::to_string)
}

/// The text of `key` in `lang`, the key itself when no file has it.
pub fn word(lang: &str, key: &str) -> String {
    lookup(lang, key).unwrap_or_else(|| key.to_string())
}

/// The message of portal error `num` (`PE<num>`) in `lang`, English as fallback.
pub fn text(lang: &str, num: u16) -> String {
    lookup(lang, &format!("PE{num}")).unwrap_or_else(|| format!("Error {num}"))
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
/// The keys `code`'s file lacks and those it has beyond English's: both empty for a complete
/// file.
pub fn gaps(code: &str) -> (Vec<String>, Vec<String>) {
    let all = parsed();
    let (Some(reference), Some(file)) = (all.get(DEFAULT), all.get(code)) else {
        return (vec!["<the whole file>".into()], Vec::new());
    };
    let text = |m: &Map<String, Value>, k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    let missing = reference
        .keys()
        .filter(|k| !text(file, k))
        .cloned()
        .collect();
    let extra = file
        .keys()
        .filter(|k| !reference.contains_key(*k))
        .cloned()
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
            let parsed: Result<Map<String, Value>, _> =
                serde_json::from_str(file(code).unwrap_or(""));
            assert!(parsed.is_ok(), "{code}.json is not a JSON object");
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
