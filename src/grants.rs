//! The OpenID Connect grants, typed (`Record`, its keys as methods; `CodeGrant`, what a code is
//! issued for): codes, access tokens and refresh tokens as records of `Kind::Oidc` in the
//! shared storage, so they work across workers, restarts and instances. Every record carries
//! `_type` and an `_exp` epoch (the purge removes stale ones); a code is redeemed with the
//! store's atomic `take`, so of two concurrent redemptions exactly one succeeds. The `oidc`
//! area's endpoints issue and check them; no HTTP here.
//!
//! A redeemed code leaves a *family* record (`Redeemed`) under the SHA-256 of the code: the
//! ids of the tokens issued from it, and an expiry that covers the longest of them. Every
//! token carries its family (`_family`) and lives only while the family does, and while its
//! SSO session does ([`live`]). A replayed code takes the family away and deletes the tokens it
//! lists (RFC 6749 4.1.2), so every token descending from the code (refreshed and rotated ones
//! included) dies at once.
//!
//! A family may be *detached* from SSO sessions (`_detached`: the attributes its tokens stand
//! for): an offline grant (`offline`) outlives the session, a client credentials grant has
//! none. A token without `_session_id` is then good on the family's attributes alone ([`live`]).
//! A public client's refresh token, taken on use, leaves a trace (`reuse`) so that its replay
//! revokes the family (RFC 9700 4.14.2).
pub mod offline;
pub mod reuse;

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
    /// What a redeemed code issued (its token family).
    Redeemed,
    /// The trace of a rotated refresh token (`reuse`).
    Used,
    /// A pushed authorization request (RFC 9126): its client and parameters.
    Pushed,
}

impl RecordType {
    fn as_str(self) -> &'static str {
        match self {
            RecordType::Code => "code",
            RecordType::Access => "access_token",
            RecordType::Refresh => "refresh_token",
            RecordType::Redeemed => "code_redeemed",
            RecordType::Used => "refresh_token_used",
            RecordType::Pushed => "pushed_request",
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
    /// An offline grant (`offline::requested`): the refresh token outlives the SSO session.
    pub offline: bool,
    /// The `claims` parameter as allowed (`ClaimsRequest::to_json`), when there was one.
    pub claims: Option<Value>,
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
        if g.offline {
            rec.insert("offline".into(), json!(true));
        }
        if let Some(c) = g.claims {
            rec.insert("claims".into(), c);
        }
        Record(rec)
    }
}

impl Record {
    /// A pushed authorization request: its client and its parameters, in order.
    pub fn pushed(client_id: &str, params: &[(String, String)]) -> Record {
        let mut rec = Session::new();
        rec.insert("client_id".into(), json!(client_id));
        rec.insert("params".into(), json!(params));
        Record(rec)
    }

