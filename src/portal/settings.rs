//! The portal's own settings read from the configuration, parsed when it is built (the top's
//! list, `router::area_settings`): what the menu shows. The login's settings are the
//! directory's (`directory::Settings`) and the form token's `Conf::require_token`; the
//! notification explorer itself is the notifications area's.
use crate::config::{truthy, AreaSettings};
use serde_json::{Map, Value};

/// What the portal's pages read from the configuration.
#[derive(Debug)]
pub struct Settings {
    /// `notificationsExplorer`: the menu links to the explorer of accepted notifications.
    pub explorer: bool,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        Ok(Settings {
            explorer: truthy(raw.get("notificationsExplorer")),
        })
    }
}
