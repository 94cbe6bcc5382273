//! Codes, access tokens and refresh tokens as records of `Kind::Oidc` in the shared storage,
//! so they work across workers, restarts and instances. Every record carries `_type` and an
//! `_exp` epoch (the purge removes stale ones); a code is redeemed with the store's atomic
//! `take`, so of two concurrent redemptions exactly one succeeds.
use crate::app::App;
use crate::error::Result;
use crate::storage::{Kind, Session};
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

/// Stores a new record living `ttl` seconds; returns its id (64 hex, the token itself).
pub fn create(app: &App, typ: RecordType, mut rec: Session, ttl: i64) -> Result<String> {
    rec.insert("_type".into(), json!(typ.as_str()));
    rec.insert("_exp".into(), json!(util::now() + ttl));
    loop {
        let id = util::random_hex(32);
        if app.sessions(Kind::Oidc).create(Kind::Oidc, &id, &rec)? {
            return Ok(id);
        }
    }
}

/// A live record of that type, or `None` (unknown, malformed id, other type, expired).
pub fn get(app: &App, typ: RecordType, id: &str) -> Result<Option<Session>> {
    if !is_token(id) {
        return Ok(None);
    }
    Ok(app
        .sessions(Kind::Oidc)
        .get(Kind::Oidc, id)?
        .filter(|r| is_live(r, typ)))
}

/// Removes the record and returns it when it was live: single use.
pub fn take(app: &App, typ: RecordType, id: &str) -> Result<Option<Session>> {
    if !is_token(id) {
        return Ok(None);
    }
    Ok(app
        .sessions(Kind::Oidc)
        .take(Kind::Oidc, id)?
        .filter(|r| is_live(r, typ)))
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
