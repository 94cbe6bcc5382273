//! Notifications at login and the explorer (built by the notifications-at-login issue).
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};
use crate::storage::Session;

/// Called after a successful login, before the SSO cookie is released: answers with the
/// notification form (holding the session back) when the user has pending notifications.
pub fn intercept(
    _app: &App,
    _conf: &Conf,
    _req: &Request,
    _s: &Session,
    _url: Option<&str>,
) -> Result<Option<Response>> {
    Ok(None)
}

/// Serves `/notifback` and `/mynotifications`.
pub fn handle(_app: &App, _req: &Request, _conf: &Conf) -> Result<Response> {
    Err(Error::not_found("Not found"))
}
