//! Codes, access tokens and refresh tokens as records of `Kind::Oidc` in the shared storage,
//! so they work across workers, restarts and instances. Every record carries `_type` and an
//! `_exp` epoch (the purge removes stale ones); a code is redeemed with the store's atomic
//! `take`, so of two concurrent redemptions exactly one succeeds.
use crate::app::App;
use crate::error::Result;
use crate::storage::{Kind, Session, SessionStore};
use crate::util;
use serde_json::{json, Value};

/// What a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordType {
    /// An authorization code.
    Code,
    /// An access token.
    Access,
    /// A refresh token.
    Refresh,
}

impl RecordType {
    fn as_str(self) -> &'static str {
        match self {
            RecordType::Code => "code",
            RecordType::Access => "access_token",
            RecordType::Refresh => "refresh_token",
        }
    }
}

/// The store that holds the records.
pub fn of(app: &App) -> &dyn SessionStore {
    app.sessions(Kind::Oidc)
}

/// Stores a new record living `ttl` seconds; returns its id (64 hex, the token itself).
pub fn create(
    store: &dyn SessionStore,
    typ: RecordType,
    mut rec: Session,
    ttl: i64,
) -> Result<String> {
    rec.insert("_type".into(), json!(typ.as_str()));
    rec.insert("_exp".into(), json!(util::now() + ttl));
    loop {
        let id = util::random_hex(32);
        if store.create(Kind::Oidc, &id, &rec)? {
            return Ok(id);
        }
    }
}

/// A live record of that type, or `None` (unknown, malformed id, other type, expired).
pub fn get(store: &dyn SessionStore, typ: RecordType, id: &str) -> Result<Option<Session>> {
    if !is_token(id) {
        return Ok(None);
    }
    Ok(store.get(Kind::Oidc, id)?.filter(|r| is_live(r, typ)))
}

/// Removes the record and returns it when it was live: single use.
pub fn take(store: &dyn SessionStore, typ: RecordType, id: &str) -> Result<Option<Session>> {
    if !is_token(id) {
        return Ok(None);
    }
    Ok(store.take(Kind::Oidc, id)?.filter(|r| is_live(r, typ)))
}

/// A string field of a record.
pub fn field<'a>(rec: &'a Session, key: &str) -> Option<&'a str> {
    rec.get(key).and_then(Value::as_str)
}

fn is_live(rec: &Session, typ: RecordType) -> bool {
    let exp = rec.get("_exp").and_then(crate::config::as_i64).unwrap_or(0);
    field(rec, "_type") == Some(typ.as_str()) && exp >= util::now()
}

/// Tokens are 64 lowercase hex digits; anything else never reaches the store.
pub fn is_token(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;
    use std::sync::Arc;

    type Mem = crate::storage::memory::MemorySessions;

    #[test]
    fn records_are_typed_expiring_and_single_use() {
        let mem = Mem::default();
        let id = create(&mem, RecordType::Code, Map::new(), 60).unwrap();
        assert!(is_token(&id));
        assert!(
            get(&mem, RecordType::Access, &id).unwrap().is_none(),
            "a code is not an access token"
        );
        assert!(get(&mem, RecordType::Code, &id).unwrap().is_some());
        assert!(take(&mem, RecordType::Code, &id).unwrap().is_some());
        assert!(
            take(&mem, RecordType::Code, &id).unwrap().is_none(),
            "single use"
        );
        let old = create(&mem, RecordType::Access, Map::new(), -1).unwrap();
        assert!(
            get(&mem, RecordType::Access, &old).unwrap().is_none(),
            "expired"
        );
        assert!(get(&mem, RecordType::Access, "../../x").unwrap().is_none());
    }

    #[test]
    fn concurrent_takes_give_one_record() {
        let mem = Arc::new(Mem::default());
        let id = create(mem.as_ref(), RecordType::Code, Map::new(), 60).unwrap();
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (mem, id) = (mem.clone(), id.clone());
                std::thread::spawn(move || {
                    take(mem.as_ref(), RecordType::Code, &id).unwrap().is_some()
                })
            })
            .collect();
        let wins = handles
            .into_iter()
            .filter_map(|h| h.join().ok())
            .filter(|w| *w)
            .count();
        assert_eq!(wins, 1);
    }

    #[test]
    fn liveness_checks_type_and_expiry() {
        let mut r = Map::new();
        r.insert("_type".into(), json!("code"));
        r.insert("_exp".into(), json!(util::now() + 10));
        assert!(is_live(&r, RecordType::Code));
        assert!(!is_live(&r, RecordType::Access));
        r.insert("_exp".into(), json!(util::now() - 1));
        assert!(!is_live(&r, RecordType::Code));
        assert!(!is_token("../x") && is_token(&"a".repeat(64)));
    }
}
