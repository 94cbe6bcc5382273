//! Static files: those compiled into the binary (the stylesheet, Limette's logo, the language
//! files, the scripts of the OpenID Connect form-post answer and check-session page, of the
//! WebAuthn ceremonies, of the browser's time zone and of the menu's filter-as-you-type), the
//! generated `portal.css` of the
//! skin's background (`web::skin`), and the skin's own files (logo, favicon, background,
//! stylesheets named by `portalMainLogo`, `portalFavicon`, `portalSkinBackground`,
//! `portalSkin`, `portalCustomCss`), read at each request from the `static` folder of the data
//! directory, so that a new look needs no rebuild. Only file names `web::skin::static_path`
//! accepts, of the types listed in `TYPES`, at most `MAX_FILE` bytes, are served.
use crate::app::App;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::Response;
use crate::web::{messages, skin};

/// The content types of the skin's files, by extension.
const TYPES: [(&str, &str); 10] = [
    ("css", "text/css; charset=utf-8"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("svg", "image/svg+xml"),
    ("ico", "image/vnd.microsoft.icon"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
];
/// The largest skin file served.
const MAX_FILE: u64 = 4 * 1024 * 1024;

/// Serves `/static/...`.
pub fn serve(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if !req.method.is_read() {
        return Err(Error::MethodNotAllowed);
    }
    let path = req.path.as_str();
    let (ctype, body): (&str, Vec<u8>) = match path {
        "/static/limette.css" => (
            "text/css; charset=utf-8",
            include_str!("../../static/limette.css").into(),
        ),
        "/static/limette.svg" => (
            "image/svg+xml",
            include_str!("../../static/limette.svg").into(),
        ),
        "/static/form_post.js" => (
            "text/javascript; charset=utf-8",
            include_str!("../../static/form_post.js").into(),
        ),
        "/static/check_session.js" => (
            "text/javascript; charset=utf-8",
            include_str!("../../static/check_session.js").into(),
        ),
        "/static/timezone.js" => (
            "text/javascript; charset=utf-8",
            include_str!("../../static/timezone.js").into(),
        ),
        "/static/webauthn.js" => (
            "text/javascript; charset=utf-8",
            include_str!("../../static/webauthn.js").into(),
        ),
        "/static/app_filter.js" => (
            "text/javascript; charset=utf-8",
            include_str!("../../static/app_filter.js").into(),
        ),
        "/static/portal.css" => (
            "text/css; charset=utf-8",
            conf.area::<skin::Skin>().portal_css().into(),
        ),
        _ => match path
            .strip_prefix("/static/languages/")
            .and_then(|f| f.strip_suffix(".json"))
            .and_then(messages::file)
        {
            Some(text) => ("application/json; charset=utf-8", text.into()),
            None => skin_file(app, path)?,
        },
    };
    let resp =
        Response::bytes(200, ctype, body).with_header("Cache-Control", "public, max-age=3600");
    Ok(if ctype == "image/svg+xml" {
        // An SVG opened on its own is a document: it runs nothing.
        resp.with_header(
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'",
        )
    } else {
        resp
    })
}

/// A file of the skin folder (`<data dir>/static/<path>`).
fn skin_file(app: &App, path: &str) -> Result<(&'static str, Vec<u8>)> {
    let not_found = || Error::not_found("Not found");
    let rel = path
        .strip_prefix("/static/")
        .and_then(skin::static_path)
        .ok_or_else(not_found)?;
    let ext = rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    let ctype = TYPES
        .iter()
        .find(|(e, _)| Some(*e) == ext.as_deref())
        .map(|(_, t)| *t)
        .ok_or_else(not_found)?;
    let file = app.local.data_dir.join("static").join(&rel);
    let meta = std::fs::metadata(&file).map_err(|_| not_found())?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return Err(not_found());
    }
    let bytes = std::fs::read(&file).map_err(|_| not_found())?;
    Ok((ctype, bytes))
}
