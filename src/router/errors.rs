//! THE error -> response table, at the top with the router that picks the flavour. One exhaustive match, no catch-all arm: a new error variant
//! does not compile until it has a wire form here. The flavour (JSON or HTML) follows the
//! `Accept` header, except for the REST servers, which always answer JSON. The server's own
//! refusals (`Error::Refused`, made before any request exists) go through the same match
//! (`refusal`), and so does a handler's panic (`pool`); `UNANSWERABLE` is the one answer
//! written when even this table's answer could not be serialized.
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, OAuthCode, Reject, SignIn};
use crate::http::{Request, Response};
use crate::portal::{portal_json, with_sso_challenge};
use crate::util::html_escape;
use crate::web::page::{Header, Word};
use crate::web::{cookies, Page};

use maud::html;
use serde_json::json;
use std::sync::OnceLock;

/// How an error must look on the wire for this request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// JSON when `Accept` asks for it, else an HTML error page.
    Negotiated,
    /// Always JSON (REST session, configuration and notification servers).
    Json,
}

/// The realm of the REST servers' basic authentication challenge.
pub const REST_REALM: &str = "Limette REST servers";

/// The bytes written when even the error answer failed (serializing it panicked): a bare 500
/// that closes the connection.
pub const UNANSWERABLE: &[u8] =
    b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/// Turns an error into the response the client sees. 5xx details go to the log, with the
/// request id, never to the client. `conf` is the configuration in force (`None` where none is
/// at hand: a page in the default look).
pub fn to_response(err: &Error, req: &Request, flavour: Flavour, conf: Option<&Conf>) -> Response {
    answer(err, Some(req), flavour, conf, None)
}

/// `to_response` for a request of the running application: an HTML error page shown to a
/// signed-in user carries the account bar (`account::header`), so that the user can go on.
pub fn to_response_of(
    app: &App,
    err: &Error,
    req: &Request,
    flavour: Flavour,
    conf: &Conf,
) -> Response {
    let page_shown = flavour == Flavour::Negotiated
        && !req.wants_json()
        && !matches!(
            err,
            Error::SignIn(_) | Error::Refused(_) | Error::BasicRequired(_)
        );
    let header = page_shown
        .then(|| crate::sso::from_cookie(app, conf, cookies::sso_id(conf, req).as_deref()))
        .and_then(|found| match found {
            Ok(crate::sso::CookieState::Valid(s)) => {
                Some(crate::account::header(app, conf, req, &s))
            }
            _ => None,
        });
    answer(err, Some(req), flavour, Some(conf), header)
}

/// The answer to one of the server's own refusals: made before any request exists (at the
/// door, from a head that did not parse), so always JSON.
pub fn refusal(r: &Reject) -> Response {
    answer(&Error::Refused(r.clone()), None, Flavour::Json, None, None)
}

/// The table: an error's answer, for a request when there is one.
fn answer(
    err: &Error,
    req: Option<&Request>,
    flavour: Flavour,
    conf: Option<&Conf>,
    header: Option<Header>,
) -> Response {
    let json_wanted = flavour == Flavour::Json || req.is_some_and(Request::wants_json);
    let (status, text): (u16, String) = match err {
        Error::BadRequest(m) => (400, m.clone()),
        Error::Unauthenticated(m) => (401, m.clone()),
        Error::BasicRequired(m) => {
            return Response::json(401, &json!({ "error": m })).with_header(
                "WWW-Authenticate",
                format!("Basic realm=\"{REST_REALM}\", charset=\"UTF-8\""),
            )
        }
        Error::Forbidden(m) => (403, m.clone()),
        Error::NotFound(m) => (404, m.clone()),
        Error::MethodNotAllowed | Error::OnlyMethods(_) => (405, "Method not allowed".into()),
        Error::Conflict(m) => (409, m.clone()),
        Error::LengthRequired => (411, "A request body is required".into()),
        Error::Portal { code, status } => return portal_error(*code, *status, req, conf),
        Error::SignIn(s) => return sign_in(s, req, conf),
        Error::OAuth {
            code,
            status,
            basic,
        } => return oauth_error(*code, *status, *basic),
        Error::Bearer(code) => return bearer_error(*code),
        Error::SoapFault { client, message } => return soap_fault(*client, message),
        Error::Upstream(m) => {
            log_detail(req, m);
            (502, "An upstream service failed".into())
        }
        Error::Storage(m) => {
            log_detail(req, m);
            (500, "Storage error".into())
        }
        Error::Unavailable(m) => {
            log_detail(req, m);
            (
                503,
                "Storage unavailable, try again in a few seconds".into(),
            )
        }
        Error::Internal(m) => {
            log_detail(req, m);
            (500, "Internal error".into())
        }
        Error::Refused(r) => {
            let resp = Response::json(r.status, &json!({ "error": r.msg }));
            return match r.status {
                429 | 503 => resp.with_header("Retry-After", "1"),
                _ => resp,
            };
        }
    };
    let resp = match req.filter(|_| !json_wanted) {
        None => Response::json(status, &json!({ "error": text })),
        Some(req) => {
            let conf = conf.unwrap_or_else(|| fallback_conf());
            Response::html(
                status,
                error_page(
                    &Page::new(conf, req).with_header(header),
                    status,
                    &text,
                    req.id,
                ),
            )
        }
    };
    if let Error::OnlyMethods(allowed) = err {
        return resp.with_header("Allow", *allowed);
    }
    if let Error::Unavailable(_) = err {
        return resp.with_header("Retry-After", "5");
    }
    if status == 405 {
        return resp.with_header("Allow", "GET, HEAD, POST, PUT, DELETE");
    }
    resp
}

