//! The REST session server (`rest`), the connected user's endpoints (`my`) and the access rules
//! they evaluate (built by the sessions issue).
pub mod cli;
pub mod my;
pub mod purge;
pub mod rest;

use serde_json::{Map, Value};

/// Session-server and access-rule settings parsed from the configuration.
#[derive(Debug, Default)]
pub struct Settings {}

impl Settings {
    /// Parses `locationRules`, `exportedAttr`, `hiddenAttributes`...
    pub fn from_conf(_raw: &Map<String, Value>) -> Result<Settings, String> {
        Ok(Settings {})
    }
}
