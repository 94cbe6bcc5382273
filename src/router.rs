//! The ordered prefix table: which module owns which path. First match wins; each area answers
//! with its error flavour (the REST servers always JSON, the portal by `Accept`).
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::errors::{to_response, Flavour};
use crate::http::{Method, Request, Response};

/// Routes one request and turns any error into its response.
pub fn dispatch(app: &App, req: &Request) -> Response {
    let conf = app.conf();
    let (flavour, res) = route(app, req, &conf);
    match res {
        Ok(r) => r,
        Err(e) => to_response(&e, req, flavour, &conf.portal),
    }
}

fn route(app: &App, req: &Request, conf: &Conf) -> (Flavour, Result<Response>) {
    let path = req.path.as_str();
    let prefix = app.local.path_prefix.as_str();
    let under = |p: &str| path == p || path.starts_with(&format!("{p}/"));
    let prefixed = |p: &str| -> Option<&str> {
        let rest = path.strip_prefix(prefix)?;
        (rest == p || rest.starts_with(&format!("{p}/"))).then_some(rest)
    };
    if let Some(rest) = prefixed("/sessions") {
        return (
            Flavour::Json,
            crate::sessions::rest::handle(app, req, conf, rest),
        );
    }
    if let Some(rest) = prefixed("/config") {
        return (
            Flavour::Json,
            crate::config::proxy::handle_config(app, req, rest),
        );
    }
    if under("/error") {
        return (Flavour::Json, crate::config::proxy::handle_error(app, req));
    }
    if under("/session/my") || under("/mysession") {
        return (
            Flavour::Negotiated,
            crate::sessions::my::handle(app, req, conf),
        );
    }
    if (path == "/oauth2/" || path == "/oauth2")
        && req.method == Method::Post
        && has_credentials(req)
    {
        return (
            Flavour::Negotiated,
            crate::portal::handle_root(app, req, conf),
        );
    }
    if under("/oauth2") || path == "/.well-known/openid-configuration" {
        return (Flavour::Negotiated, crate::oidc::handle(app, req, conf));
    }
    if under("/notifications") {
        return (
            Flavour::Json,
            crate::notifications::server::handle(app, req, conf),
        );
    }
    if under("/notifback") || under("/mynotifications") {
        return (
            Flavour::Negotiated,
            crate::notifications::portal::handle(app, req, conf),
        );
    }
    if under("/static") {
        return (Flavour::Negotiated, crate::portal::assets::serve(req));
    }
    if app.local.test_hooks && under("/__test") {
        return (Flavour::Negotiated, test_hook(req));
    }
    if path == "/" || path.is_empty() {
        return (
            Flavour::Negotiated,
            crate::portal::handle_root(app, req, conf),
        );
    }
    (Flavour::Negotiated, Err(Error::not_found("Not found")))
}

fn has_credentials(req: &Request) -> bool {
    let form = req.form();
    form.iter().any(|(k, _)| k == "user" || k == "password")
}

/// Debug routes for the test-suite only (enabled by `LIMETTE_TEST_HOOKS=1`): a slow handler to
/// fill the queue and a panicking one.
fn test_hook(req: &Request) -> Result<Response> {
    match req.path.as_str() {
        "/__test/sleep" => {
            let ms: u64 = req
                .query_param("ms")
                .and_then(|v| v.parse().ok())
                .unwrap_or(500)
                .min(10_000);
            std::thread::sleep(std::time::Duration::from_millis(ms));
            Ok(Response::json(200, &serde_json::json!({"slept": ms})))
        }
        "/__test/panic" => panic!("test hook asked for a panic"),
        "/__test/big" => {
            let n: usize = req
                .query_param("n")
                .and_then(|v| v.parse().ok())
                .unwrap_or(2048)
                .min(1 << 20);
            Ok(Response::bytes(200, "text/plain", vec![b'x'; n]))
        }
        _ => Err(Error::not_found("Not found")),
    }
}
