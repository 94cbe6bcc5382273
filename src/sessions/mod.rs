//! The REST session server (`rest`, which checks `__secret` with `crypto::secret`), the
//! connected user's endpoints (`my`, whose `authorizationfor` asks `rules::location`), which keys
//! leave the server (`export`) and the purge of expired ones (`purge`). The `limette sessions`
//! command is the top's (`cli::sessions`).
//! `Settings` is parsed once per configuration: rules are compiled here, not per request.
pub mod export;
pub mod my;
pub mod purge;
pub mod rest;

use crate::config::{as_i64, truthy, value_string};
use serde_json::{Map, Value};

/// Session-server and access-rule settings parsed from the configuration.
#[derive(Debug, Default)]
pub struct Settings {
    /// `restSessionServer`: `/sessions/...` is served.
    pub rest_server: bool,
    /// `restExportSecretKeys`: secret keys are shown over REST.
    pub export_secret: bool,
    /// Secret keys (`hiddenAttributes` plus `_password`).
    pub hidden: Vec<String>,
    /// Keys shown by `/session/my/...` (`exportedAttr`).
    pub exported: Vec<String>,
    /// `restClockTolerance`, seconds.
    pub clock_tolerance: i64,
}

impl Settings {
    /// Parses `exportedAttr`, `hiddenAttributes`, `restSessionServer`,
    /// `restExportSecretKeys` and `restClockTolerance`. A rule that does not compile is logged
    /// and denies; it does not reject the configuration.
    pub fn from_conf(raw: &Map<String, Value>) -> Result<Settings, String> {
        let s = |k: &str| raw.get(k).map(value_string).unwrap_or_default();
        let tolerance = raw.get("restClockTolerance").and_then(as_i64).unwrap_or(15);
        if !(0..=86_400).contains(&tolerance) {
            return Err(format!("restClockTolerance: out of range: {tolerance}"));
        }
        Ok(Settings {
            rest_server: truthy(raw.get("restSessionServer")),
            export_secret: truthy(raw.get("restExportSecretKeys")),
            hidden: export::hidden_list(&s("hiddenAttributes")),
            exported: export::exported_list(&s("exportedAttr")),
            clock_tolerance: tolerance,
        })
    }
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        Settings::from_conf(raw)
    }
}
