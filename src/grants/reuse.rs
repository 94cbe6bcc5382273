//! Reuse detection for rotated refresh tokens (RFC 9700 4.14.2), which LemonLDAP::NG 2.16
//! lacks: a public client's refresh token is taken on use, and leaves a trace (`Used`, under
//! the SHA-256 of the token, never the token itself) naming its family. The same token
//! presented again is a replay: the legitimate client and an attacker hold the same chain,
//! and the server cannot tell which is which, so the whole family is revoked (every access and
//! refresh token descending from the same code or grant). Confidential clients, whose refresh
//! tokens are reusable, never leave traces.
use super::{get, take, RecordType};
use crate::error::Result;
use crate::storage::{Kind, Session, SessionStore};
use crate::util;
use serde_json::json;

/// The id of the trace a used refresh token leaves: SHA-256 of the token, 64 hex.
pub fn trace_of(token: &str) -> String {
    use sha2::{Digest, Sha256};
    util::hex(&Sha256::digest(format!("refresh-used:{token}").as_bytes()))
}

/// Leaves the trace of a refresh token just taken, naming its family, for `ttl` seconds (as
/// long as the family may live).
pub fn mark_used(store: &dyn SessionStore, token: &str, family: &str, ttl: i64) -> Result<()> {
    let mut rec = Session::new();
    rec.insert("_family".into(), json!(family));
    rec.insert("_type".into(), json!(RecordType::Used.as_str()));
    rec.insert("_exp".into(), json!(util::now() + ttl));
    // A fresh token is taken once: its trace cannot exist yet (`create` keeps the first).
    store.create(Kind::Oidc, &trace_of(token), &rec)?;
    Ok(())
}

/// When `token` is a refresh token already used, its family, now revoked: taken away and
/// every token it lists deleted. `None`: not a replay (unknown), or the family is gone.
pub fn replayed(store: &dyn SessionStore, token: &str) -> Result<Option<super::Record>> {
    if !super::is_token(token) {
        return Ok(None);
    }
    let Some(trace) = get(store, RecordType::Used, &trace_of(token))? else {
        return Ok(None);
    };
    match trace.family() {
        Some(family) => revoke_family(store, family),
        None => Ok(None),
    }
}

/// Takes a family away and deletes every token it lists; the family record when it was live.
pub fn revoke_family(store: &dyn SessionStore, family: &str) -> Result<Option<super::Record>> {
    let Some(rec) = take(store, RecordType::Redeemed, family)? else {
        return Ok(None);
    };
    super::revoke(store, &rec.issued())?;
    Ok(Some(rec))
}

#[cfg(test)]
mod tests {
    use super::super::{create, create_as, new_id, open_family, record_issued, Record};
    use super::*;
    use serde_json::Map;

    #[test]
    fn a_replayed_refresh_token_revokes_its_family() {
        let mem = crate::storage::memory::MemorySessions::default();
        let (at, rt) = (new_id(), new_id());
        let fam = open_family(&mem, &new_id(), &Record::default(), &[&at, &rt], 60, None).unwrap();
        create_as(&mem, RecordType::Access, &at, Map::new(), 60).unwrap();
        create_as(&mem, RecordType::Refresh, &rt, Map::new(), 60).unwrap();
        assert!(replayed(&mem, &rt).unwrap().is_none(), "not used yet");
        assert!(take(&mem, RecordType::Refresh, &rt).unwrap().is_some());
        mark_used(&mem, &rt, &fam, 60).unwrap();
        let rt2 = create(&mem, RecordType::Refresh, Map::new(), 60).unwrap();
        assert!(record_issued(&mem, &fam, &[&rt2], 60).unwrap());
        assert!(replayed(&mem, &rt).unwrap().is_some());
        assert!(get(&mem, RecordType::Access, &at).unwrap().is_none());
        assert!(get(&mem, RecordType::Refresh, &rt2).unwrap().is_none());
        assert!(replayed(&mem, &rt).unwrap().is_none(), "already revoked");
        assert!(replayed(&mem, "nope").unwrap().is_none());
    }
}
