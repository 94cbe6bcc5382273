//! Offline access (OpenID Connect Core 1.0, section 11), as LemonLDAP::NG 2.16 grants it:
//! `offline_access` is honoured only for a relying party with `AllowOffline`, on a code
//! request whose user consented (`prompt=consent`, or an RP that bypasses consent); it is
//! always taken out of the scope the tokens carry. The code's family is then *detached*: it
//! keeps the user's attributes (`saved_attributes`, LemonLDAP::NG's offline session data) and
//! its refresh tokens, bound to no SSO session, live until the RP's `OfflineSessionExpiration`.
//! The offline grants of a user are listed (`list`) and revoked (`revoke`) here; the command
//! line reaches them.
use super::{get, RecordType};
use crate::error::Result;
use crate::storage::{Kind, Session, SessionStore};
use serde_json::Value;

/// The scope value that asks for offline access.
pub const SCOPE: &str = "offline_access";

/// The scope a code is issued for, and whether it is offline: `offline_access` requested,
/// allowed for the RP (`AllowOffline`) and consented to (`prompt` holds `consent`, or the RP
/// bypasses consent). `offline_access` is removed from the scope either way (LemonLDAP::NG's
/// `run`: "Strip offline_access from scopes from now on").
pub fn requested(scope: &str, allowed: bool, consented: bool) -> (String, bool) {
    let asked = scope.split_whitespace().any(|s| s == SCOPE);
    let rest: Vec<&str> = scope.split_whitespace().filter(|s| *s != SCOPE).collect();
    (rest.join(" "), asked && allowed && consented)
}

/// The attributes an offline family keeps from the SSO session: all but the session's own
/// keys (`_session*`, `_utime`, as LemonLDAP::NG drops them) and the password, should one be
/// kept in the session.
pub fn saved_attributes(session: &Session) -> Session {
    session
        .iter()
        .filter(|(k, _)| !k.starts_with("_session") && *k != "_utime" && *k != "_password")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// One offline grant: its family id, client and user, and when it expires.
#[derive(Debug, Clone, PartialEq)]
pub struct OfflineGrant {
    /// The family id (what `revoke` takes).
    pub id: String,
    /// The relying party.
    pub client_id: String,
    /// The user (`sub`).
    pub user: String,
    /// Expiry, epoch seconds.
    pub expires: i64,
}

/// The live offline grants, of one user or of all, sorted by user then id.
pub fn list(store: &dyn SessionStore, user: Option<&str>) -> Result<Vec<OfflineGrant>> {
    let mut out = Vec::new();
    for id in store.ids(Kind::Oidc)? {
        let Some(rec) = get(store, RecordType::Redeemed, &id)? else {
            continue;
        };
        if rec.detached().is_none() || !rec.is_offline() {
            continue;
        }
        let sub = rec.sub().unwrap_or("").to_string();
        if user.is_some_and(|u| u != sub) {
            continue;
        }
        out.push(OfflineGrant {
            client_id: rec.client_id().unwrap_or("").to_string(),
            user: sub,
            expires: rec.expires().and_then(Value::as_i64).unwrap_or(0),
            id,
        });
    }
    crate::util::sort::sort_by(&mut out, |a, b| (&a.user, &a.id).cmp(&(&b.user, &b.id)));
    Ok(out)
}

/// Revokes an offline grant: its family and every token in it. `false` when `id` names no
/// live offline grant (another record is never touched).
pub fn revoke(store: &dyn SessionStore, id: &str) -> Result<bool> {
    match get(store, RecordType::Redeemed, id)? {
        Some(rec) if rec.detached().is_some() && rec.is_offline() => {
            Ok(super::reuse::revoke_family(store, id)?.is_some())
        }
        _ => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{create_as, new_id, open_family, Record};
    use super::*;
    use serde_json::{json, Map};

    #[test]
    fn offline_access_as_llng() {
        let s = "openid offline_access profile";
        assert_eq!(requested(s, true, true), ("openid profile".into(), true));
        assert_eq!(requested(s, false, true), ("openid profile".into(), false));
        assert_eq!(requested(s, true, false), ("openid profile".into(), false));
        assert_eq!(requested("openid", true, true), ("openid".into(), false));
    }

    #[test]
    fn offline_grants_are_listed_and_revoked_per_user() {
        let mem = crate::storage::memory::MemorySessions::default();
        let mut s = Map::new();
        for (k, v) in [("_session_id", "x"), ("_utime", "1"), ("uid", "dwho")] {
            s.insert(k.into(), json!(v));
        }
        let attrs = saved_attributes(&s);
        assert_eq!(Value::Object(attrs.clone()), json!({"uid": "dwho"}));
        let grant = |sub: &str, offline: bool| {
            Record::from(Map::new())
                .with("sub", json!(sub))
                .with("client_id", json!("rp"))
                .with("offline", json!(offline))
        };
        let rt = new_id();
        let fam = open_family(
            &mem,
            &new_id(),
            &grant("dwho", true),
            &[&rt],
            60,
            Some(&attrs),
        );
        let fam = fam.unwrap();
        create_as(&mem, RecordType::Refresh, &rt, Map::new(), 60).unwrap();
        let online = open_family(&mem, &new_id(), &grant("dwho", false), &[], 60, None).unwrap();
        open_family(
            &mem,
            &new_id(),
            &grant("rtyler", true),
            &[],
            60,
            Some(&attrs),
        )
        .unwrap();
        let mine = list(&mem, Some("dwho")).unwrap();
        assert_eq!(mine.len(), 1);
        assert_eq!(
            (mine[0].id.as_str(), mine[0].client_id.as_str()),
            (fam.as_str(), "rp")
        );
        assert_eq!(list(&mem, None).unwrap().len(), 2);
        assert!(
            !revoke(&mem, &online).unwrap(),
            "an online family is not an offline grant"
        );
        assert!(revoke(&mem, &fam).unwrap());
        assert!(get(&mem, RecordType::Refresh, &rt).unwrap().is_none());
        assert!(list(&mem, Some("dwho")).unwrap().is_empty());
    }
}
