//! Pending logins: a successful login held back (by notifications to accept) before its SSO
//! session exists. The record lives in the session store (kind `pending`, so it survives a
//! restart and is shared by instances), named by a random id carried in its own cookie; forms
//! posted for it carry a token bound to that id (CSRF-safe). The record expires after
//! `formTimeout` seconds (at least 10 minutes).
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::storage::{Kind, Session};
use crate::util;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

/// The cookie naming a pending login.
pub const COOKIE: &str = "lemonldappending";

/// A login waiting for the user.
#[derive(Debug, Clone)]
pub struct Pending {
    /// Its id (64 hex).
    pub id: String,
    /// The SSO session to create once released.
    pub session: Session,
    /// Where to go afterwards.
    pub url: Option<String>,
}

/// Stores a pending login; returns it with its new id.
pub fn create(app: &App, conf: &Conf, session: Session, url: Option<&str>) -> Result<Pending> {
    let id = util::random_hex(32);
    let ttl = conf.form_timeout.unwrap_or(120).max(600);
    let mut rec = serde_json::Map::new();
    rec.insert("_exp".into(), json!(util::now() + ttl));
    rec.insert("session".into(), Value::Object(session.clone()));
    if let Some(u) = url {
        rec.insert("url".into(), json!(u));
    }
    app.sessions(Kind::Pending).put(Kind::Pending, &id, &rec)?;
    Ok(Pending {
        id,
        session,
        url: url.map(str::to_string),
    })
}

/// The live pending login of that id.
pub fn get(app: &App, id: &str) -> Result<Option<Pending>> {
    if !crate::sso::is_session_id(id) {
        return Ok(None);
    }
    let Some(rec) = app.sessions(Kind::Pending).get(Kind::Pending, id)? else {
        return Ok(None);
    };
    let exp = rec.get("_exp").and_then(crate::config::as_i64).unwrap_or(0);
    if exp < util::now() {
        app.sessions(Kind::Pending).delete(Kind::Pending, id)?;
        return Ok(None);
    }
    let Some(Value::Object(session)) = rec.get("session").cloned() else {
        return Ok(None);
    };
    let url = rec.get("url").and_then(Value::as_str).map(str::to_string);
    Ok(Some(Pending {
        id: id.to_string(),
        session,
        url,
    }))
}

/// Removes a pending login; `true` when this call removed it (so only one caller releases it).
pub fn finish(app: &App, id: &str) -> Result<bool> {
    Ok(app
        .sessions(Kind::Pending)
        .take(Kind::Pending, id)?
        .is_some())
}

/// The form token bound to a pending login.
pub fn token(conf: &Conf, id: &str) -> String {
    let Ok(mut m) = Hmac::<Sha256>::new_from_slice(conf.key.as_bytes()) else {
        return String::new();
    };
    m.update(b"pending:");
    m.update(id.as_bytes());
    util::hex(&m.finalize().into_bytes())
}

/// Checks a posted form token in constant time.
pub fn check_token(conf: &Conf, id: &str, posted: &str) -> bool {
    util::ct_eq(token(conf, id).as_bytes(), posted.as_bytes())
}
