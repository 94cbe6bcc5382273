//! The OpenID Connect grants, typed (`Record`, its keys as methods; `CodeGrant`, what a code is
//! issued for): codes, access tokens and refresh tokens as records of `Kind::Oidc` in the
//! shared storage, so they work across workers, restarts and instances. Every record carries
//! `_type` and an `_exp` epoch (the purge removes stale ones); a code is redeemed with the
//! store's atomic `take`, so of two concurrent redemptions exactly one succeeds. The `oidc`
//! area's endpoints issue and check them; no HTTP here.
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

/// One record: what a code was issued for (and what the token endpoint checks), or what a
/// token was issued for. The stored document is LemonLDAP::NG-style keys; these methods are
/// the only readers of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record(Session);

impl From<Session> for Record {
    fn from(s: Session) -> Record {
        Record(s)
    }
}

/// What an authorization code is issued for: the request's client, redirect URI, scope,
/// nonce and PKCE challenge, and the user's session, subject, authentication time and level.
#[derive(Debug, Clone)]
pub struct CodeGrant<'a> {
    /// `client_id`.
    pub client_id: &'a str,
    /// `redirect_uri`.
    pub redirect_uri: &'a str,
    /// `scope`.
    pub scope: &'a str,
    /// `nonce`.
    pub nonce: Option<&'a str>,
    /// The PKCE challenge and method.
    pub pkce: Option<(&'a str, &'a str)>,
    /// The SSO session's `_session_id`, as stored there.
    pub session_id: Value,
    /// The subject.
    pub sub: String,
    /// When the user authenticated, as the session has it.
    pub auth_time: Value,
    /// The authentication context class.
    pub acr: String,
}

impl From<CodeGrant<'_>> for Record {
    fn from(g: CodeGrant<'_>) -> Record {
        let mut rec = Session::new();
        rec.insert("client_id".into(), json!(g.client_id));
        rec.insert("redirect_uri".into(), json!(g.redirect_uri));
        rec.insert("scope".into(), json!(g.scope));
        rec.insert("nonce".into(), json!(g.nonce));
        if let Some((c, m)) = g.pkce {
            rec.insert("code_challenge".into(), json!(c));
            rec.insert("code_challenge_method".into(), json!(m));
        }
        rec.insert("_session_id".into(), g.session_id);
        rec.insert("sub".into(), json!(g.sub));
        rec.insert("auth_time".into(), g.auth_time);
        rec.insert("acr".into(), json!(g.acr));
        Record(rec)
    }
}

impl Record {
    /// The relying party it was issued to (`client_id`).
    pub fn client_id(&self) -> Option<&str> {
        field(&self.0, "client_id")
    }

    /// The `redirect_uri` of the authorization request (codes).
    pub fn redirect_uri(&self) -> Option<&str> {
        field(&self.0, "redirect_uri")
    }

    /// The PKCE challenge and its method (`plain` when unsaid), when the request had one.
    pub fn pkce(&self) -> Option<(&str, &str)> {
        let challenge = field(&self.0, "code_challenge")?;
        Some((
            challenge,
            field(&self.0, "code_challenge_method").unwrap_or("plain"),
        ))
    }

    /// The SSO session it belongs to (`_session_id`); empty when absent.
    pub fn session_id(&self) -> &str {
        field(&self.0, "_session_id").unwrap_or("")
    }

    /// The scope granted.
    pub fn scope(&self) -> Option<&str> {
        field(&self.0, "scope")
    }

    /// The subject.
    pub fn sub(&self) -> Option<&str> {
        field(&self.0, "sub")
    }

    /// When the record expires (`_exp`), as stored.
    pub fn expires(&self) -> Option<&Value> {
        self.0.get("_exp")
    }

    /// The nonce of the authorization request (codes).
    pub fn nonce(&self) -> Option<&str> {
        field(&self.0, "nonce")
    }

    /// The authentication context class (`acr`).
    pub fn acr(&self) -> Option<&str> {
        field(&self.0, "acr")
    }

    /// When the user authenticated, as stored.
    pub fn auth_time(&self) -> Option<&Value> {
        self.0.get("auth_time")
    }

    /// What the tokens issued from this grant carry: the client, scope, subject, session,
    /// authentication time and level (no nonce, no redirect or PKCE).
    pub fn for_tokens(&self) -> Record {
        const KEEP: [&str; 6] = [
            "client_id",
            "scope",
            "sub",
            "_session_id",
            "auth_time",
            "acr",
        ];
        Record(
            self.0
                .iter()
                .filter(|(k, _)| KEEP.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// The same grant without its nonce (a refresh: the ID token carries none).
    pub fn without_nonce(&self) -> Record {
        let mut g = self.0.clone();
        g.remove("nonce");
        Record(g)
    }

    /// The stored document.
    pub fn as_map(&self) -> &Session {
        &self.0
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
    rec: impl Into<Record>,
    ttl: i64,
) -> Result<String> {
    let Record(mut rec) = rec.into();
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
pub fn get(store: &dyn SessionStore, typ: RecordType, id: &str) -> Result<Option<Record>> {
    if !is_token(id) {
        return Ok(None);
    }
    Ok(store
        .get(Kind::Oidc, id)?
        .filter(|r| is_live(r, typ))
        .map(Record))
}

/// Removes the record and returns it when it was live: single use.
pub fn take(store: &dyn SessionStore, typ: RecordType, id: &str) -> Result<Option<Record>> {
    if !is_token(id) {
        return Ok(None);
    }
    Ok(store
        .take(Kind::Oidc, id)?
        .filter(|r| is_live(r, typ))
        .map(Record))
}

/// A string field of a record.
fn field<'a>(rec: &'a Session, key: &str) -> Option<&'a str> {
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
