//! The menu's tabs: their names in `portalDisplayOrder` and their `portalDisplay*` rules,
//! compiled once per configuration (the portal's settings hold them; the menu shows them).
use crate::config::value_string;
use crate::rules::{Env, Rule};
use serde_json::{Map, Value};

/// A tab of the menu, by its name in `portalDisplayOrder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// `Appslist`: the applications.
    Appslist,
    /// `LoginHistory`: the last logins.
    LoginHistory,
    /// `OidcConsents`: the relying parties consented to.
    OidcConsents,
    /// `ChangePassword`: the password form (`password`), with `passwordDB = DBI` only.
    ChangePassword,
    /// `Logout`.
    Logout,
}

impl Tab {
    /// The tab of a name; `None` for a tab Limette does not have (custom ones).
    fn parse(name: &str) -> Option<Tab> {
        Some(match name {
            "Appslist" => Tab::Appslist,
            "LoginHistory" => Tab::LoginHistory,
            "OidcConsents" => Tab::OidcConsents,
            "ChangePassword" => Tab::ChangePassword,
            "Logout" => Tab::Logout,
            _ => return None,
        })
    }

    /// The key of its display rule.
    fn rule_key(self) -> &'static str {
        match self {
            Tab::Appslist => "portalDisplayAppslist",
            Tab::LoginHistory => "portalDisplayLoginHistory",
            Tab::OidcConsents => "portalDisplayOidcConsents",
            Tab::ChangePassword => "portalDisplayChangePassword",
            Tab::Logout => "portalDisplayLogout",
        }
    }
}

/// The menu's tabs in `portalDisplayOrder`, each with its `portalDisplay*` rule compiled once
/// per configuration (`None`: a rule that does not compile, which hides its tab).
#[derive(Debug)]
pub struct Tabs(Vec<(Tab, Option<Rule>)>);

impl Tabs {
    /// The order and the rules of a configuration; unknown names are skipped, a tab named
    /// twice counts once.
    pub fn from_raw(raw: &Map<String, Value>) -> Tabs {
        let order = raw.get("portalDisplayOrder").map(value_string);
        let mut out: Vec<(Tab, Option<Rule>)> = Vec::new();
        for name in order.as_deref().unwrap_or("").split([',', ' ', '\t', '\n']) {
            let Some(tab) = Tab::parse(name) else {
                continue;
            };
            if out.iter().any(|(t, _)| *t == tab) {
                continue;
            }
            let rule = raw.get(tab.rule_key()).map_or("1".into(), value_string);
            out.push((tab, Rule::parse(&rule).ok()));
        }
        Tabs(out)
    }

    /// The tabs whose rule the user's attributes and the request satisfy, in order.
    pub fn shown(&self, attrs: &Map<String, Value>, env: &Env) -> Vec<Tab> {
        self.0
            .iter()
            .filter(|(_, rule)| rule.as_ref().is_some_and(|r| r.eval_with(attrs, env)))
            .map(|(tab, _)| *tab)
            .collect()
    }
}
