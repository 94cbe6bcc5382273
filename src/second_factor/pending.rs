//! The pending login between the first factor and the second (LemonLDAP::NG's one-time
//! token of `Main/SecondFactor.pm`, with its `_2fRealSession`): the SSO session built by the
//! pipeline, not stored as one yet, kept as a record of kind `pending` in the session store
//! (shared by instances, survives a restart) for `sfLoginTimeout` seconds. Its random id is
//! the `token` the factor's form posts back (LemonLDAP::NG's parameter name), and the JSON
//! answer gives scripted clients. Besides the session it holds the URL the login goes to,
//! its purpose (checking a factor, or registering one under `sfRequired`), and a free map
//! each factor may keep its own state in (a WebAuthn challenge). Taking it for a check
//! removes it: one answer per token, as LemonLDAP::NG's token is single-use.
use crate::app::App;
use crate::error::Result;
use crate::storage::{Kind, Session};
use crate::util;
use serde_json::{json, Map, Value};

/// What a pending login waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The user proves a registered factor (`/<prefix>2fcheck`, `/2fchoice`).
    Check,
    /// `sfRequired` and no usable device: the user registers one (`/2fregisters`).
    Register,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::Check => "2fcheck",
            Purpose::Register => "2fregister",
        }
    }
}

/// A login waiting for its second factor.
#[derive(Debug, Clone)]
pub struct Pending {
    /// Its id: the form's `token` (64 hex).
    pub id: String,
    /// What it waits for.
    pub purpose: Purpose,
    /// The SSO session to store once the factor passed.
    pub session: Session,
    /// Where the browser goes afterwards.
    pub url: Option<String>,
    /// When it expires (epoch).
    pub exp: i64,
    /// The factors' own state (`<prefix>` keys by convention).
    pub state: Map<String, Value>,
}

/// Stores a new pending login for `ttl` seconds.
pub fn create(
    app: &App,
    purpose: Purpose,
    session: Session,
    url: Option<&str>,
    ttl: i64,
) -> Result<Pending> {
    let p = Pending {
        id: util::random_hex(32),
        purpose,
        session,
        url: url.map(str::to_string),
        exp: util::now() + ttl.max(1),
        state: Map::new(),
    };
    save(app, &p)?;
    Ok(p)
}

/// Writes the pending login back (a factor changed its state).
pub fn save(app: &App, p: &Pending) -> Result<()> {
    let mut rec = Map::new();
    rec.insert("_exp".into(), json!(p.exp));
    rec.insert("_type".into(), json!(p.purpose.as_str()));
    rec.insert("session".into(), Value::Object(p.session.clone()));
    if let Some(u) = &p.url {
        rec.insert("url".into(), json!(u));
    }
    rec.insert("state".into(), Value::Object(p.state.clone()));
    app.sessions(Kind::Pending).put(Kind::Pending, &p.id, &rec)
}

/// The live pending login of that token and purpose, left in place.
pub fn get(app: &App, token: &str, purpose: Purpose) -> Result<Option<Pending>> {
    if !crate::sso::is_session_id(token) {
        return Ok(None);
    }
    let rec = app.sessions(Kind::Pending).get(Kind::Pending, token)?;
    Ok(rec.and_then(|r| decode(token, r, purpose)))
}

/// Takes the live pending login of that token and purpose: removed from the store, so only
/// one answer is ever checked against it. `None`: unknown, expired, or taken already.
pub fn take(app: &App, token: &str, purpose: Purpose) -> Result<Option<Pending>> {
    if !crate::sso::is_session_id(token) {
        return Ok(None);
    }
    let rec = app.sessions(Kind::Pending).take(Kind::Pending, token)?;
    Ok(rec.and_then(|r| decode(token, r, purpose)))
}

/// Ends a pending login (given up, or registered).
pub fn finish(app: &App, token: &str) -> Result<bool> {
    if !crate::sso::is_session_id(token) {
        return Ok(false);
    }
    app.sessions(Kind::Pending).delete(Kind::Pending, token)
}

/// A record of this purpose, not expired.
fn decode(id: &str, rec: Session, purpose: Purpose) -> Option<Pending> {
    let exp = rec.get("_exp").and_then(crate::config::as_i64).unwrap_or(0);
    if exp < util::now() || rec.get("_type").and_then(Value::as_str) != Some(purpose.as_str()) {
        return None;
    }
    let Some(Value::Object(session)) = rec.get("session").cloned() else {
        return None;
    };
    let state = match rec.get("state") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    Some(Pending {
        id: id.to_string(),
        purpose,
        session,
        url: rec.get("url").and_then(Value::as_str).map(str::to_string),
        exp,
        state,
    })
}
