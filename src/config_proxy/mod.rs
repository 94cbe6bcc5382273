//! The REST configuration proxy (`/config/...`, enabled by `restConfigServer`) and the error
//! references (`/error/<lang>/<errNum>`), as LemonLDAP::NG serves them, with the contract's
//! differences (404 for unknown numbers and keys, integer `cfgNum`/`cfgDate`). The handlers
//! only decode the path and encode the answer: `view` and `keys` decide.
pub mod keys;
pub mod view;

use crate::config::{truthy, AreaSettings};
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::Response;
use crate::util::url_decode_path;

/// The proxy's settings: `restConfigServer` (off: every `/config/...` path is unknown).
#[derive(Debug)]
pub struct Settings {
    /// `restConfigServer`.
    pub enabled: bool,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        Ok(Settings {
            enabled: truthy(raw.get("restConfigServer")),
        })
    }
}

/// Serves `/config/...`; `rest` is the path without any prefix (`/config/latest/portal`).
pub fn handle_config(ctx: &Ctx) -> Result<Response> {
    let (app, req, rest) = (ctx.app.as_ref(), ctx.req, ctx.below_prefix());
    if !app.conf().area::<Settings>().enabled {
        return Err(Error::not_found("Not found"));
    }
    if !req.method.is_read() {
        return Err(Error::MethodNotAllowed);
    }
    // "" and "config" come first.
    let parts: Vec<String> = rest
        .split('/')
        .skip(2)
        .filter(|s| !s.is_empty())
        .map(url_decode_path)
        .collect();
    let target = view::target(parts.first().map(String::as_str))?;
    let store = app.confs.as_ref();
    let full = view::full_requested(req.query_param("full").as_deref());
    // The metadata answer names the neighbouring numbers: one listing gives them and the
    // latest number (every handler polls `/config/latest`).
    let listed = if parts.len() > 1 || full {
        None
    } else {
        Some(store.numbers()?)
    };
    let num = view::number(store, target, listed.as_deref())?;
    if parts.len() > 1 {
        let conf = crate::config::defaults::merged(&view::load(store, num, false)?);
        // Slicing is safe: parts.len() > 1.
        return Ok(Response::json(200, &keys::answer(&conf, &parts[1..])?));
    }
    if full {
        let mut resp = Response::json(200, &serde_json::Value::Null).with_header(
            "Content-Disposition",
            format!("Attachment; filename=lmConf-{num}.json"),
        );
        resp.body = view::pretty_sorted(&view::full(&view::load(store, num, false)?, num));
        return Ok(resp);
    }
    let stored = view::load(store, num, true)?;
    Ok(Response::json(
        200,
        &view::metadata(&stored, num, listed.as_deref().unwrap_or_default()),
    ))
}

/// Serves `/error`, `/error/<lang>` and `/error/<lang>/<errNum>` (always on: the references
/// only point at the public language files).
pub fn handle_error(ctx: &Ctx) -> Result<Response> {
    let req = ctx.req;
    if !req.method.is_read() {
        return Err(Error::MethodNotAllowed);
    }
    let parts = req.segments_after("/error");
    if parts.len() > 2 {
        return Err(Error::not_found("Not found"));
    }
    let body = view::error_reference(
        parts.first().map(String::as_str),
        parts.get(1).map(String::as_str),
    )?;
    Ok(Response::json(200, &body))
}
