//! The relying parties a user consented to, as LemonLDAP::NG keeps them: `_oidcConsents` in the
//! user's persistent session, a JSON string holding a list of `{rp, epoch, scope}` (the RP's
//! configuration key, when, the space-separated scopes), one entry per RP, the newest consent
//! replacing the RP's older one (`Issuer/OpenIDConnect.pm`). A stored consent covers a request
//! when it has an epoch and scopes and every requested scope is among them. The OpenID Connect
//! provider asks and remembers; the portal's menu lists and revokes (as LemonLDAP::NG's
//! `DELETE /mysession/persistent/_oidcConsents?sub=<rp>` does). No HTTP here.
use crate::app::App;
use crate::config::{as_i64, value_string};
use crate::error::Result;
use crate::storage::{Kind, Session};
use serde_json::{json, Value};
use std::sync::Mutex;

/// The key of the list in the persistent session.
pub const KEY: &str = "_oidcConsents";

/// One remembered consent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consent {
    /// The relying party's configuration key.
    pub rp: String,
    /// When it was given (0 when the stored value is not a number).
    pub epoch: i64,
    /// The scopes given, space-separated.
    pub scope: String,
}

/// One lock for the read-change-write of the list in this process.
static CONSENTS: Mutex<()> = Mutex::new(());

/// The consents of a persistent session (or of a session that carries its keys), in stored
/// order; an unreadable list is no consent.
pub fn of(ps: &Session) -> Vec<Consent> {
    raw_list(ps.get(KEY))
        .iter()
        .filter_map(|c| {
            Some(Consent {
                rp: c.get("rp").map(value_string).filter(|r| !r.is_empty())?,
                epoch: c.get("epoch").and_then(as_i64).unwrap_or(0),
                scope: c.get("scope").map(value_string).unwrap_or_default(),
            })
        })
        .collect()
}

/// Whether a remembered consent covers `scope` for `rp`: the RP's first entry, with an epoch
/// and scopes, holding every requested scope (LemonLDAP::NG's check, `_hasScope` per scope).
pub fn covers(list: &[Consent], rp: &str, scope: &str) -> bool {
    let Some(c) = list.iter().find(|c| c.rp == rp) else {
        return false;
    };
    let given: Vec<&str> = c.scope.split_whitespace().collect();
    c.epoch != 0 && !given.is_empty() && scope.split_whitespace().all(|s| given.contains(&s))
}

/// Remembers that the user gave `scope` to `rp` now, replacing the RP's older consent.
pub fn remember(app: &App, trace: &str, rp: &str, scope: &str) -> Result<()> {
    change(app, trace, |list| {
        list.retain(|c| c.get("rp").map(value_string).as_deref() != Some(rp));
        list.push(json!({"rp": rp, "epoch": crate::util::now(), "scope": scope}));
        true
    })
}

/// Forgets the user's consent to `rp`; false when there was none.
pub fn revoke(app: &App, trace: &str, rp: &str) -> Result<bool> {
    let mut found = false;
    change(app, trace, |list| {
        let before = list.len();
        list.retain(|c| c.get("rp").map(value_string).as_deref() != Some(rp));
        found = list.len() != before;
        found
    })?;
    Ok(found)
}

/// Reads the list, lets `f` change it, writes it back (as a JSON string) when `f` says so.
fn change(app: &App, trace: &str, f: impl FnOnce(&mut Vec<Value>) -> bool) -> Result<()> {
    let _serial = CONSENTS.lock().unwrap_or_else(|p| p.into_inner());
    let (id, mut ps) = crate::sso::persistent(app, trace)?;
    let mut list = raw_list(ps.get(KEY));
    if !f(&mut list) {
        return Ok(());
    }
    ps.insert(KEY.into(), json!(Value::Array(list).to_string()));
    app.sessions(Kind::Persistent)
        .put(Kind::Persistent, &id, &ps)
}

/// LemonLDAP::NG stores the list as a JSON string; an array is taken too.
fn raw_list(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn session(list: &str) -> Session {
        let mut s = Map::new();
        s.insert(KEY.into(), json!(list));
        s
    }

    #[test]
    fn a_remembered_consent_must_cover_every_scope() {
        let list = of(&session(
            r#"[{"rp":"a","epoch":1,"scope":"openid email"},{"rp":"a","epoch":2,"scope":"openid profile"}]"#,
        ));
        assert!(covers(&list, "a", "openid"));
        assert!(covers(&list, "a", "email openid"));
        assert!(
            !covers(&list, "a", "openid profile"),
            "the RP's first entry decides"
        );
        assert!(!covers(&list, "b", "openid"));
    }

    #[test]
    fn a_consent_without_epoch_or_scope_covers_nothing() {
        let list = of(&session(
            r#"[{"rp":"a","epoch":"","scope":"openid"},{"rp":"b","epoch":"3","scope":""},{"epoch":1,"scope":"openid"}]"#,
        ));
        assert_eq!(list.len(), 2, "an entry without rp is dropped");
        assert!(!covers(&list, "a", "openid"));
        assert!(!covers(&list, "b", ""));
        assert_eq!(list[1].epoch, 3);
    }

    #[test]
    fn an_unreadable_list_is_no_consent() {
        assert!(of(&session("not json")).is_empty());
        assert!(of(&Map::new()).is_empty());
    }
}
