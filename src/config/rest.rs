//! The REST configuration client: a remote `/config` read through `upstream` (read-only).
//! Built by the configuration issue.
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use serde_json::{Map, Value};
use std::time::Duration;

/// A remote configuration proxy.
pub struct RestConf {
    base_url: String,
    #[allow(dead_code)]
    user: Option<String>,
    #[allow(dead_code)]
    password: Option<String>,
    #[allow(dead_code)]
    timeout: Duration,
}

impl RestConf {
    /// A client of `base_url` (ending in `/config`).
    pub fn new(
        base_url: &str,
        user: Option<String>,
        password: Option<String>,
        timeout: Duration,
    ) -> RestConf {
        RestConf {
            base_url: base_url.to_string(),
            user,
            password,
            timeout,
        }
    }
}

impl ConfStore for RestConf {
    fn numbers(&self) -> Result<Vec<u64>> {
        Err(Error::Upstream(
            "REST configuration client not available yet".into(),
        ))
    }
    fn load(&self, _num: u64) -> Result<Map<String, Value>> {
        Err(Error::Upstream(
            "REST configuration client not available yet".into(),
        ))
    }
    fn save(&self, _conf: &Map<String, Value>) -> Result<u64> {
        Err(Error::Forbidden(
            "a REST configuration store is read-only".into(),
        ))
    }
    fn describe(&self) -> String {
        format!("REST {}", self.base_url)
    }
}
