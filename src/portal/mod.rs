//! The portal itself: `GET /` (who am I, login form), `POST /` and `POST /oauth2/` (login),
//! `GET /?logout=1`. JSON answers follow the contract's "Portal login" table; HTML clients get
//! real pages with a CSRF-protected form.
pub mod assets;
pub mod cookies;
pub mod csrf;
pub mod login;
pub mod messages;
pub mod pages;
pub mod pending;
pub mod session;

use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, PortalCode, Result};
use crate::http::{Method, Request, Response};
use base64::Engine;
use serde_json::json;
use session::CookieState;

/// Serves `/` (and the login POST on `/oauth2/`).
pub fn handle_root(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    if req.has_query("logout") {
        return logout(app, req, conf);
    }
    match req.method {
        Method::Get | Method::Head => show(app, req, conf),
        Method::Post => login::post(app, req, conf),
        _ => Err(Error::MethodNotAllowed),
    }
}

/// `GET /`: the connected user's page, or the login form.
fn show(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let url = pending_url(conf, req);
    match session::from_request(app, conf, req)? {
        CookieState::Valid(s) => {
            if req.wants_json() {
                return Ok(Response::json(200, &json!({"result": 1, "error": "0"})));
            }
            if let Some(u) = url {
                return Ok(Response::redirect(&u));
            }
            Ok(Response::html(200, pages::landing(conf, &s)))
        }
        CookieState::Unknown => Ok(login_page(conf, req, PortalCode::SessionExpired, 401)
            .with_cookie(&cookies::clear_sso(conf))),
        CookieState::Absent => Ok(login_page(conf, req, PortalCode::FirstAccess, 401)),
    }
}

/// The login answer for a request without a usable session: JSON error (with the SSO
/// challenge on 401) or the HTML form with the message (HTML pages are 200, as a browser
/// must show them).
pub fn login_page(conf: &Conf, req: &Request, code: PortalCode, json_status: u16) -> Response {
    if req.wants_json() {
        let r = Response::json(json_status, &json!({"result": 0, "error": code.as_str()}));
        return if json_status == 401 {
            r.with_header("WWW-Authenticate", &format!("SSO {}", conf.portal))
        } else {
            r
        };
    }
    let url = req.param("url").filter(|u| decode_url(u).is_some());
    let user = req.form_param("user").unwrap_or_default();
    let shown = if code == PortalCode::FirstAccess {
        0
    } else {
        code as u16
    };
    Response::html(
        200,
        pages::login_form(conf, shown, url.as_deref(), &csrf::issue(conf), &user),
    )
}

/// A login form that comes back to `target` (base64 in the `url` field) after login; used by
/// modules that need a session first (OIDC authorize, explorer).
pub fn login_redirect(conf: &Conf, req: &Request, target: &str) -> Response {
    if req.wants_json() {
        return login_page(conf, req, PortalCode::FirstAccess, 401);
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(target);
    let form = pages::login_form(conf, 0, Some(&b64), &csrf::issue(conf), "");
    Response::html(200, form)
}

fn logout(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    if let CookieState::Valid(s) = session::from_request(app, conf, req)? {
        if let Some(id) = s.get("_session_id").and_then(|v| v.as_str()) {
            app.sessions(crate::storage::Kind::Global)
                .delete(crate::storage::Kind::Global, id)?;
        }
    }
    let resp = if req.wants_json() {
        Response::json(200, &json!({"result": 1, "error": "47"}))
    } else {
        Response::html(
            200,
            pages::login_form(conf, 47, None, &csrf::issue(conf), ""),
        )
    };
    Ok(resp.with_cookie(&cookies::clear_sso(conf)))
}

/// The URL to go to after login (`url` parameter, base64 as LemonLDAP::NG sends it), when it
/// is one the portal may redirect to.
pub fn pending_url(conf: &Conf, req: &Request) -> Option<String> {
    let raw = req.param("url")?;
    let url = decode_url(&raw)?;
    is_allowed_target(conf, &url).then_some(url)
}

/// Decodes a base64 (standard or URL-safe) URL.
pub fn decode_url(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(raw)
        .or_else(|_| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(raw.trim_end_matches('='))
        })
        .ok()?;
    let s = String::from_utf8(bytes).ok()?;
    (s.starts_with("http://") || s.starts_with("https://")).then_some(s)
}

/// Redirect targets: the portal itself or a virtual host of `locationRules` (no open redirect).
pub fn is_allowed_target(conf: &Conf, url: &str) -> bool {
    if url.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return false;
    }
    if url.starts_with(&conf.portal) {
        return true;
    }
    let host = url
        .split("://")
        .nth(1)
        .and_then(|r| r.split(['/', '?', '#']).next())
        .unwrap_or("");
    let bare = host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host);
    match conf.raw.get("locationRules") {
        Some(serde_json::Value::Object(m)) => m.contains_key(host) || m.contains_key(bare),
        _ => false,
    }
}
