//! The REST directory bridge (LemonLDAP::NG's REST auth/userDB protocol). Built by the OIDC issue.
use super::Directory;
use crate::config::Conf;
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// A directory behind `restAuthUrl` / `restUserDBUrl`.
pub struct RestDirectory {
    #[allow(dead_code)]
    auth_url: String,
    #[allow(dead_code)]
    user_url: String,
}

impl RestDirectory {
    /// Reads the URLs from the configuration.
    pub fn from_conf(conf: &Conf) -> RestDirectory {
        RestDirectory {
            auth_url: conf.get_str("restAuthUrl"),
            user_url: conf.get_str("restUserDBUrl"),
        }
    }
}

impl Directory for RestDirectory {
    fn authenticate(&self, _user: &str, _password: &str) -> Result<bool> {
        Err(Error::Upstream("REST directory not available yet".into()))
    }
    fn user_info(&self, _user: &str) -> Result<Option<Map<String, Value>>> {
        Err(Error::Upstream("REST directory not available yet".into()))
    }
    fn name(&self) -> &'static str {
        "REST"
    }
}
