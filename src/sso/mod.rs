//! The SSO session, the domain's one type for it: LemonLDAP::NG's hash of keys behind methods
//! for the keys the code reads (`id`, `trace`, `auth_time`), found again by id (expired ones
//! are deleted on sight), stored, ended (`logout` for the user, `end` for an administrator;
//! both run the application's session-end hook), the relying parties it was used with, the user's
//! persistent session beside it with the consents kept in it (`consents`), the logins held
//! back before one exists (`pending`), and the handler endpoint's short per-node cache of live
//! sessions (`cache`, forgotten here at every logout). The portal builds it at login and reads it from the cookie (`portal::session`); oidc, sessions
//! and notifications use it from here. No HTTP here.
pub mod cache;
pub mod consents;
pub mod form_token;
pub mod history;
pub mod pending;
pub mod skin;

use crate::app::{App, Reach};
use crate::config::Conf;
use crate::error::{Error, PortalCode, Result, SignIn};
use crate::storage::{Kind, Session};
use crate::util;
use md5::{Digest, Md5};
use serde_json::{json, Map, Value};
use std::ops::Deref;

/// The cookie that carries, through a re-authentication (OpenID Connect `prompt=login` or
/// `max_age`), the id of the session the new login replaces: the login ends it on the server
/// once the new one is stored (`login::release`).
pub const RENEW_COOKIE: &str = "lemonldaprenew";

/// A live SSO session (the global store's `Kind::Global`). It reads as its hash of keys.
#[derive(Debug, Clone, PartialEq)]
pub struct SsoSession(Session);

