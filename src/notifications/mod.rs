//! Notifications (built by the notification issues): model, storage, REST/SOAP server, portal
//! flow and explorer.
pub mod cli;
pub mod portal;
pub mod server;
pub mod store;

use serde_json::{Map, Value};

/// Notification settings parsed from the configuration.
#[derive(Debug, Default)]
pub struct Settings {}

impl Settings {
    /// Parses the notification keys.
    pub fn from_conf(_raw: &Map<String, Value>) -> Result<Settings, String> {
        Ok(Settings {})
    }
}
