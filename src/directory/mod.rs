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
        "REST" => Box::new(rest::RestDirectory::from_conf(conf)),
        _ => Box::new(demo::Demo::from_conf(conf)),
    }
}
