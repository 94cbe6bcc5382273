//! The REST configuration proxy (`/config/...`, `/error/...`). Built by the configuration issue.
use crate::app::App;
use crate::error::{Error, Result};
use crate::http::{Request, Response};

/// Serves `/config/...` (path already stripped of any prefix).
pub fn handle_config(_app: &App, _req: &Request, _rest: &str) -> Result<Response> {
    Err(Error::not_found("Not found"))
}

/// Serves `/error/...`.
pub fn handle_error(_app: &App, _req: &Request) -> Result<Response> {
    Err(Error::not_found("Not found"))
}
