//! Where users come from: `Demo` (LemonLDAP::NG's demo accounts), `REST` (the bridge to a
//! directory behind LemonLDAP::NG's REST auth/user protocol) and `DBI` (a user table of
//! Limette's own, shared with LemonLDAP::NG's DBI modules).
pub mod dbi;
pub mod demo;
pub mod rest;

use crate::config::{value_string, AreaSettings, Conf};
use crate::error::Result;
use serde_json::{Map, Value};

/// Where users come from, parsed when the configuration is built: the module (`authentication`;
/// the start-up gate refuses any but `Demo`, `REST` and `DBI`), who may log in (`userControl`) and the
/// REST bridge's settings.
#[derive(Debug)]
pub struct Settings {
    /// `authentication`, as written.
    pub module: String,
    /// `userControl`, compiled; `None` when it does not compile (the gate refuses such a
    /// configuration wherever it is loaded; were one to run, nobody may log in).
    pub user_control: Option<regex_lite::Regex>,
    /// The REST bridge's settings (`restAuthUrl`, `restUserDBUrl`, `restTimeout`,
    /// `restAuthnLevel`).
    pub rest: rest::Settings,
}

impl Settings {
    /// True when the configuration names LemonLDAP::NG's demo accounts.
    pub fn is_demo(&self) -> bool {
        self.module == "Demo"
    }
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> std::result::Result<Settings, String> {
        let get = |k: &str| raw.get(k).map(value_string).unwrap_or_default();
        Ok(Settings {
            module: get("authentication"),
            user_control: regex_lite::Regex::new(&get("userControl")).ok(),
            rest: rest::Settings::from_conf(raw)?,
        })
    }
}

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
    let settings = conf.area::<Settings>();
    match settings.module.as_str() {
        "Demo" => Box::new(demo::Demo::from_conf(conf)),
        "REST" => Box::new(rest::RestDirectory::new(&settings.rest)),
        dbi::NAME => Box::new(dbi::DbiDirectory::new(&conf.area::<dbi::Settings>())),
        // The start-up gate refuses any other module; should one get here all the same, every
        // login fails rather than falling back to the demo accounts.
        _ => Box::new(Unavailable(settings.module.clone())),
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
