//! The SSO session as the portal finds it from the request's cookie (`from_request`,
//! `require_user`). The type and its store are the domain's (`crate::sso`); the login builds
//! it (`crate::login::build`).
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::http::Request;
pub use crate::sso::CookieState;
use crate::sso::SsoSession;
use crate::web::cookies;

/// Looks up the session named by the request's SSO cookie.
pub fn from_request(app: &App, conf: &Conf, req: &Request) -> Result<CookieState> {
    crate::sso::from_cookie(app, conf, cookies::sso_id(conf, req).as_deref())
}

/// The connected user's SSO session, or `Error::SignIn`: the login page (HTML), or portal
/// error 9 (no cookie) or 1 (a cookie naming no live session, cleared) with the SSO challenge
/// (JSON).
pub fn require_user(app: &App, conf: &Conf, req: &Request) -> Result<SsoSession> {
    crate::sso::signed_in(&from_request(app, conf, req)?)
}
