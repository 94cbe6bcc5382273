//! Notifications: the model (`model`: JSON and old XML, validation), the store as this area
//! sees it (`store`; the trait, the record and the backends are `storage::notifications`'), the
//! REST/JSON server (`server`) and SOAP/XML server (`soap`) at `/notifications`, what is due at
//! login (`portal`, `accept`, the form `form`: the login's hold, `login::holds::notifications`,
//! reads them) and the explorer (`explorer`, `/mynotifications`). The model, the due list and
//! the form are the domain's (the login below the areas reads them); the servers and the
//! explorer are an area, and import no other.
//! `Settings` holds every notification key of the configuration, parsed once per configuration
//! (`config::AreaSettings`). The `limette notifications` command is the top's
//! (`cli::notifications`).
pub mod accept;
pub mod audit;
pub mod explorer;
pub mod form;
pub mod model;
pub mod portal;
pub mod server;
pub mod soap;
pub mod store;

use crate::config::stores::notification_store_of;
pub use crate::config::stores::StorageChoice;
use crate::config::{as_i64, truthy};
use serde_json::{Map, Value};

/// Notification settings parsed from the configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `notification`: the login-time check is on.
    pub enabled: bool,
    /// `notificationsExplorer`.
    pub explorer: bool,
    /// `notificationsMaxRetrieve` (default 3).
    pub max_retrieve: usize,
    /// `notificationServer`.
    pub server: bool,
    /// `notificationServerPOST`.
    pub server_post: bool,
    /// `notificationServerGET`.
    pub server_get: bool,
    /// `notificationServerDELETE`.
    pub server_delete: bool,
    /// `notificationServerSentAttributes`, in order.
    pub sent_attributes: Vec<String>,
    /// `notificationDefaultCond`.
    pub default_cond: String,
    /// `notificationWildcard` (default `allusers`).
    pub wildcard: String,
    /// `oldNotifFormat`: XML documents and SOAP instead of JSON and REST.
    pub old_format: bool,
    /// `fileNameSeparator` (default `_`).
    pub separator: String,
    /// `notificationStorage` + options; `None`: beside the configuration store.
    pub storage: Option<StorageChoice>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            enabled: false,
            explorer: false,
            max_retrieve: 3,
            server: false,
            server_post: true,
            server_get: false,
            server_delete: false,
            sent_attributes: Vec::new(),
            default_cond: String::new(),
            wildcard: "allusers".into(),
            old_format: false,
            separator: "_".into(),
            storage: None,
        }
    }
}

impl Settings {
    /// Parses the notification keys (the defaults table fills absent ones in).
    pub fn from_conf(raw: &Map<String, Value>) -> Result<Settings, String> {
        let on = |k: &str, dflt: bool| raw.get(k).map(|v| truthy(Some(v))).unwrap_or(dflt);
        let text = |k: &str, dflt: &str| match raw.get(k) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => dflt.to_string(),
        };
        let (storage, separator) = notification_store_of(raw)?;
        let max_retrieve = raw
            .get("notificationsMaxRetrieve")
            .and_then(as_i64)
            .filter(|n| *n > 0)
            .unwrap_or(3);
        Ok(Settings {
            enabled: on("notification", false),
            explorer: on("notificationsExplorer", false),
            max_retrieve: max_retrieve as usize,
            server: on("notificationServer", false),
            server_post: on("notificationServerPOST", true),
            server_get: on("notificationServerGET", false),
            server_delete: on("notificationServerDELETE", false),
            sent_attributes: text(
                "notificationServerSentAttributes",
                "uid reference date title subtitle text check",
            )
            .split_whitespace()
            .map(str::to_string)
            .collect(),
            default_cond: raw
                .get("notificationDefaultCond")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_string(),
            wildcard: text("notificationWildcard", "allusers"),
            old_format: on("oldNotifFormat", false),
            storage,
            separator,
        })
    }
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        Settings::from_conf(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conf(v: Value) -> Map<String, Value> {
        let mut m = crate::config::defaults::defaults();
        if let Value::Object(o) = v {
            m.extend(o);
        }
        m
    }

    #[test]
    fn defaults() {
        let s = Settings::from_conf(&conf(json!({}))).unwrap();
        assert!(!s.server && s.server_post && !s.server_get && !s.server_delete);
        assert_eq!(s.wildcard, "allusers");
        assert_eq!(
            s.sent_attributes,
            [
                "uid",
                "reference",
                "date",
                "title",
                "subtitle",
                "text",
                "check"
            ]
        );
        assert_eq!(s.storage, None);
        assert_eq!(s.max_retrieve, 3);
    }

    #[test]
    fn storage_options() {
        let s = Settings::from_conf(&conf(json!({"notificationStorage":"File",
            "notificationStorageOptions":{"dirName":"/n","fileNameSeparator":"~"}})))
        .unwrap();
        assert_eq!(
            s.storage,
            Some(StorageChoice::File {
                dir: "/n".into(),
                separator: "~".into()
            })
        );
        let s = Settings::from_conf(&conf(json!({"notificationStorage":"DBI",
            "notificationStorageOptions":{"dbiChain":"dbi:SQLite:dbname=/x.db","dbiTable":"notifs"}})))
        .unwrap();
        assert_eq!(
            s.storage,
            Some(StorageChoice::Sqlite {
                path: "/x.db".into(),
                table: "notifs".into()
            })
        );
        let e = Settings::from_conf(&conf(json!({"notificationStorage":"LDAP"}))).unwrap_err();
        assert!(e.contains("notificationStorage"));
        let e = Settings::from_conf(&conf(json!({"notificationStorage":"File"}))).unwrap_err();
        assert!(e.contains("dirName"));
    }
}