    /// The parameters of a pushed authorization request.
    pub fn pushed_params(&self) -> Vec<(String, String)> {
        self.0
            .get("params")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

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

    /// The authentication methods (RFC 8176), as stored.
    pub fn amr(&self) -> Option<&Value> {
        self.0.get("amr")
    }

    /// The record with its authentication methods (RFC 8176).
    pub fn with_amr(mut self, amr: &[&str]) -> Record {
        self.0.insert("amr".into(), json!(amr));
        self
    }

    /// When the user authenticated, as stored.
    pub fn auth_time(&self) -> Option<&Value> {
        self.0.get("auth_time")
    }

    /// The `claims` parameter the grant was issued with, as stored (codes and their tokens).
    pub fn claims_request(&self) -> Option<&Value> {
        self.0.get("claims")
    }

    /// Whether the grant is offline (a code issued for `offline_access`, and its tokens).
    pub fn is_offline(&self) -> bool {
        self.0.get("offline").and_then(Value::as_bool) == Some(true)
    }

    /// The grant type the tokens were issued by (`_grant`: `password`, `clientcredentials`;
    /// absent for the authorization code).
    pub fn grant_type(&self) -> Option<&str> {
        field(&self.0, "_grant")
    }

    /// The attributes a detached family's tokens stand for (family records only).
    pub fn detached(&self) -> Option<&Session> {
        self.0.get("_detached").and_then(Value::as_object)
    }

    /// The same grant no longer bound to its SSO session (an offline refresh token).
    pub fn without_session(&self) -> Record {
        let mut g = self.0.clone();
        g.remove("_session_id");
        Record(g)
    }

    /// The same grant with a key set (`_grant`, `offline`...).
    pub fn with(&self, key: &str, value: Value) -> Record {
        let mut g = self.0.clone();
        g.insert(key.into(), value);
        Record(g)
    }

    /// What the tokens issued from this grant carry: the client, scope, subject, session,
    /// authentication time and level, grant type, offline flag and claims request (no nonce,
    /// no redirect or PKCE).
    pub fn for_tokens(&self) -> Record {
        const KEEP: [&str; 11] = [
            "amr",
            "claims",
            "client_id",
            "scope",
            "sub",
            "_session_id",
            "auth_time",
            "acr",
            "_family",
            "_grant",
            "offline",
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

    /// The token family it belongs to (`_family`), tokens only.
    pub fn family(&self) -> Option<&str> {
        field(&self.0, "_family")
    }

    /// The same record in a token family.
    pub fn with_family(&self, family: &str) -> Record {
        let mut g = self.0.clone();
        g.insert("_family".into(), json!(family));
        Record(g)
    }

    /// The ids of the tokens a family record lists.
    pub fn issued(&self) -> Vec<&str> {
        self.0
            .get("_issued")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
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
    let rec = typed(typ, rec.into(), ttl);
    loop {
        let id = new_id();
        if store.create(Kind::Oidc, &id, &rec)? {
            return Ok(id);
        }
    }
}

/// A fresh record id (64 hex, 256 random bits), for a record stored later with `create_as`.
pub fn new_id() -> String {
    util::random_hex(32)
}

/// Stores a new record under an id chosen beforehand (`new_id`), living `ttl` seconds, through
/// `store_issued`. An id already taken is an error, never an overwrite (256 random bits: it
/// does not happen). The tests' way to store one token.
#[cfg(test)]
pub fn create_as(
    store: &dyn SessionStore,
    typ: RecordType,
    id: &str,
    rec: impl Into<Record>,
    ttl: i64,
) -> Result<()> {
    let token = NewToken {
        id,
        typ,
        rec: rec.into(),
        ttl,
    };
    store_issued(store, None, vec![token])
}

fn typed(typ: RecordType, Record(mut rec): Record, ttl: i64) -> Session {
    rec.insert("_type".into(), json!(typ.as_str()));
    rec.insert("_exp".into(), json!(util::now() + ttl));
    rec
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

/// What presenting a code found.
#[derive(Debug)]
pub enum Redemption {
    /// A live code, now consumed.
    Fresh(Record),
    /// A code already redeemed: its family, now taken away (its tokens are dead).
    Replayed(Record),
    /// Nothing (unknown, expired, malformed).
    Unknown,
}

/// Consumes a code atomically; when it was already redeemed, takes its family away.
pub fn redeem(store: &dyn SessionStore, code: &str) -> Result<Redemption> {
    if let Some(rec) = take(store, RecordType::Code, code)? {
        return Ok(Redemption::Fresh(rec));
    }
    if !is_token(code) {
        return Ok(Redemption::Unknown);
    }
    Ok(match take(store, RecordType::Redeemed, &family_of(code))? {
        Some(family) => Redemption::Replayed(family),
        None => Redemption::Unknown,
    })
}

/// The id of the family a code opens: SHA-256 of the code, 64 hex (the code itself is never
/// stored once redeemed).
pub fn family_of(code: &str) -> String {
    use sha2::{Digest, Sha256};
    util::hex(&Sha256::digest(format!("code-family:{code}").as_bytes()))
}

/// Opens the family of a code just redeemed (`grant`: the code's record; its client and
/// subject are kept for the audit of a replay), listing the tokens about to be issued from it
/// (`issued`, ids from `new_id`, stored after the family), living `ttl` seconds; returns its
/// id. A grant without a code (password, client credentials) passes a fresh `new_id` as
/// `code`. `detached`: the attributes the family's tokens without an SSO session stand for
/// (offline and client credentials grants). The token endpoint stores a family with its
/// tokens (`family_record`, `store_issued`); the tests' way to store a family alone.
#[cfg(test)]
pub fn open_family(
    store: &dyn SessionStore,
    code: &str,
    grant: &Record,
    issued: &[&str],
    ttl: i64,
    detached: Option<&Session>,
) -> Result<String> {
    let (id, rec) = family_record(code, grant, issued, ttl, detached);
    store_issued(store, Some((id.clone(), rec)), Vec::new())?;
    Ok(id)
}

/// The family record of a code just redeemed, and its id: one write with the tokens
/// (`store_issued`), so the family is in place before any of them, and a token is only ever
/// good while its family is (`live`).
pub fn family_record(
    code: &str,
    grant: &Record,
    issued: &[&str],
    ttl: i64,
    detached: Option<&Session>,
) -> (String, Session) {
    let id = family_of(code);
    let mut rec = Session::new();
    rec.insert("client_id".into(), json!(grant.client_id()));
    rec.insert("sub".into(), json!(grant.sub()));
    if let Some(attrs) = detached {
        rec.insert("_detached".into(), Value::Object(attrs.clone()));
        rec.insert("offline".into(), json!(grant.is_offline()));
    }
    rec.insert("_type".into(), json!(RecordType::Redeemed.as_str()));
    rec.insert("_exp".into(), json!(util::now() + ttl));
    rec.insert("_issued".into(), json!(issued));
    (id, rec)
}

/// A token about to be stored by `store_issued`: its id (`new_id`), type, record and lifetime
/// in seconds.
pub struct NewToken<'a> {
    pub id: &'a str,
    pub typ: RecordType,
    pub rec: Record,
    pub ttl: i64,
}

/// Stores the tokens of one grant, after their new family (from [`family_record`]) when
/// the grant opens one: in one step of the store (`SessionStore::create_all`, one commit on
/// the SQL stores), so a token is never stored without its family. An id already taken
/// (the family of a code redeemed twice, or a token id: 256 random bits) is an error, and
/// nothing is stored.
pub fn store_issued(
    store: &dyn SessionStore,
    family: Option<(String, Session)>,
    tokens: Vec<NewToken<'_>>,
) -> Result<()> {
    let (family_id, family) = family.unzip();
    let mut records: Vec<(&str, Session)> = Vec::with_capacity(tokens.len() + 1);
    records.extend(family_id.as_deref().zip(family));
    for t in tokens {
        records.push((t.id, typed(t.typ, t.rec, t.ttl)));
    }
    let refs: Vec<(&str, &Session)> = records.iter().map(|(id, r)| (*id, r)).collect();
    if store.create_all(Kind::Oidc, &refs)? {
        Ok(())
    } else {
        Err(crate::error::Error::internal(
            "the family of a fresh code or a new token id is taken",
        ))
    }
}

/// Adds tokens to a family and makes it live at least `ttl` more seconds. `false` when the
/// family is gone (a replay took it meanwhile): the caller deletes the tokens.
pub fn record_issued(
    store: &dyn SessionStore,
    family: &str,
    ids: &[&str],
    ttl: i64,
) -> Result<bool> {
    let Some(Record(mut rec)) = get(store, RecordType::Redeemed, family)? else {
        return Ok(false);
    };
    let mut issued: Vec<Value> = rec
        .get("_issued")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    issued.extend(ids.iter().map(|i| json!(i)));
    let exp = rec.get("_exp").and_then(crate::config::as_i64).unwrap_or(0);
    rec.insert("_issued".into(), Value::Array(issued));
    rec.insert("_exp".into(), json!(exp.max(util::now() + ttl)));
    store.update(Kind::Oidc, family, &rec)
}

/// Deletes tokens by id (a family's, after a replay).
pub fn revoke(store: &dyn SessionStore, ids: &[&str]) -> Result<()> {
    for id in ids.iter().filter(|i| is_token(i)) {
        store.delete(Kind::Oidc, id)?;
    }
    Ok(())
}

/// A token that is still good, with the attributes it stands for: the record is live, its
/// family is, and so is its SSO session; a token without one (an offline refresh token and
/// the access tokens it gives, a client credentials token) stands for its detached family's
/// attributes instead. `None` otherwise.
pub fn live(
    app: &App,
    conf: &crate::config::Conf,
    typ: RecordType,
    id: &str,
) -> Result<Option<(Record, Session)>> {
    let store = of(app);
    let Some(rec) = get(store, typ, id)? else {
        return Ok(None);
    };
    // A token without a family comes from before families: fail closed.
    let Some(family_id) = rec.family() else {
        return Ok(None);
    };
    if rec.session_id().is_empty() {
        let family = get(store, RecordType::Redeemed, family_id)?;
        return Ok(family
            .and_then(|f| f.detached().cloned())
            .map(|attrs| (rec, attrs)));
    }
    // Each time tokens are issued into a family, its expiry is set to cover the longest of
    // them (from the clock read a moment before theirs: at most a second short), and a
    // revocation removes it. For a live token, a family that is there is live: only its
    // presence is asked.
    if !is_token(family_id) || !store.exists(Kind::Oidc, family_id)? {
        return Ok(None);
    }
    let session = crate::sso::lookup(app, conf, rec.session_id())?;
    Ok(session.map(|s| (rec, s.into_map())))
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
mod tests;
