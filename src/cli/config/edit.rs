//! `config set`, `addKey`, `delKey`: turning arguments into a new document. For `set` a key
//! must exist (in the stored configuration, or be one Limette honours: `support::is_honoured`,
//! typed by its unset value; `hash/sub` reaches inside a hash); `addKey` creates entries (and missing levels) under a hash, as
//! `lemonldap-ng-cli` does; `delKey` removes one. A value is read with the type of the value it
//! replaces (number, 0/1 flag, JSON object or array, text), and the `cfg*` metadata cannot be
//! set by hand. Every argument is checked before anything is saved; saving is the caller's.
use crate::config::{defaults, support};
use crate::error::{Error, Result};
use crate::storage::save::META_KEYS;
use serde_json::{Map, Value};

/// `stored` with every `(path, text)` pair applied; the first bad pair is the error.
pub fn apply(
    stored: &Map<String, Value>,
    pairs: &[(String, String)],
    sep: &str,
) -> Result<Map<String, Value>> {
    let mut out = stored.clone();
    for (path, text) in pairs {
        let parts = split_path(path, sep)?;
        let mut merged = defaults::merged(&out);
        // A key Limette honours may be absent from the document and from the defaults (no
        // default, as `issuerDBOpenIDConnectRule`): its unset value gives it a type.
        if !merged.contains_key(parts[0]) {
            match support::unset_value(parts[0]) {
                Some(v) => {
                    merged.insert(parts[0].to_string(), v);
                }
                None if support::support(parts[0]).is_some() => {
                    return Err(Error::bad(format!(
                        "{} is a LemonLDAP::NG key that Limette does not read",
                        parts[0]
                    )))
                }
                None => {}
            }
        }
        let current = match (parts.len(), current_value(&merged, &parts, path)?) {
            // A rule or a flag (`boolOrExpr`): text, whatever the value it replaces.
            (1, _) if support::is_rule_or_flag(parts[0]) => None,
            (_, c) => c,
        };
        let value = typed(path, text, current)?;
        set_path(&mut out, &merged, &parts, value);
    }
    Ok(out)
}

/// `path` cut at `sep`: no empty part, and no `cfg*` metadata key at the top.
pub fn split_path<'a>(path: &'a str, sep: &str) -> Result<Vec<&'a str>> {
    let parts: Vec<&str> = path.split(sep).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::bad(format!("Invalid key {path}")));
    }
    // split always yields at least one part.
    if META_KEYS.contains(&parts[0]) {
        return Err(Error::bad(format!(
            "{} is set when the configuration is saved",
            parts[0]
        )));
    }
    Ok(parts)
}

/// The value a path replaces: `None` for a new entry of an existing hash.
pub fn current_value<'a>(
    merged: &'a Map<String, Value>,
    parts: &[&str],
    path: &str,
) -> Result<Option<&'a Value>> {
    let unknown = || Error::not_found(format!("Unknown key {path}"));
    let mut value = merged.get(parts[0]).ok_or_else(unknown)?;
    for (i, part) in parts.iter().enumerate().skip(1) {
        let Value::Object(m) = value else {
            return Err(Error::bad(format!(
                "Key {} is not a hash",
                parts[..i].join("/")
            )));
        };
        match m.get(*part) {
            Some(v) => value = v,
            None if i == parts.len() - 1 => return Ok(None),
            None => return Err(unknown()),
        }
    }
    Ok(Some(value))
}

/// Reads `text` with the type of `current`.
pub fn typed(path: &str, text: &str, current: Option<&Value>) -> Result<Value> {
    let bad = |what: &str| Error::bad(format!("{path} expects {what}, got {text:?}"));
    match current {
        // Configuration numbers are durations, sizes, levels and flags: never negative.
        Some(Value::Number(n)) if n.is_f64() => match text.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && f >= 0.0 => Ok(Value::from(f)),
            _ => Err(bad("a non-negative number")),
        },
        Some(Value::Number(_)) => match text.trim().parse::<i64>() {
            Ok(n) if n >= 0 => Ok(Value::from(n)),
            _ => Err(bad("a non-negative integer")),
        },
        Some(Value::Bool(_)) => match text.trim() {
            "1" | "true" | "on" | "yes" => Ok(Value::Bool(true)),
            "0" | "false" | "off" | "no" => Ok(Value::Bool(false)),
            _ => Err(bad("0 or 1")),
        },
        Some(Value::Object(_)) => match serde_json::from_str(text) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(bad("a JSON object")),
        },
        Some(Value::Array(_)) => match serde_json::from_str(text) {
            Ok(v @ Value::Array(_)) => Ok(v),
            _ => Err(bad("a JSON array")),
        },
        Some(Value::String(_)) | Some(Value::Null) | None => Ok(Value::from(text)),
    }
}

