//! The portal's own settings read from the configuration, parsed when it is built (the top's
//! list, `router::area_settings`): what the menu shows and where the portal may send a browser.
//! The login's settings are the directory's (`directory::Settings`) and the form token's
//! `Conf::require_token`; the notification explorer itself is the notifications area's.
use super::menu::tabs::Tabs;
use crate::config::{truthy, value_string, AreaSettings};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What the portal's pages read from the configuration.
#[derive(Debug)]
pub struct Settings {
    /// `notificationsExplorer`: the menu links to the explorer of accepted notifications.
    pub explorer: bool,
    /// `portalDisplayOrder` and the `portalDisplay*` rules: the menu's tabs.
    pub tabs: Tabs,
    /// The virtual hosts `locationRules` names (keys without a path): the portal redirects a
    /// browser to them after a login or logout (`portal::is_allowed_target`).
    pub vhosts: Vec<String>,
    /// `oidcRPMetaDataOptionsDisplayName` of each relying party that has a non-blank one: the
    /// name the menu's consents show (the relying party's key otherwise, as `mkOidcConsent`).
    pub rp_names: BTreeMap<String, String>,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        let vhosts = match raw.get("locationRules") {
            Some(Value::Object(m)) => m
                .keys()
                .filter(|k| !k.contains(['/', '?', '#']))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        let rp_names = match raw.get("oidcRPMetaDataOptions") {
            Some(Value::Object(rps)) => rps
                .iter()
                .filter_map(|(rp, o)| {
                    let name = o
                        .get("oidcRPMetaDataOptionsDisplayName")
                        .map(value_string)?;
                    (!name.trim().is_empty()).then(|| (rp.clone(), name))
                })
                .collect(),
            _ => BTreeMap::new(),
        };
        Ok(Settings {
            explorer: truthy(raw.get("notificationsExplorer")),
            tabs: Tabs::from_raw(raw),
            vhosts,
            rp_names,
        })
    }
}
