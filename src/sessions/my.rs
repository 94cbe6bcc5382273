//! `/session/my/...` and `/mysession/` (built by the sessions issue).
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};

/// Serves the connected user's endpoints.
pub fn handle(_app: &App, _req: &Request, _conf: &Conf) -> Result<Response> {
    Err(Error::not_found("Not found"))
}
