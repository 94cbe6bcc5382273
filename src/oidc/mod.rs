//! The OpenID Connect provider (built by the OIDC issue): discovery, authorize, token,
//! userinfo, introspection, logout, JWKS.
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};
use serde_json::{Map, Value};

/// OpenID Connect settings parsed from the configuration.
#[derive(Debug, Default)]
pub struct Settings {}

impl Settings {
    /// Parses the relying parties and service settings.
    pub fn from_conf(_raw: &Map<String, Value>) -> Result<Settings, String> {
        Ok(Settings {})
    }
}

/// Serves `/oauth2/...` and `/.well-known/openid-configuration`.
pub fn handle(_app: &App, _req: &Request, _conf: &Conf) -> Result<Response> {
    Err(Error::not_found("Not found"))
}