/// Writes `value` at `parts`, copying a defaulted hash into the document first.
fn set_path(
    out: &mut Map<String, Value>,
    merged: &Map<String, Value>,
    parts: &[&str],
    value: Value,
) {
    let Some((last, parents)) = parts.split_last() else {
        return;
    };
    if parents.is_empty() {
        out.insert(last.to_string(), value);
        return;
    }
    let top = parents[0];
    let mut root = out
        .get(top)
        .or_else(|| merged.get(top))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let mut node = &mut root;
    for p in &parents[1..] {
        match node {
            Value::Object(m) => {
                node = m
                    .entry(p.to_string())
                    .or_insert_with(|| Value::Object(Map::new()))
            }
            _ => return,
        }
    }
    if let Value::Object(m) = node {
        m.insert(last.to_string(), value);
    }
    out.insert(top.to_string(), root);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stored() -> Map<String, Value> {
        match json!({"cfgNum": 1, "portal": "http://a/", "timeout": 100, "macros": {"A": "1"}}) {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn set(pairs: &[(&str, &str)]) -> Result<Map<String, Value>> {
        let p: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        apply(&stored(), &p, "/")
    }

    fn msg(r: Result<Map<String, Value>>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn values_take_the_type_of_what_they_replace() {
        let c = set(&[
            ("timeout", "300"),
            ("portal", "http://b/"),
            ("macros/B", "2"),
            ("restConfigServer", "1"),
        ])
        .unwrap();
        assert_eq!(c["timeout"], 300);
        assert_eq!(c["portal"], "http://b/");
        assert_eq!(c["macros"], json!({"A": "1", "B": "2"}));
        assert_eq!(c["restConfigServer"], 1);
        let c = set(&[
            ("groups", "{\"g\": \"1\"}"),
            ("locationRules/h/default", "deny"),
        ]);
        assert!(c.is_err(), "locationRules/h does not exist yet");
        let c = set(&[("groups", "{\"g\": \"1\"}")]).unwrap();
        assert_eq!(c["groups"], json!({"g": "1"}));
    }

    #[test]
    fn every_honoured_key_can_be_set_even_without_a_default() {
        let c = set(&[
            ("issuerDBOpenIDConnectRule", "$uid ne \"guest\""),
            ("oidcServiceAllowDynamicRegistration", "1"),
            ("oidcServiceDynamicRegistrationExportedVars/email", "mail"),
        ])
        .unwrap();
        assert_eq!(c["issuerDBOpenIDConnectRule"], "$uid ne \"guest\"");
        assert_eq!(c["oidcServiceAllowDynamicRegistration"], 1);
        assert_eq!(
            c["oidcServiceDynamicRegistrationExportedVars"],
            json!({"email": "mail"})
        );
        // A rule replacing the flag 1 is still text.
        let mut one = stored();
        one.insert("issuerDBOpenIDConnectRule".into(), json!(1));
        let p = [("issuerDBOpenIDConnectRule".to_string(), "$uid".to_string())];
        assert_eq!(
            apply(&one, &p, "/").unwrap()["issuerDBOpenIDConnectRule"],
            "$uid"
        );
        // The mechanism is the table, not a list: every honoured key takes a value of its type.
        let settable = crate::config::support::IMPLEMENTED
            .iter()
            .filter(|k| !META_KEYS.contains(&k.key));
        for k in settable {
            let text = match support::unset_value(k.key) {
                Some(Value::Number(_)) => "1",
                Some(Value::Object(_)) => "{}",
                Some(Value::Array(_)) => "[]",
                Some(_) => "x",
                None => panic!("{} is honoured", k.key),
            };
            assert!(set(&[(k.key, text)]).is_ok(), "{}", k.key);
        }
        assert_eq!(
            msg(set(&[("oidcServiceAllowDynamicRegistrationX", "1")])),
            "not found: Unknown key oidcServiceAllowDynamicRegistrationX"
        );
        assert!(msg(set(&[("SMTPPort", "25")])).contains("does not read"));
    }

    #[test]
    fn bad_pairs_are_refused_with_the_key() {
        assert_eq!(
            msg(set(&[("timeout", "soon")])),
            "bad request: timeout expects a non-negative integer, got \"soon\""
        );
        assert!(msg(set(&[("timeout", "-1")])).contains("non-negative integer"));
        assert_eq!(msg(set(&[("nokey", "1")])), "not found: Unknown key nokey");
        assert_eq!(
            msg(set(&[("portal/x", "1")])),
            "bad request: Key portal is not a hash"
        );
        assert_eq!(
            msg(set(&[("macros", "[1]")])),
            "bad request: macros expects a JSON object, got \"[1]\""
        );
        assert!(msg(set(&[("cfgNum", "5")])).contains("set when the configuration is saved"));
        assert!(msg(set(&[("a//b", "5")])).contains("Invalid key"));
    }
}
