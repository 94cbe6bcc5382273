//! The one redaction of configuration for anything shown to a person: the console's pages
//! (a version's keys, the difference of two versions), `config check`'s findings, the
//! "Proposed changes" of `limette config set` and the log lines that quote a configuration
//! value. A key is secret by `support::is_secret` (passwords,
//! client secrets, private keys, the shared `key`), at any depth: a secret's value is never
//! shown, and an object or array printed whole (a relying party added or removed between two
//! versions) is printed with every secret inside it replaced by [`HIDDEN`].
//!
//! Not redacted, by design: the machine interfaces whose readers need the secrets, as in
//! LemonLDAP::NG (the REST configuration server that handlers load, `limette config save`'s
//! backup and `config get`, which only the server's administrator runs).
use super::support::is_secret;
use super::value_string;
use serde_json::{Map, Value};

/// What stands for a secret's value inside a value printed whole.
pub const HIDDEN: &str = "(secret)";

/// `v`, the value of `key` (`secret`: `key` or a key above it is secret), as one line of text
/// for display: `None` for a secret; scalars as `limette config get` prints them; objects and
/// arrays as JSON through [`redacted`].
pub fn shown(secret: bool, key: &str, v: &Value) -> Option<String> {
    if secret || is_secret(key) {
        return None;
    }
    Some(match v {
        Value::Object(_) | Value::Array(_) => redacted(v).to_string(),
        other => value_string(other),
    })
}

/// Whether a key path (`oidcRPMetaDataOptions/app/oidcRPMetaDataOptionsClientSecret`, its
/// segments joined by `sep`) names a secret or a value inside one.
pub fn path_is_secret(path: &str, sep: &str) -> bool {
    is_secret(path) || (!sep.is_empty() && path.split(sep).any(is_secret))
}

/// A copy of `v` with the value of every secret key, at any depth (inside objects and inside
/// arrays of objects), replaced by [`HIDDEN`].
pub fn redacted(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(redacted_map(m)),
        Value::Array(items) => Value::Array(items.iter().map(redacted).collect()),
        other => other.clone(),
    }
}

/// [`redacted`] for a whole document.
pub fn redacted_map(m: &Map<String, Value>) -> Map<String, Value> {
    m.iter()
        .map(|(k, v)| {
            let v = if is_secret(k) {
                Value::from(HIDDEN)
            } else {
                redacted(v)
            };
            (k.clone(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_hidden_at_every_depth() {
        let v = json!({
            "app": {"oidcRPMetaDataOptionsClientSecret": "s3cr3t",
                    "oidcRPMetaDataOptionsClientID": "app",
                    "nested": {"ldapPwd": "pw", "list": [{"password": "p2"}, "plain"]}},
            "key": {"a": "whole"},
        });
        let text = shown(false, "oidcRPMetaDataOptions", &v).unwrap();
        for secret in ["s3cr3t", "pw", "p2", "whole"] {
            assert!(!text.contains(secret), "{text}");
        }
        assert!(
            text.contains("\"oidcRPMetaDataOptionsClientID\":\"app\""),
            "{text}"
        );
        assert!(text.contains("plain") && text.contains(HIDDEN), "{text}");
        assert_eq!(
            shown(false, "oidcRPMetaDataOptionsClientSecret", &json!("x")),
            None
        );
        assert_eq!(shown(true, "anything", &json!("x")), None);
        assert_eq!(
            shown(false, "timeout", &json!(72000)).as_deref(),
            Some("72000")
        );
    }
}
