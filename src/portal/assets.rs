//! Static files compiled into the binary: the stylesheet, the language files and the scripts
//! of the OpenID Connect form-post answer and check-session page.
use crate::error::{Error, Result};
use crate::http::{Request, Response};

/// Serves `/static/...`.
pub fn serve(req: &Request) -> Result<Response> {
    if !req.method.is_read() {
        return Err(Error::MethodNotAllowed);
    }
    let (ctype, body): (&str, &str) = match req.path.as_str() {
        "/static/limette.css" => (
            "text/css; charset=utf-8",
            include_str!("../../static/limette.css"),
        ),
        "/static/form_post.js" => (
            "text/javascript; charset=utf-8",
            include_str!("../../static/form_post.js"),
        ),
        "/static/check_session.js" => (
            "text/javascript; charset=utf-8",
            include_str!("../../static/check_session.js"),
        ),
        "/static/languages/en.json" => {
            ("application/json; charset=utf-8", crate::web::messages::EN)
        }
        "/static/languages/fr.json" => {
            ("application/json; charset=utf-8", crate::web::messages::FR)
        }
        _ => return Err(Error::not_found("Not found")),
    };
    Ok(Response::bytes(200, ctype, body).with_header("Cache-Control", "public, max-age=3600"))
}
