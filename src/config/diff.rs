//! What changed between two configuration documents: keys added, removed and changed, nested
//! objects walked and named by their path (`oidcRPMetaDataOptions/rp/oidcRPMetaDataOptionsClientID`),
//! arrays and scalars compared whole. Every value goes through `redact::shown`: a secret
//! (`support::is_secret` on any segment of the path) is reported without its values, and an
//! object or array added or removed whole (a new relying party) is printed with the secrets
//! inside it hidden. Pure; the console renders it.
use super::redact;
use super::support::is_secret;
use serde_json::{Map, Value};

/// How one path differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Only in the newer document.
    Added,
    /// Only in the older one.
    Removed,
    /// In both, with another value.
    Changed,
}

/// One difference; the values are `None` for a secret (and for the side that lacks the path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The keys from the top, joined with `/`.
    pub path: String,
    /// Added, removed or changed.
    pub change: Change,
    /// The older value, as text.
    pub old: Option<String>,
    /// The newer value, as text.
    pub new: Option<String>,
}

/// The differences from `old` to `new`, sorted by path; top-level keys in `skip` (the save's
/// metadata) are left out.
pub fn diff(old: &Map<String, Value>, new: &Map<String, Value>, skip: &[&str]) -> Vec<Line> {
    let mut out = Vec::new();
    let keep = |k: &&String| !skip.contains(&k.as_str());
    let old: Map<String, Value> = old
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let new: Map<String, Value> = new
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    walk(&old, &new, "", false, &mut out);
    crate::util::sort::sort_by(&mut out, |a, b| a.path.cmp(&b.path));
    out
}

fn walk(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    at: &str,
    hidden: bool,
    out: &mut Vec<Line>,
) {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    crate::util::sort::sort(&mut keys);
    keys.dedup();
    for k in keys {
        let path = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}/{k}")
        };
        let secret = hidden || is_secret(k);
        let shown = |v: &Value| redact::shown(secret, k, v);
        let line = |change, old: Option<&Value>, new: Option<&Value>| Line {
            path: path.clone(),
            change,
            old: old.and_then(shown),
            new: new.and_then(shown),
        };
        match (old.get(k), new.get(k)) {
            (Some(Value::Object(a)), Some(Value::Object(b))) => walk(a, b, &path, secret, out),
            (Some(a), Some(b)) if a != b => out.push(line(Change::Changed, Some(a), Some(b))),
            (Some(_), Some(_)) | (None, None) => {}
            (Some(a), None) => out.push(line(Change::Removed, Some(a), None)),
            (None, Some(b)) => out.push(line(Change::Added, None, Some(b))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn added_removed_changed_by_path_and_secrets_without_values() {
        let old = map(json!({
            "cfgNum": 1, "timeout": 72000, "domain": "example.com",
            "oidcRPMetaDataOptions": {"rp": {"oidcRPMetaDataOptionsClientID": "a",
                "oidcRPMetaDataOptionsClientSecret": "s1"}},
            "key": "k1"
        }));
        let new = map(json!({
            "cfgNum": 2, "timeout": 3600, "portal": "https://sso.example.com/",
            "oidcRPMetaDataOptions": {"rp": {"oidcRPMetaDataOptionsClientID": "b",
                "oidcRPMetaDataOptionsClientSecret": "s2"}},
            "key": "k2"
        }));
        let d = diff(&old, &new, &["cfgNum"]);
        let paths: Vec<(&str, Change)> = d.iter().map(|l| (l.path.as_str(), l.change)).collect();
        assert_eq!(
            paths,
            vec![
                ("domain", Change::Removed),
                ("key", Change::Changed),
                (
                    "oidcRPMetaDataOptions/rp/oidcRPMetaDataOptionsClientID",
                    Change::Changed
                ),
                (
                    "oidcRPMetaDataOptions/rp/oidcRPMetaDataOptionsClientSecret",
                    Change::Changed
                ),
                ("portal", Change::Added),
                ("timeout", Change::Changed),
            ]
        );
        assert_eq!(d[5].old.as_deref(), Some("72000"));
        assert_eq!(d[5].new.as_deref(), Some("3600"));
        for secret in [&d[1], &d[3]] {
            assert_eq!((secret.old.as_deref(), secret.new.as_deref()), (None, None));
        }
        let all = format!("{d:?}");
        assert!(
            !all.contains("s1") && !all.contains("s2") && !all.contains("k1"),
            "{all}"
        );
    }

    #[test]
    fn a_secret_object_hides_what_it_holds() {
        let old = map(json!({"globalStorageOptions": {"password": {"x": "one"}}}));
        let new = map(json!({"globalStorageOptions": {"password": {"x": "two"}}}));
        let d = diff(&old, &new, &[]);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "globalStorageOptions/password/x");
        assert_eq!((d[0].old.clone(), d[0].new.clone()), (None, None));
        assert!(diff(&old, &old, &[]).is_empty());
    }

    #[test]
    fn a_secret_at_any_depth_never_shows() {
        let rp = |id: &str, secret: &str| {
            json!({"oidcRPMetaDataOptionsClientID": id,
                   "oidcRPMetaDataOptionsClientSecret": secret,
                   "deeper": {"list": [{"ldapPassword": format!("{secret}-in-a-list")}]}})
        };
        let old = map(json!({
            "removedPwd": "gone-secret",
            "managerPassword": "changed-old",
            "oidcRPMetaDataOptions": {"old": rp("old", "removed-rp-secret"),
                                      "kept": rp("kept", "kept-old")},
        }));
        let new = map(json!({
            "samlServicePrivateKeySig": "added-secret",
            "managerPassword": "changed-new",
            "oidcRPMetaDataOptions": {"new": rp("new", "added-rp-secret"),
                                      "kept": rp("kept", "kept-new")},
        }));
        let d = diff(&old, &new, &[]);
        let all = format!("{d:?}");
        for secret in [
            "gone-secret",
            "changed-old",
            "changed-new",
            "removed-rp-secret",
            "added-rp-secret",
            "kept-old",
            "kept-new",
            "added-secret",
        ] {
            assert!(!all.contains(secret), "{secret} in {all}");
        }
        // The RPs added and removed whole are still shown, their other keys readable.
        let whole = |path: &str| d.iter().find(|l| l.path == path).cloned().unwrap();
        let added = whole("oidcRPMetaDataOptions/new");
        assert_eq!(added.change, Change::Added);
        assert!(added
            .new
            .unwrap()
            .contains("\"oidcRPMetaDataOptionsClientID\":\"new\""));
        assert_eq!(whole("oidcRPMetaDataOptions/old").change, Change::Removed);
        let changed = whole("managerPassword");
        assert_eq!(
            (changed.change, changed.old, changed.new),
            (Change::Changed, None, None)
        );
    }
}
