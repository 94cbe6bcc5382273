//! The portal itself: `GET /` (the connected user's menu, `menu`, or the login form),
//! `POST /` and `POST /oauth2/` (login), `POST /` with `revokeConsent` (the menu's form),
//! `POST /` with `newpassword` (`password`: the menu's password tab), `GET /?logout=1`, and
//! `/notifback` (`login`: the portal's entry points of the login
//! pipeline, `crate::login`). JSON answers follow the contract's "Portal login" table; HTML clients get
//! real pages with a CSRF-protected form.
pub mod assets;
pub mod cross_site;
pub mod login;
pub mod menu;
pub mod pages;
pub mod password;
pub mod second_factor;
pub mod session;
pub mod settings;

use crate::app::App;
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, PortalCode, Result};
use crate::http::{Method, Request, Response};
use crate::storage::Session;
use crate::web::{cookies, csrf};
use base64::Engine;
use serde_json::json;
use session::CookieState;

/// Serves `/` (and the login POST on `/oauth2/`).
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if req.has_query("logout") {
        return logout(app, req, conf);
    }
    match req.method {
        Method::Get | Method::Head => show(app, req, conf),
        Method::Post if req.form_param("revokeConsent").is_some() => menu::revoke(app, conf, req),
        Method::Post if req.form_param("newpassword").is_some() => password::post(app, conf, req),
        Method::Post => login::post(app, req, conf),
        _ => Err(Error::MethodNotAllowed),
    }
}

/// `GET /`: the connected user's page, or the login form.
fn show(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let url = pending_url(conf, req);
    let state = session::from_request(app, conf, req)?;
    // A login waiting on its page (reloaded, or its language switched) shows that page again.
    if !matches!(state, CookieState::Valid(_)) && !req.wants_json() {
        if let Some(page) = login::resume(app, req, conf)? {
            return Ok(page);
        }
    }
    match state {
        CookieState::Valid(s) => {
            if req.wants_json() {
                return Ok(Response::json(200, &json!({"result": 1, "error": "0"})));
            }
            if let Some(u) = url {
                return Ok(Response::redirect(&u));
            }
            password::menu_page(app, conf, req, &s)
        }
        CookieState::Unknown => Ok(login_page(conf, req, PortalCode::SessionExpired, 401)
            .with_cookies(&cookies::clear_sso(conf))),
        CookieState::Absent => Ok(login_page(conf, req, PortalCode::FirstAccess, 401)),
    }
}

/// A token of the sign-out form, bound to the session and the action: a logout that carries
/// it is the portal's own, and needs no confirmation.
pub fn logout_token(conf: &Conf, s: &Session) -> String {
    csrf::issue_for(conf, &logout_binding(s))
}

fn logout_binding(s: &Session) -> String {
    crate::account::logout_binding(s)
}

/// What the login form of a first visit says: why the visitor came back, when the query says
/// (after a logout, after the notifications were declined).
fn notice_of(req: &Request) -> pages::Notice {
    if req.has_query("loggedout") {
        pages::Notice::Code(47)
    } else if req.has_query("notifcancelled") {
        pages::Notice::Key("notifCancelled")
    } else {
        pages::Notice::None
    }
}

/// The login answer for a request without a usable session: JSON error (with the SSO
/// challenge on 401) or the HTML form with the message (HTML pages are 200, as a browser
/// must show them).
pub fn login_page(conf: &Conf, req: &Request, code: PortalCode, json_status: u16) -> Response {
    if req.wants_json() {
        return portal_json(code, json_status, &conf.portal);
    }
    let url = req.param("url").filter(|u| decode_url(u).is_some());
    let user = req.form_param("user").unwrap_or_default();
    let shown = if code == PortalCode::FirstAccess {
        notice_of(req)
    } else {
        pages::Notice::Code(code as u16)
    };
    let frame = pages::frame(conf, req, None);
    let page = Response::html(
        200,
        pages::login_form(&frame, shown, url.as_deref(), &csrf::issue(conf), &user),
    );
    match pending_url(conf, req) {
        Some(target) => page.with_form_target(&target),
        None => page,
    }
}

