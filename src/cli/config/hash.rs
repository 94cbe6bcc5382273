//! `config addKey` and `delKey`: one entry inside a hash, as `lemonldap-ng-cli` edits them.
//! A one-part KEY must be one of the manager's "simple hash" keys (`macros`, `groups`,
//! `exportedVars`...; the table lives in `config_proxy::keys`); a KEY with separators
//! (`locationRules/auth.example.com`, at most four parts) reaches deeper, and `addKey` creates
//! the missing levels. `delKey` of an entry that is not there changes nothing. The top key must
//! be known to Limette (stored or in the defaults table). Saving is the caller's.
use super::edit::{current_value, split_path, typed};
use crate::config::defaults;
use crate::config_proxy::keys;
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// `stored` with every `(KEY, SUBKEY, VALUE)` added; the first bad triplet is the error.
pub fn add(
    stored: &Map<String, Value>,
    triplets: &[(String, String, String)],
    sep: &str,
) -> Result<Map<String, Value>> {
    let mut out = stored.clone();
    for (root, sub, text) in triplets {
        let parts = root_parts(&out, root, sub, sep)?;
        let merged = defaults::merged(&out);
        let mut path = parts.clone();
        path.push(sub);
        let shown = path.join(sep);
        let current = match current_value(&merged, &path, &shown) {
            Ok(v) => v.cloned(),
            Err(Error::NotFound(_)) => None,
            Err(e) => return Err(e),
        };
        let value = typed(&shown, text, current.as_ref())?;
        let node = hash_at(&mut out, &merged, &parts, sep)?;
        node.insert(sub.clone(), value);
    }
    Ok(out)
}

/// `stored` without every `(KEY, SUBKEY)` entry.
pub fn delete(
    stored: &Map<String, Value>,
    pairs: &[(String, String)],
    sep: &str,
) -> Result<Map<String, Value>> {
    let mut out = stored.clone();
    for (root, sub) in pairs {
        let parts = root_parts(&out, root, sub, sep)?;
        let merged = defaults::merged(&out);
        let mut path = parts.clone();
        path.push(sub);
        // Only an entry that is there (stored or defaulted) is removed; nothing else is created.
        match current_value(&merged, &path, root) {
            Ok(Some(_)) => {
                hash_at(&mut out, &merged, &parts, sep)?.remove(sub.as_str());
            }
            Ok(None) | Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The parts of KEY, checked as `lemonldap-ng-cli` checks them, and a known top key.
fn root_parts<'a>(
    conf: &Map<String, Value>,
    root: &'a str,
    sub: &str,
    sep: &str,
) -> Result<Vec<&'a str>> {
    let parts = split_path(root, sep)?;
    if parts.len() > 4 {
        return Err(Error::bad(format!("{root} has too many levels")));
    }
    if sub.is_empty() {
        return Err(Error::bad(format!("empty subkey under {root}")));
    }
    let merged = defaults::merged(conf);
    let top = parts[0];
    if !merged.contains_key(top) {
        return Err(Error::not_found(format!("Unknown key {top}")));
    }
    if parts.len() == 1 && !simple_hash(&merged, top) {
        return Err(Error::bad(format!("{root} is not a simple hash")));
    }
    Ok(parts)
}

/// The manager's simple hashes are the keys the configuration proxy lists entry by entry.
fn simple_hash(merged: &Map<String, Value>, key: &str) -> bool {
    matches!(merged.get(key), Some(Value::Object(_)))
        && matches!(
            keys::answer(merged, &[key.to_string()]),
            Ok(Value::Array(_))
        )
}

/// The hash at `parts` in `out`, copying a defaulted top hash in and creating missing levels.
fn hash_at<'a>(
    out: &'a mut Map<String, Value>,
    merged: &Map<String, Value>,
    parts: &[&str],
    sep: &str,
) -> Result<&'a mut Map<String, Value>> {
    let not_hash = |i: usize| Error::bad(format!("Key {} is not a hash", parts[..=i].join(sep)));
    let top = parts[0];
    if !out.contains_key(top) {
        let dflt = merged.get(top).cloned().unwrap_or(Value::Null);
        out.insert(top.to_string(), dflt);
    }
    let mut node = out.get_mut(top).ok_or_else(|| not_hash(0))?;
    for (i, p) in parts.iter().enumerate().skip(1) {
        let Value::Object(m) = node else {
            return Err(not_hash(i - 1));
        };
        node = m
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    match node {
        Value::Object(m) => Ok(m),
        _ => Err(not_hash(parts.len() - 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stored() -> Map<String, Value> {
        match json!({"portal": "http://a/", "macros": {"A": "1"}, "locationRules": {"h": {"default": "accept"}}})
        {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn t(a: &str, b: &str, c: &str) -> (String, String, String) {
        (a.into(), b.into(), c.into())
    }

    #[test]
    fn add_key_creates_entries_and_levels() {
        let c = add(
            &stored(),
            &[
                t("macros", "B", "2"),
                t("locationRules/new", "default", "deny"),
                t("groups", "g", "1"),
            ],
            "/",
        )
        .unwrap();
        assert_eq!(c["macros"], json!({"A": "1", "B": "2"}));
        assert_eq!(c["locationRules"]["new"], json!({"default": "deny"}));
        assert_eq!(c["locationRules"]["h"], json!({"default": "accept"}));
        assert_eq!(c["groups"], json!({"g": "1"}));
        let c = add(&stored(), &[t("locationRules,h", "x", "1")], ",").unwrap();
        assert_eq!(c["locationRules"]["h"]["x"], "1");
    }

    #[test]
    fn add_key_refuses_what_lemonldap_ng_cli_refuses() {
        let msg = |r: Result<Map<String, Value>>| r.unwrap_err().to_string();
        assert!(msg(add(&stored(), &[t("portal", "x", "1")], "/"))
            .contains("portal is not a simple hash"));
        assert!(
            msg(add(&stored(), &[t("locationRules", "x", "1")], "/")).contains("not a simple hash")
        );
        assert!(msg(add(&stored(), &[t("portal/x", "y", "1")], "/"))
            .contains("Key portal is not a hash"));
        assert!(msg(add(&stored(), &[t("a/b/c/d/e", "y", "1")], "/")).contains("too many levels"));
        assert!(msg(add(&stored(), &[t("nokey/x", "y", "1")], "/")).contains("Unknown key nokey"));
    }

    #[test]
    fn del_key_removes_only_what_is_there() {
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        let c = delete(
            &stored(),
            &[
                p("macros", "A"),
                p("macros", "nope"),
                p("locationRules/zz", "q"),
            ],
            "/",
        )
        .unwrap();
        assert_eq!(c["macros"], json!({}));
        assert_eq!(c["locationRules"], stored()["locationRules"]);
        let c = delete(&stored(), &[p("locationRules/h", "default")], "/").unwrap();
        assert_eq!(c["locationRules"]["h"], json!({}));
    }
}
