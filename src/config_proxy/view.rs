//! What the configuration proxy computes, without HTTP: which configuration a path names, its
//! metadata with `prev`/`next`, the full document with defaults merged, and the error
//! reference of `/error/<lang>/<errNum>`. The contract's differences from LemonLDAP::NG live
//! here: 404 for an unknown number (never the cached configuration), `cfgNum` and `cfgDate`
//! as integers.
use crate::config::{as_i64, defaults, value_string};
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// The configuration a path segment names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `latest`
    Latest,
    /// A number.
    Num(u64),
}

/// Parses the first segment after `/config`.
pub fn target(segment: Option<&str>) -> Result<Target> {
    match segment {
        None => Err(Error::bad("Missing configuration number")),
        Some("latest") => Ok(Target::Latest),
        Some(s) => match s.parse::<u64>() {
            Ok(n) if s.bytes().all(|b| b.is_ascii_digit()) => Ok(Target::Num(n)),
            _ => Err(Error::bad("cfgNum must be a number")),
        },
    }
}

/// The number a target names (the latest from `listed` when the caller has listed the
/// store already); 404 when the store holds none.
pub fn number(store: &dyn ConfStore, t: Target, listed: Option<&[u64]>) -> Result<u64> {
    let latest = match (t, listed) {
        (Target::Num(n), _) => return Ok(n),
        (Target::Latest, Some(nums)) => nums.iter().max().copied(),
        (Target::Latest, None) => store.latest()?,
    };
    latest.ok_or_else(|| Error::not_found("No configuration is available"))
}

/// The stored document of a number (`cfg_only`: at least its `cfg*` fields); 404 when the
/// store does not hold it.
pub fn load(store: &dyn ConfStore, num: u64, cfg_only: bool) -> Result<Map<String, Value>> {
    let loaded = if cfg_only {
        store.load_cfg_fields(num)
    } else {
        store.load(num)
    };
    match loaded {
        Ok(conf) => Ok(conf),
        Err(Error::NotFound(_)) => Err(Error::not_found(format!(
            "Configuration {num} is not available"
        ))),
        Err(e) => Err(e),
    }
}

/// The metadata object: the six `cfg*` fields (numbers as integers, texts as strings, absent
/// ones empty) and `prev`/`next`, the neighbours among the available numbers, when they exist.
pub fn metadata(stored: &Map<String, Value>, num: u64, available: &[u64]) -> Value {
    let text = |k: &str| stored.get(k).map(value_string).unwrap_or_default();
    let mut m = json!({
        "cfgNum": num,
        "cfgAuthor": text("cfgAuthor"),
        "cfgAuthorIP": text("cfgAuthorIP"),
        "cfgDate": stored.get("cfgDate").and_then(as_i64).unwrap_or(0),
        "cfgLog": text("cfgLog"),
        "cfgVersion": text("cfgVersion"),
    });
    if let Value::Object(obj) = &mut m {
        if let Some(prev) = available.iter().copied().filter(|n| *n < num).max() {
            obj.insert("prev".into(), Value::from(prev));
        }
        if let Some(next) = available.iter().copied().filter(|n| *n > num).min() {
            obj.insert("next".into(), Value::from(next));
        }
    }
    m
}

/// The stored document with every default merged under it, `cfgNum`/`cfgDate` as integers.
pub fn full(stored: &Map<String, Value>, num: u64) -> Map<String, Value> {
    let mut m = defaults::merged(stored);
    m.insert("cfgNum".into(), Value::from(num));
    if let Some(d) = stored.get("cfgDate").and_then(as_i64) {
        m.insert("cfgDate".into(), Value::from(d));
    }
    m
}

/// A document as LemonLDAP::NG writes its full export: keys sorted at every level, three
/// spaces of indentation.
pub fn pretty_sorted(doc: &Map<String, Value>) -> Vec<u8> {
    let sorted = sort_keys(&Value::Object(doc.clone()));
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"   ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    // Serializing a Value into a Vec cannot fail.
    let _ = sorted.serialize(&mut ser);
    out.push(b'\n');
    out
}

/// `v` with every object's keys in sorted order (LemonLDAP::NG writes its documents so).
pub fn sort_keys(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            crate::util::sort::sort_by(&mut entries, |a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sort_keys(v)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sort_keys).collect()),
        other => other.clone(),
    }
}

/// True when `?full=` asks for the whole document: present, not empty, not `0`/`no`/`false`.
pub fn full_requested(value: Option<&str>) -> bool {
    match value {
        Some(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "no" | "false"
        ),
        None => false,
    }
}