/// A login form that comes back to `target` (base64 in the `url` field) after login; used by
/// modules that need a session first (OIDC authorize, explorer).
pub fn login_redirect(conf: &Conf, req: &Request, target: &str) -> Response {
    if req.wants_json() {
        return login_page(conf, req, PortalCode::FirstAccess, 401);
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(target);
    let frame = pages::frame(conf, req, None);
    let form = pages::login_form(
        &frame,
        pages::Notice::None,
        Some(&b64),
        &csrf::issue(conf),
        "",
    );
    Response::html(200, form).with_form_target(target)
}

/// `/?logout=1`: ends the session when the request carries the portal's own token (the
/// sign-out form, `logout_token`, good while the session lives: a menu page left open signs
/// out at once), else asks first, saying whether the token came from another session's page
/// or there was none: a link from another site reaches here with
/// the SSO cookie (`SameSite=Lax` travels on a top-level navigation), as an RP-initiated logout
/// does. The answer goes on to `/?loggedout=1` (post/redirect/get); when relying parties must
/// be told through the browser, a page first loads their front-channel logout URLs. A JSON
/// client logs out at once and shows no page, unless its browser says it comes from another
/// site (`cross_site`: a `fetch` from a sibling subdomain, or from anywhere with
/// `sameSite = None`, carries the cookie).
fn logout(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let json = req.wants_json();
    // A JSON logout carries no token: a browser that says it comes from elsewhere is refused.
    if json && cross_site::refused(conf, req) {
        return Ok(cross_site_refusal(conf, req));
    }
    let mut frames = Vec::new();
    if let CookieState::Valid(s) = session::from_request(app, conf, req)? {
        let token = req.param("token");
        let verdict = csrf::check_session_bound(conf, token.as_deref(), &logout_binding(&s));
        if !json && verdict.is_err() {
            let page = pages::frame(conf, req, Some(&s))
                .with_header(Some(crate::account::header(app, conf, req, &s)));
            let why = match verdict {
                Err(csrf::Refusal::Expired) => pages::LogoutAsked::OldPage,
                _ => pages::LogoutAsked::Link,
            };
            let html = pages::confirm_logout(&page, &logout_token(conf, &s), why);
            return Ok(Response::html(200, html));
        }
        let reach = match json {
            true => crate::app::Reach::ServerOnly,
            false => crate::app::Reach::Browser,
        };
        frames = crate::sso::logout(app, &s, reach)?;
    }
    let done = format!("{}?loggedout=1", conf.portal);
    let resp = if json {
        Response::json(200, &json!({"result": 1, "error": "47"}))
    } else if frames.is_empty() {
        Response::redirect(&done)
    } else {
        let page = pages::frame(conf, req, None);
        let body = maud::html! {
            h1 { (page.say("logoutTitle")) } "\n"
            div class="message" role="status" id="msg" trmsg="47" { p { (page.say_error(47)) } } "\n"
            (crate::web::logout_frames(&frames))
        };
        let html = page.render_then(&page.raw("logoutTitle"), body, 2, &done);
        Response::html(200, html).with_frame_sources(&frames)
    };
    Ok(resp.with_cookies(&cookies::clear_sso(conf)))
}

/// The answer to a JSON post refused by `cross_site` (logged): portal error 81 (no
/// token), 403, nothing done.
pub(crate) fn cross_site_refusal(conf: &Conf, req: &Request) -> Response {
    let origin: String = req
        .header("origin")
        .or(req.header("sec-fetch-site"))
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    crate::log::warn(&format!(
        "{}: a JSON post from another site ({origin}) refused",
        req.path.chars().take(100).collect::<String>()
    ));
    portal_json(PortalCode::NoToken, 403, &conf.portal)
}

/// The URL to go to after login (`url` parameter, base64 as LemonLDAP::NG sends it), when it
/// is one the portal may redirect to.
pub fn pending_url(conf: &Conf, req: &Request) -> Option<String> {
    /// Longest encoded `url` taken (a longer one is ignored, as a disallowed one is).
    const MAX_URL: usize = 4096;
    let raw = req.param("url").filter(|u| u.len() <= MAX_URL)?;
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

/// Redirect targets: the portal itself (same scheme, host and port) or a virtual host of
/// `locationRules` (no open redirect). A virtual host is named `host` or `host:port`, and host
/// and port name distinct hosts: `host` is that host on the default port of the URL's scheme
/// (80 for http, 443 for https), `host:port` that host on that port only.
///
/// The URL's origin is parsed, never prefix-matched: userinfo (`user@host`), backslashes and
/// non-numeric ports are refused, since browsers resolve those to a host other than the one the
/// string seems to name.
pub fn is_allowed_target(conf: &Conf, url: &str) -> bool {
    let Some(target) = Origin::parse(url) else {
        return false;
    };
    if Origin::parse(&conf.portal).is_some_and(|portal| portal == target) {
        return true;
    }
    let named = |vhost: &str| Origin::parse(&format!("{}://{vhost}", target.scheme));
    let settings = conf.area::<settings::Settings>();
    settings
        .vhosts
        .iter()
        .any(|k| named(k).is_some_and(|vhost| vhost == target))
}

/// Scheme, host and port of an absolute http(s) URL, as a browser would resolve them.
#[derive(Debug, PartialEq, Eq)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: &'static str,
    /// The host, lower-cased (an IPv6 literal with its brackets).
    pub host: String,
    /// The port, None when it is the scheme's default.
    pub port: Option<u16>,
}

impl Origin {
    /// The origin of `url`, or None when it is not an absolute http(s) URL whose host a
    /// browser would read the same way (userinfo, backslashes, controls, odd ports).
    pub fn parse(url: &str) -> Option<Origin> {
        if url.bytes().any(|b| b <= 0x20 || b == 0x7f || b == b'\\') {
            return None;
        }
        let (scheme, rest) =
            if let Some(r) = url.get(..8).filter(|p| p.eq_ignore_ascii_case("https://")) {
                ("https", &url[r.len()..])
            } else if let Some(r) = url.get(..7).filter(|p| p.eq_ignore_ascii_case("http://")) {
                ("http", &url[r.len()..])
            } else {
                return None;
            };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') || authority.is_empty() {
            return None;
        }
        let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
            let (addr, tail) = inner.split_once(']')?;
            let port = match tail {
                "" => None,
                t => Some(t.strip_prefix(':')?),
            };
            (&authority[..addr.len() + 2], port)
        } else {
            match authority.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        let port = match port {
            None => None,
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                Some(p.parse().ok()?)
            }
            Some(_) => return None,
        };
        let host = host.to_ascii_lowercase();
        let host_ok = host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._[]:".contains(&b));
        if host.is_empty() || !host_ok {
            return None;
        }
        let default = if scheme == "https" { 443 } else { 80 };
        let port = port.filter(|&p| p != default);
        Some(Origin { scheme, host, port })
    }
}

