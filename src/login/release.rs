//! Release, the pipeline's last step: the login is recorded in the user's history (and the
//! history copied into the session, as LemonLDAP::NG does), the SSO session stored and the
//! login audited; a session this login replaces (the browser's SSO cookie, or the one a
//! re-authentication set aside in [`crate::sso::RENEW_COOKIE`]) is ended on the server, so its
//! id is worth nothing any more. It produces what the answer carries (`Released`); the entry
//! point writes the cookie and the redirect or JSON answer.
use super::authenticate::{audit_login, sanitize};
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::http::Request;
use crate::sso::history;
use crate::storage::Session;
use crate::web::cookies;

/// A released login: what its answer carries.
pub struct Released {
    /// The new SSO session's id (the cookie's value).
    pub id: String,
    /// Where the browser goes on to (the portal when `None`).
    pub url: Option<String>,
    /// The request carried a session set aside by a re-authentication: its cookie is cleared.
    pub renewed: bool,
}

/// Stores the session of a browser's login and ends the ones it replaces.
pub fn release(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &Session,
    url: Option<&str>,
) -> Result<Released> {
    let (id, _) = store(app, conf, s)?;
    let renewed = end_replaced(app, conf, req, &id)?;
    Ok(Released {
        id,
        url: url.map(str::to_string),
        renewed,
    })
}

/// Records the login in the history, stores the session and audits the login; returns the
/// session's id and the session as stored.
pub fn store(app: &App, conf: &Conf, s: &Session) -> Result<(String, Session)> {
    let settings = conf.area::<history::Settings>();
    let mut s = s.clone();
    if let Some(h) = history::record_success(app, &settings, &s)? {
        s.insert(history::KEY.into(), h);
    }
    let id = crate::sso::store(app, &s)?;
    let text = |k: &str| {
        s.get(k)
            .map(crate::config::value_string)
            .unwrap_or_default()
    };
    audit_login(true, &text("_whatToTrace"), &text("ipAddr"), &text("_auth"));
    Ok((id, s))
}

/// Ends the live sessions the request names besides `new_id` (its SSO cookie, the session a
/// re-authentication set aside); `true` when the request carried a set-aside one.
fn end_replaced(app: &App, conf: &Conf, req: &Request, new_id: &str) -> Result<bool> {
    let renew = req
        .cookie(crate::sso::RENEW_COOKIE)
        .filter(|v| !v.is_empty() && v != "0");
    for old in [cookies::sso_id(conf, req), renew.clone()]
        .into_iter()
        .flatten()
    {
        if old == new_id {
            continue;
        }
        if let Some(old) = crate::sso::lookup(app, conf, &old)? {
            // The login answers with a redirect: no page for front-channel iframes.
            crate::sso::logout(app, &old, crate::app::Reach::ServerOnly)?;
            let user = sanitize(&old.trace());
            crate::log::audit("session_replaced", &[("user", &user)]);
        }
    }
    Ok(renew.is_some())
}