/// `/error/<lang>/<errNum>`: the reference and the URL of the language file (not inlined, as
/// LemonLDAP::NG). Both parts are limited to letters, digits, `-` and `_` (32 at most).
pub fn error_reference(lang: Option<&str>, num: Option<&str>) -> Result<Value> {
    let safe = |s: &str| {
        !s.is_empty()
            && s.len() <= 32
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    let lang = lang.unwrap_or(crate::web::messages::DEFAULT);
    if !safe(lang) {
        return Err(Error::bad("Invalid language"));
    }
    // The language the pages would speak: a shipped one, else English (whose file exists).
    let lang = crate::web::messages::shipped(lang).unwrap_or(crate::web::messages::DEFAULT);
    let url = format!("/static/languages/{lang}.json");
    Ok(match num {
        None => json!({"result": 1, "lang": lang, "errorNum": "all", "errorsFileURL": url}),
        Some(n) if safe(n) => json!({
            "result": 1, "lang": lang, "errorNum": n, "errorMsgRef": format!("PE{n}"), "errorsFileURL": url
        }),
        Some(_) => return Err(Error::bad("Invalid error number")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn targets() {
        assert_eq!(target(Some("latest")).unwrap(), Target::Latest);
        assert_eq!(target(Some("12")).unwrap(), Target::Num(12));
        assert_eq!(
            target(Some("abc")).unwrap_err().to_string(),
            "bad request: cfgNum must be a number"
        );
        assert_eq!(
            target(Some("+1")).unwrap_err().to_string(),
            "bad request: cfgNum must be a number"
        );
        assert_eq!(
            target(None).unwrap_err().to_string(),
            "bad request: Missing configuration number"
        );
    }

    #[test]
    fn metadata_has_integer_types_and_neighbours() {
        let stored = doc(
            json!({"cfgNum": "2", "cfgDate": "1795313125", "cfgAuthor": "a", "cfgLog": "l",
                                "cfgAuthorIP": "127.0.0.1", "cfgVersion": "2.16.1", "portal": "x"}),
        );
        let m = metadata(&stored, 2, &[1, 2, 5]);
        assert_eq!(
            m,
            json!({"cfgNum": 2, "cfgAuthor": "a", "cfgAuthorIP": "127.0.0.1", "cfgDate": 1795313125,
                   "cfgLog": "l", "cfgVersion": "2.16.1", "prev": 1, "next": 5})
        );
        let m = metadata(&stored, 2, &[2]);
        assert!(m.get("prev").is_none() && m.get("next").is_none());
    }

    #[test]
    fn full_merges_defaults_and_sorts() {
        let f = full(&doc(json!({"cfgNum": "3", "timeout": 5})), 3);
        assert_eq!(f["cfgNum"], 3);
        assert_eq!(f["timeout"], 5);
        assert_eq!(f["notificationWildcard"], "allusers");
        let text =
            String::from_utf8(pretty_sorted(&doc(json!({"b": {"z": 1, "a": 2}, "a": 1})))).unwrap();
        assert_eq!(
            text,
            "{\n   \"a\": 1,\n   \"b\": {\n      \"a\": 2,\n      \"z\": 1\n   }\n}\n"
        );
    }

    #[test]
    fn full_flag() {
        assert!(full_requested(Some("1")) && full_requested(Some("yes")));
        assert!(
            !full_requested(Some("")) && !full_requested(Some("0")) && !full_requested(Some("No"))
        );
        assert!(!full_requested(None));
    }

    #[test]
    fn error_references() {
        assert_eq!(
            error_reference(Some("fr"), Some("5")).unwrap(),
            json!({"result": 1, "lang": "fr", "errorNum": "5", "errorMsgRef": "PE5",
                   "errorsFileURL": "/static/languages/fr.json"})
        );
        assert_eq!(
            error_reference(None, None).unwrap(),
            json!({"result": 1, "lang": "en", "errorNum": "all", "errorsFileURL": "/static/languages/en.json"})
        );
        let unknown = error_reference(Some("xx"), Some("9999")).unwrap();
        assert_eq!(unknown["errorMsgRef"], "PE9999");
        assert_eq!(unknown["lang"], "en", "a language no page speaks: English");
        assert_eq!(error_reference(Some("fr-CA"), None).unwrap()["lang"], "fr");
        assert!(error_reference(Some("../x"), None).is_err());
    }

    /// Every portal error number Limette emits (the match fails to compile when a code is added
    /// without being listed here).
    fn every_portal_code() -> Vec<crate::error::PortalCode> {
        use crate::error::PortalCode::*;
        let all = [
            Ok,
            SessionExpired,
            FormEmpty,
            BadCredentials,
            FirstAccess,
            Error,
            MalformedUser,
            Notification,
            NoToken,
            TokenExpired,
            UnauthorizedPartner,
            OidcServiceNotAllowed,
            Wait,
            BadOtp,
            UpgradeSession,
            NoSecondFactors,
            UnknownPartner,
            UnauthorizedUrl,
        ];
        for c in all {
            match c {
                Ok
                | SessionExpired
                | FormEmpty
                | BadCredentials
                | FirstAccess
                | Error
                | MalformedUser
                | Notification
                | NoToken
                | TokenExpired
                | UnauthorizedPartner
                | OidcServiceNotAllowed
                | Wait
                | BadOtp
                | UpgradeSession
                | NoSecondFactors
                | UnknownPartner
                | UnauthorizedUrl => {}
            }
        }
        all.to_vec()
    }

    #[test]
    fn language_files_cover_every_portal_error() {
        use crate::web::messages;
        for lang in messages::codes() {
            let file: Map<String, Value> =
                serde_json::from_str(messages::file(lang).unwrap()).unwrap();
            for code in every_portal_code() {
                let key = format!("PE{}", code as u16);
                let msg = file.get(&key).and_then(Value::as_str).unwrap_or("");
                assert!(!msg.is_empty(), "{lang}.json lacks {key}");
            }
        }
    }
}
