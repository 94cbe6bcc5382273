//! Where users come from: `Demo` (LemonLDAP::NG's demo accounts) and `REST` (the bridge to a
//! directory behind LemonLDAP::NG's REST auth/user protocol).
pub mod demo;
pub mod rest;

use crate::config::Conf;
use crate::error::Result;
use serde_json::{Map, Value};

/// A user directory.
pub trait Directory: Send + Sync {
    /// Checks a password. `Ok(false)` for a wrong password or an unknown user.
    fn authenticate(&self, user: &str, password: &str) -> Result<bool>;
    /// The user's attributes (`uid`, `cn`, `mail`, `groups`...), `None` for an unknown user.
    fn user_info(&self, user: &str) -> Result<Option<Map<String, Value>>>;
    /// The module name stored in `_auth` / `_userDB`.
    fn name(&self) -> &'static str;
    /// The `authenticationLevel` a login through this module gives, as LemonLDAP::NG's
    /// module sets it.
    fn authn_level(&self) -> i64;
}

/// The directory the configuration names (`authentication`, `userDB` = `Same` follows it).
pub fn for_conf(conf: &Conf) -> Box<dyn Directory> {
    let auth = conf.get_str("authentication");
    match auth.as_str() {
        "Demo" => Box::new(demo::Demo::from_conf(conf)),
        "REST" => Box::new(rest::RestDirectory::from_conf(conf)),
        // The start-up gate refuses any other module; should one get here all the same, every
        // login fails rather than falling back to the demo accounts.
        _ => Box::new(Unavailable(auth)),
    }
}

/// The directory of a module Limette does not implement: it authenticates nobody.
struct Unavailable(String);

impl Directory for Unavailable {
    fn authenticate(&self, _user: &str, _password: &str) -> Result<bool> {
        Err(crate::error::Error::internal(format!(
            "authentication = {} is not supported",
            self.0
        )))
    }
    fn user_info(&self, _user: &str) -> Result<Option<Map<String, Value>>> {
        Ok(None)
    }
    fn name(&self) -> &'static str {
        "Unavailable"
    }
    fn authn_level(&self) -> i64 {
        0
    }
}
