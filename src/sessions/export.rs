//! Which session keys leave the server: secret keys (`_password` and `hiddenAttributes`) are
//! omitted unless `restExportSecretKeys` is on, and the connected user's endpoints show only
//! the `exportedAttr` list (the spec's defaults; a leading `+` adds names to them).
use crate::storage::Session;
use serde_json::{Map, Value};

/// Keys shared with the connected user by default (the spec's table).
pub const DEFAULT_EXPORTED: [&str; 7] = [
    "authenticationLevel",
    "groups",
    "ipAddr",
    "_startTime",
    "_utime",
    "_lastSeen",
    "_session_id",
];

/// Parses `exportedAttr`: empty -> defaults, `+ a b` -> defaults plus a, b, else only those.
pub fn exported_list(setting: &str) -> Vec<String> {
    let t = setting.trim();
    let defaults = || DEFAULT_EXPORTED.iter().map(|s| s.to_string());
    let names = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    if t.is_empty() {
        return defaults().collect();
    }
    match t.strip_prefix('+') {
        Some(more) => {
            let mut v: Vec<String> = defaults().collect();
            for n in names(more) {
                if !v.contains(&n) {
                    v.push(n);
                }
            }
            v
        }
        None => names(t),
    }
}

/// Parses `hiddenAttributes` (space or comma separated); `_password` is always secret.
pub fn hidden_list(setting: &str) -> Vec<String> {
    let mut v: Vec<String> = setting
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if !v.iter().any(|k| k == "_password") {
        v.push("_password".into());
    }
    v
}

/// The session without its secret keys (unchanged when `export_secret`).
pub fn without_secrets(s: &Session, hidden: &[String], export_secret: bool) -> Session {
    s.iter()
        .filter(|(k, _)| export_secret || !hidden.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The listed keys of a session, missing ones as `null`.
pub fn pick(s: &Session, keys: &[String]) -> Map<String, Value> {
    keys.iter()
        .map(|k| (k.clone(), s.get(k).cloned().unwrap_or(Value::Null)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exported_rules() {
        assert_eq!(exported_list("").len(), 7);
        let plus = exported_list("+ uid mail groups");
        assert_eq!(plus.len(), 9);
        assert!(plus.contains(&"uid".to_string()) && plus.contains(&"_session_id".to_string()));
        assert_eq!(
            exported_list("uid cn"),
            vec!["uid".to_string(), "cn".to_string()]
        );
    }

    #[test]
    fn secrets() {
        let hidden = hidden_list("_2fDevices");
        assert!(hidden.contains(&"_password".to_string()));
        let Value::Object(s) = json!({"uid": "u", "_password": "p", "_2fDevices": "[]"}) else {
            unreachable!()
        };
        assert_eq!(
            Value::Object(without_secrets(&s, &hidden, false)),
            json!({"uid": "u"})
        );
        assert_eq!(without_secrets(&s, &hidden, true).len(), 3);
        let keys = vec!["uid".to_string(), "nokey".to_string()];
        assert_eq!(
            Value::Object(pick(&s, &keys)),
            json!({"uid": "u", "nokey": null})
        );
    }
}
