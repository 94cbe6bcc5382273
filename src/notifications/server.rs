//! `/notifications` REST and SOAP server (built by the notification-server issue).
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};

/// Serves `/notifications`.
pub fn handle(_app: &App, _req: &Request, _conf: &Conf) -> Result<Response> {
    Err(Error::not_found("Not found"))
}