/// The JSON form of a portal answer (`router::errors` gives it to every portal error) with an error code, `{"result":0,"error":"N"}`, for the
/// portal pages that render their own HTML but answer JSON clients like any portal error.
pub fn portal_json(code: crate::error::PortalCode, status: u16, portal: &str) -> Response {
    let resp = Response::json(status, &json!({"result": 0, "error": code.as_str()}));
    with_sso_challenge(resp, status, portal)
}

pub(crate) fn with_sso_challenge(resp: Response, status: u16, portal: &str) -> Response {
    if status == 401 {
        resp.with_header("WWW-Authenticate", format!("SSO {portal}"))
    } else {
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf() -> Conf {
        let stored = serde_json::json!({
            "cfgNum": 1,
            "portal": "http://auth.example.com:8080/",
            "locationRules": {
                "app.example.com": {"default": "accept"},
                "api.example.com:8443": {},
                "127.0.0.1": {},
                "app.example.com/path": {}
            }
        });
        Conf::of_json(stored)
    }

    #[test]
    fn portal_and_virtual_hosts_are_allowed_targets() {
        let c = conf();
        for ok in [
            "http://auth.example.com:8080/",
            "http://AUTH.example.com:8080/x?y#z",
            "http://app.example.com/",
            "https://app.example.com:443/path",
            "http://App.Example.com",
            "https://api.example.com:8443/v1",
            "http://api.example.com:8443/v1",
            "http://127.0.0.1/",
            "https://127.0.0.1:443/x",
        ] {
            assert!(is_allowed_target(&c, ok), "{ok} should be allowed");
        }
    }

    #[test]
    fn look_alike_urls_are_refused() {
        let c = conf();
        for bad in [
            "http://auth.example.com:8080@evil.example/",
            "http://app.example.com@evil.example/",
            "http://app.example.com:x@evil.example/",
            "http://auth.example.com:8080.evil.example/",
            "http://app.example.com.evil.example/",
            "http://evil.example\\@app.example.com/",
            "http://evil.example\\app.example.com/",
            "http://app.example.com:80:81/",
            "http://app.example.com:/",
            "http:///app.example.com/",
            "javascript://app.example.com/%0aalert(1)",
            "//app.example.com/",
            "http://app.example.com /",
            "http://app.example.com\t/",
            "https://api.example.com/",
            "http://auth.example.com:8081/",
            "https://auth.example.com:8080/",
            "http://127.0.0.1:4444/",
            "https://127.0.0.1:8080/",
            "http://app.example.com:443/",
            "https://app.example.com:80/",
            "http://api.example.com/",
            "https://api.example.com:8444/",
        ] {
            assert!(!is_allowed_target(&c, bad), "{bad} should be refused");
        }
    }
}