fn log_detail(req: Option<&Request>, detail: &str) {
    let id = req.map_or(0, |r| r.id);
    crate::log::error(&format!("request {id}: {detail}"));
}

/// LemonLDAP::NG's login answer shape: `{"result":0,"error":"N"}`, with the SSO challenge on
/// 401. For HTML clients the portal module renders its own pages; this is the JSON form and a
/// plain page as fallback.
fn portal_error(
    code: crate::error::PortalCode,
    status: u16,
    req: Option<&Request>,
    conf: Option<&Conf>,
) -> Response {
    let conf = conf.unwrap_or_else(|| fallback_conf());
    let Some(req) = req.filter(|r| !r.wants_json()) else {
        return portal_json(code, status, &conf.portal);
    };
    let page = Page::new(conf, req);
    let msg = crate::web::messages::text(page.lang, code as u16);
    let html = error_page(&page, status, &msg, req.id);
    with_sso_challenge(Response::html(status, html), status, &conf.portal)
}

/// The portal's login form for a request that needs a signed-in user (its portal error with
/// the SSO challenge in JSON), coming back to `back` once signed in; the SSO cookie cleared
/// and a session set aside when the error says so.
fn sign_in(s: &SignIn, req: Option<&Request>, conf: Option<&Conf>) -> Response {
    let conf = conf.unwrap_or_else(|| fallback_conf());
    // Made by handlers only, so a request is at hand; without one, the portal's JSON answer.
    let Some(req) = req else {
        return portal_json(s.code, 401, &conf.portal);
    };
    let resp = match &s.back {
        Some(target) => crate::portal::login_redirect(conf, req, target),
        None => crate::portal::login_page(conf, req, s.code, 401),
    };
    let resp = match s.clear {
        true => resp.with_cookies(&cookies::clear_sso(conf)),
        false => resp,
    };
    match &s.aside {
        Some(id) => resp.with_cookie(&cookies::portal_cookie(
            conf,
            crate::sso::RENEW_COOKIE,
            id,
            false,
        )),
        None => resp,
    }
}

/// The configuration of an error page when none is at hand: the defaults.
fn fallback_conf() -> &'static Conf {
    static CONF: OnceLock<Conf> = OnceLock::new();
    CONF.get_or_init(|| {
        let empty = serde_json::Map::new();
        match Conf::build(empty.clone(), &empty, "", super::area_settings) {
            Ok(c) => c,
            // The defaults always parse (a unit test builds them); no page is worth a panic.
            Err(e) => unreachable!("the default configuration does not parse: {e}"),
        }
    })
}

/// RFC 6749 5.2 error JSON; `WWW-Authenticate: Basic` only when Basic credentials were sent.
fn oauth_error(code: OAuthCode, status: u16, basic: bool) -> Response {
    let resp = Response::json(status, &json!({ "error": code.as_str() }));
    if basic {
        resp.with_header("WWW-Authenticate", "Basic")
    } else {
        resp
    }
}

