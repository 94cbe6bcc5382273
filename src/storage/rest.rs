//! The REST session client: a remote Limette's or LemonLDAP::NG's session server used as a
//! session store (built by the sessions issue).
use super::{Kind, Session, SessionStore};
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// Sessions kept by a remote REST session server.
pub struct RestSessions {
    base_url: String,
}

impl RestSessions {
    /// Reads `baseUrl`, `user`, `password` from the options.
    pub fn new(options: &Map<String, Value>, _key: &str) -> Result<RestSessions> {
        let base_url = options
            .get("baseUrl")
            .and_then(|v| v.as_str())
            .ok_or_else(|| Error::bad("baseUrl option is required"))?;
        Ok(RestSessions {
            base_url: base_url.trim_end_matches('/').to_string(),
        })
    }
}

impl SessionStore for RestSessions {
    fn get(&self, _kind: Kind, _id: &str) -> Result<Option<Session>> {
        Err(Error::Upstream(
            "REST session client not available yet".into(),
        ))
    }
    fn put(&self, _kind: Kind, _id: &str, _data: &Session) -> Result<()> {
        Err(Error::Upstream(
            "REST session client not available yet".into(),
        ))
    }
    fn create(&self, _kind: Kind, _id: &str, _data: &Session) -> Result<bool> {
        Err(Error::Upstream(
            "REST session client not available yet".into(),
        ))
    }
    fn delete(&self, _kind: Kind, _id: &str) -> Result<bool> {
        Err(Error::Upstream(
            "REST session client not available yet".into(),
        ))
    }
    fn take(&self, _kind: Kind, _id: &str) -> Result<Option<Session>> {
        Err(Error::Upstream(
            "REST session client not available yet".into(),
        ))
    }
    fn ids(&self, _kind: Kind) -> Result<Vec<String>> {
        Err(Error::Upstream(
            "REST session client not available yet".into(),
        ))
    }
    fn describe(&self) -> String {
        format!("REST {}", self.base_url)
    }
}