impl SsoSession {
    /// Its id (`_session_id`); empty when the record has none.
    pub fn id(&self) -> &str {
        self.0
            .get("_session_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The value that names the user in logs, notifications and the persistent session
    /// (`_whatToTrace`); empty when absent.
    pub fn trace(&self) -> String {
        self.0
            .get("_whatToTrace")
            .map(crate::config::value_string)
            .unwrap_or_default()
    }

    /// When the user last authenticated (`_lastAuthnUTime`).
    pub fn auth_time(&self) -> Option<i64> {
        self.0
            .get("_lastAuthnUTime")
            .and_then(crate::config::as_i64)
    }

    /// The hash of keys.
    pub fn into_map(self) -> Session {
        self.0
    }
}

/// A session's hash of keys as a session, for unit tests of code that reads one.
#[cfg(test)]
impl From<Session> for SsoSession {
    fn from(s: Session) -> SsoSession {
        SsoSession(s)
    }
}

impl Deref for SsoSession {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.0
    }
}

/// What a request's SSO cookie names.
#[derive(Debug)]
pub enum CookieState {
    /// No cookie (or the cleared value `0`).
    Absent,
    /// A cookie naming no live session.
    Unknown,
    /// A live session.
    Valid(SsoSession),
}

/// The session an SSO cookie's id names (`web::cookies::sso_id` reads it from a request).
pub fn from_cookie(app: &App, conf: &Conf, id: Option<&str>) -> Result<CookieState> {
    let Some(id) = id else {
        return Ok(CookieState::Absent);
    };
    Ok(match lookup(app, conf, id)? {
        Some(s) => CookieState::Valid(s),
        None => CookieState::Unknown,
    })
}

/// The live session a cookie names, or `Error::SignIn` (the portal's answer to a request
/// without one): portal error 9 without a cookie, 1 with one naming no live session (then
/// cleared).
pub fn signed_in(state: &CookieState) -> Result<SsoSession> {
    let (code, clear) = match state {
        CookieState::Valid(s) => return Ok(s.clone()),
        CookieState::Unknown => (PortalCode::SessionExpired, true),
        CookieState::Absent => (PortalCode::FirstAccess, false),
    };
    Err(Error::SignIn(Box::new(SignIn {
        code,
        back: None,
        clear,
        aside: None,
    })))
}

/// The session key naming the relying parties a session received codes for, as LemonLDAP::NG
/// 2.16 keeps it (`_oidcConnectedRP`: configuration names, newest first, each followed by a
/// comma), so that either portal on a shared store knows whom to tell at logout.
pub const CONNECTED_RPS: &str = "_oidcConnectedRP";

/// The relying parties (configuration names) a session was used with.
pub fn connected_rps(s: &Session) -> Vec<String> {
    let list = s.get(CONNECTED_RPS).map(crate::config::value_string);
    list.unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect()
}

/// Records that the session `s` (as the caller read it) was used with the relying party `rp`
/// (configuration name). Already listed there: nothing to do, no store access (the usual case
/// on every authorization after the first). Otherwise the record is read again just before
/// the update, which never brings back a session ended meanwhile (`SessionStore::update`).
pub fn record_rp(app: &App, s: &Session, rp: &str) -> Result<()> {
    if connected_rps(s).iter().any(|r| r == rp) {
        return Ok(());
    }
    let id = s.get("_session_id").and_then(Value::as_str).unwrap_or("");
    let store = app.sessions(Kind::Global);
    let Some(mut s) = store.get(Kind::Global, id)? else {
        return Ok(());
    };
    if connected_rps(&s).iter().any(|r| r == rp) {
        return Ok(());
    }
    let before = s.get(CONNECTED_RPS).map(crate::config::value_string);
    let list = format!("{rp},{}", before.unwrap_or_default());
    s.insert(CONNECTED_RPS.into(), json!(list));
    store.update(Kind::Global, id, &s)?;
    Ok(())
}

/// Ends the user's SSO session: removes it from the global store (its cookie is the
/// caller's), writes the audit line `audit event=logout user=<trace>`, then runs the
/// session-end hook with the record as removed (relying parties another worker recorded
/// included). Returns the front-channel logout URLs the page must load (`reach`). Of two
/// concurrent logouts only the one that removed the record tells the relying parties.
pub fn logout(app: &App, s: &SsoSession, reach: Reach) -> Result<Vec<String>> {
    let removed = match s.id() {
        "" => None,
        id => {
            cache::forget(id);
            app.sessions(Kind::Global).take(Kind::Global, id)?
        }
    };
    let user: String = s
        .trace()
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect();
    crate::log::audit("logout", &[("user", &user)]);
    Ok(removed.map_or_else(Vec::new, |r| app.session_ended(&r, reach)))
}

/// Ends the SSO session `id` where no browser is present (the REST session server, the
/// command line, the expiry purge): removes it and runs the session-end hook. `false`: no such
/// session. The caller writes its own audit line.
pub fn end(app: &App, id: &str) -> Result<bool> {
    cache::forget(id);
    match app.sessions(Kind::Global).take(Kind::Global, id)? {
        Some(s) => {
            app.session_ended(&s, Reach::ServerOnly);
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The live SSO session of that id. An expired one is ended (`end`: its relying parties are
/// told) and reported absent; a live one gets `_lastSeen` refreshed (at most once a minute, to
/// spare the store).
pub fn lookup(app: &App, conf: &Conf, id: &str) -> Result<Option<SsoSession>> {
    if !is_session_id(id) {
        return Ok(None);
    }
    let store = app.sessions(Kind::Global);
    let Some(mut s) = store.get(Kind::Global, id)? else {
        return Ok(None);
    };
    let now = util::now();
    if is_expired(conf, &s, now) {
        end(app, id)?;
        return Ok(None);
    }
    let last = s.get("_lastSeen").and_then(Value::as_i64).unwrap_or(0);
    if now - last >= 60 {
        s.insert("_lastSeen".into(), json!(now));
        // A logout meanwhile wins: the refresh does not bring the session back.
        if !store.update(Kind::Global, id, &s)? {
            return Ok(None);
        }
    }
    Ok(Some(SsoSession(s)))
}

/// True when the session is past `timeout` (from its `_utime`) or past `timeoutActivity`
/// (from its `_lastSeen`, when that setting is on).
pub fn is_expired(conf: &Conf, s: &Session, now: i64) -> bool {
    let utime = s.get("_utime").and_then(crate::config::as_i64).unwrap_or(0);
    if now - utime > conf.timeout {
        return true;
    }
    let activity = conf.timeout_activity;
    if activity > 0 {
        let last = s
            .get("_lastSeen")
            .and_then(crate::config::as_i64)
            .unwrap_or(utime);
        return now - last > activity;
    }
    false
}

/// The `sid` claim of the ID tokens issued in a session (OpenID Connect Front-Channel Logout
/// 1.0, section 3): it names the session without revealing its id, which is a bearer secret
/// (the cookie). HMAC-SHA256 of the id with the configuration `key`, 32 hex digits: stable
/// for the session's life, across workers and instances that share the key.
pub fn oidc_sid(key: &str, session_id: &str) -> String {
    use hmac::{Hmac, Mac};
    let Ok(mut m) = Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()) else {
        return String::new(); // HMAC accepts any key length
    };
    m.update(b"oidc-sid:");
    m.update(session_id.as_bytes());
    util::hex(&m.finalize().into_bytes())[..32].to_string()
}

/// The OP browser state of OpenID Connect Session Management 1.0 (section 3): what the
/// check-session page's script reads from the browser-state cookie
/// (`web::cookies::BROWSER_STATE`) and hashes into `session_state`. It must change when the
/// session does and must not be the session id, which is a bearer secret in an `HttpOnly`
/// cookie: HMAC-SHA256 of the id with the configuration `key` (apart from [`oidc_sid`]'s), 32
/// hex digits.
pub fn browser_state(key: &str, session_id: &str) -> String {
    use hmac::{Hmac, Mac};
    let Ok(mut m) = Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()) else {
        return String::new(); // HMAC accepts any key length
    };
    m.update(b"oidc-opbs:");
    m.update(session_id.as_bytes());
    util::hex(&m.finalize().into_bytes())[..32].to_string()
}

/// A 64-hex session id as the portal generates them.
pub fn is_session_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Stores a built session; returns its id.
pub fn store(app: &App, s: &Session) -> Result<String> {
    let id = s
        .get("_session_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    app.sessions(Kind::Global).put(Kind::Global, &id, s)?;
    Ok(id)
}

/// The persistent session id of a user: MD5 hex of the `whatToTrace` value (LemonLDAP::NG).
pub fn persistent_id(trace: &str) -> String {
    let digest = Md5::digest(trace.as_bytes());
    util::hex(&digest)[..32].to_string()
}

/// The user's persistent session, created empty when absent.
pub fn persistent(app: &App, trace: &str) -> Result<(String, Session)> {
    let id = persistent_id(trace);
    let store = app.sessions(Kind::Persistent);
    if let Some(s) = store.get(Kind::Persistent, &id)? {
        return Ok((id, s));
    }
    let now = util::now();
    let mut s = Map::new();
    s.insert("_session_id".into(), json!(id));
    s.insert("_session_kind".into(), json!("Persistent"));
    s.insert("_session_uid".into(), json!(trace));
    s.insert("_utime".into(), json!(now));
    Ok((id, s))
}

#[cfg(test)]
mod tests {
    #[test]
    fn oidc_sid_names_the_session_without_its_id() {
        let a = super::oidc_sid("k", "aa");
        assert_eq!(a.len(), 32);
        assert_eq!(a, super::oidc_sid("k", "aa"));
        assert_ne!(a, super::oidc_sid("k", "ab"));
        assert_ne!(a, super::oidc_sid("other key", "aa"));
    }

    #[test]
    fn browser_state_is_neither_the_id_nor_the_sid() {
        let b = super::browser_state("k", "aa");
        assert_eq!(b.len(), 32);
        assert_eq!(b, super::browser_state("k", "aa"));
        assert_ne!(b, super::browser_state("k", "ab"));
        assert_ne!(b, super::oidc_sid("k", "aa"));
    }

    #[test]
    fn connected_rps_reads_llng_list() {
        let mut s = serde_json::Map::new();
        assert!(super::connected_rps(&s).is_empty());
        s.insert(super::CONNECTED_RPS.into(), serde_json::json!("rp2,rp1,"));
        assert_eq!(super::connected_rps(&s), vec!["rp2", "rp1"]);
    }

    #[test]
    fn persistent_id_is_md5_of_trace() {
        assert_eq!(
            super::persistent_id("dwho"),
            "5efe8af397fc3577e05b483aca964f1b"
        );
    }
}
