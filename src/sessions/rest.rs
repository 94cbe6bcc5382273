//! `/sessions/<type>/...` (built by the sessions issue).
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};

/// Serves the REST session server; `rest` is the path without any prefix.
pub fn handle(_app: &App, _req: &Request, _conf: &Conf, _rest: &str) -> Result<Response> {
    Err(Error::not_found("Not found"))
}
