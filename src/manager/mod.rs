//! The administration console under `/manager/`: to come.
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};

/// Serves the console.
pub fn handle(_app: &App, _req: &Request, _conf: &Conf) -> Result<Response> {
    Err(Error::not_found("Not found"))
}