/// RFC 6750 3.1: plain `Bearer` when no token was sent, else the error code.
fn bearer_error(code: Option<OAuthCode>) -> Response {
    match code {
        None => Response::empty(401).with_header("WWW-Authenticate", "Bearer"),
        Some(c) => {
            let status = if c == OAuthCode::InvalidRequest {
                400
            } else {
                401
            };
            Response::json(status, &json!({ "error": c.as_str() })).with_header(
                "WWW-Authenticate",
                format!("Bearer error=\"{}\"", c.as_str()),
            )
        }
    }
}

/// A SOAP 1.1 Fault (HTTP 500, as SOAP 1.1 section 6.2 requires).
fn soap_fault(client: bool, message: &str) -> Response {
    let code = if client { "soap:Client" } else { "soap:Server" };
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><soap:Fault><faultcode>{code}</faultcode><faultstring>{}</faultstring></soap:Fault></soap:Body></soap:Envelope>",
        // XML, not a page: the one escaping function outside the templates.
        html_escape(message)
    );
    Response::bytes(500, "text/xml; charset=utf-8", body)
}

/// The HTML error page, in the page's language: what happened in plain words (by status),
/// what to do next, the detail in small print (a 5xx's is generic: the detail is in the log,
/// under the reference given; a 4xx's in the page's language when the language files know it,
/// `messages::translate`), and a way back to the portal.
pub fn error_page(page: &Page, status: u16, detail: &str, request_id: u64) -> String {
    let key = match status {
        500.. => "500",
        400 | 401 | 403 | 404 | 405 | 413 => "",
        _ => "-",
    };
    let (title, help) = match key {
        "" => (format!("errorTitle{status}"), format!("errorHelp{status}")),
        "-" => ("errorTitle".to_string(), "errorHelp".to_string()),
        k => (format!("errorTitle{k}"), format!("errorHelp{k}")),
    };
    let title = page.raw(&title);
    let small = if status >= 500 {
        page.say_fill("errorReference", &[("id", &request_id.to_string())])
    } else {
        let detail = crate::web::messages::translate(page.lang, detail);
        page.say_fill("errorDetail", &[("detail", &detail)])
    };
    let body = html! {
        h1 { (Word(title.clone())) } "\n"
        div class="error" role="alert" id="msg" { p { (page.say(&help)) } } "\n"
        p class="detail" { (small) } "\n"
        p { a class="button" href="/" { (page.say("goToPortal")) } }
    };
    page.render_markup(&title, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;

    #[test]
    fn negotiates_json_and_html() {
        let req = Request::new(Method::Get, "/x").with_header("Accept", "application/json");
        let r = to_response(
            &Error::not_found("Unknown key K"),
            &req,
            Flavour::Negotiated,
            None,
        );
        assert_eq!(r.status, 404);
        assert_eq!(r.json_body(), json!({"error": "Unknown key K"}));
        let req = Request::new(Method::Get, "/x");
        let r = to_response(&Error::not_found("<x>"), &req, Flavour::Negotiated, None);
        assert!(String::from_utf8_lossy(&r.body).contains("&lt;x&gt;"));
        let r = to_response(&Error::not_found("x"), &req, Flavour::Json, None);
        assert_eq!(r.json_body(), json!({"error": "x"}));
    }

    #[test]
    fn internal_errors_say_nothing_internal() {
        let req = Request::new(Method::Get, "/x").with_header("Accept", "application/json");
        let r = to_response(&Error::storage("/secret/path"), &req, Flavour::Json, None);
        assert_eq!(r.status, 500);
        assert!(!String::from_utf8_lossy(&r.body).contains("secret"));
    }

    #[test]
    fn oauth_and_bearer_shapes() {
        let req = Request::new(Method::Post, "/oauth2/token");
        let e = Error::OAuth {
            code: OAuthCode::InvalidClient,
            status: 401,
            basic: true,
        };
        let r = to_response(&e, &req, Flavour::Json, None);
        assert_eq!(r.status, 401);
        assert_eq!(r.header("www-authenticate"), Some("Basic"));
        let r = to_response(&Error::Bearer(None), &req, Flavour::Json, None);
        assert_eq!(r.header("www-authenticate"), Some("Bearer"));
        let r = to_response(
            &Error::Bearer(Some(OAuthCode::InvalidToken)),
            &req,
            Flavour::Json,
            None,
        );
        assert_eq!(
            r.header("www-authenticate"),
            Some("Bearer error=\"invalid_token\"")
        );
    }
}
