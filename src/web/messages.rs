//! Portal messages by error number, from the language files served at
//! `/static/languages/<lang>.json` (the same files LemonLDAP::NG's `/error` points to).
use serde_json::Value;
use std::sync::OnceLock;

/// The English language file.
pub const EN: &str = include_str!("../../static/languages/en.json");
/// The French language file.
pub const FR: &str = include_str!("../../static/languages/fr.json");

fn parsed(lang: &str) -> &'static Value {
    static EN_V: OnceLock<Value> = OnceLock::new();
    static FR_V: OnceLock<Value> = OnceLock::new();
    match lang {
        "fr" => FR_V.get_or_init(|| serde_json::from_str(FR).unwrap_or(Value::Null)),
        _ => EN_V.get_or_init(|| serde_json::from_str(EN).unwrap_or(Value::Null)),
    }
}

/// The message of portal error `num` (`PE<num>`) in `lang`, English as fallback.
pub fn text(lang: &str, num: u16) -> String {
    lookup(lang, &format!("PE{num}")).unwrap_or_else(|| format!("Error {num}"))
}

/// Any message key (`PE5`, `gotNewMessages`, ...) in `lang`, English as fallback.
pub fn lookup(lang: &str, key: &str) -> Option<String> {
    parsed(lang)
        .get(key)
        .or_else(|| parsed("en").get(key))
        .and_then(Value::as_str)
        .map(str::to_string)
}
