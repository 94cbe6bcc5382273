//! Who may open the administration console: the `locationRules` of `managerHost`
//! (LemonLDAP::NG's manager host), evaluated on the path LemonLDAP::NG's manager serves a page
//! under, so that its rules apply unchanged. No `managerHost`, or no rules for that host:
//! nobody. The console (`manager`) checks each of its pages with `allows`; the account bar of
//! the portal's pages asks `home` whether to link the console, and to which page. Pure: the
//! caller gives the rules, the host, the user's attributes and the request's `Env`.
use super::location::Rules;
use super::Env;
use serde_json::{Map, Value};

/// The console's pages the account bar may link, in the console's order: the path
/// LemonLDAP::NG's manager serves each under (what its rules name) and the console's address.
/// The users page is left out: it exists only with the DBI directory.
pub const PAGES: [(&str, &str); 5] = [
    ("/", "/manager/"),
    ("/sessions", "/manager/sessions"),
    ("/notifications", "/manager/notifications"),
    ("/2ndfa", "/manager/2f"),
    ("/confs", "/manager/conf"),
];

/// Whether the user of `attrs` may open `path` of LemonLDAP::NG's manager on `host`.
pub fn allows(
    rules: &Rules,
    host: Option<&str>,
    path: &str,
    attrs: &Map<String, Value>,
    env: &Env,
) -> bool {
    let Some(host) = host else {
        return false;
    };
    if !rules.0.contains_key(host) {
        return false;
    }
    rules.allows(&format!("https://{host}{path}"), attrs, env)
}

/// The console's address of the first page the user may open; `None` when there is none,
/// which is also the answer without `managerHost`. At most five rule evaluations.
pub fn home(
    rules: &Rules,
    host: Option<&str>,
    attrs: &Map<String, Value>,
    env: &Env,
) -> Option<&'static str> {
    PAGES
        .iter()
        .find(|(path, _)| allows(rules, host, path, attrs, env))
        .map(|(_, href)| *href)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::AreaSettings;
    use serde_json::json;

    fn rules(v: Value) -> Rules {
        let raw = json!({ "locationRules": v });
        Rules::from_conf(raw.as_object().unwrap()).unwrap()
    }

    #[test]
    fn the_manager_host_rules_decide_and_nobody_without_them() {
        let r = rules(json!({
            "manager.example.com": {
                "(?#Sessions)^/sessions": "$uid eq \"rtyler\" or $uid eq \"dwho\"",
                "(?#Configuration)^/(confs|$)": "$uid eq \"dwho\"",
                "default": "deny"
            }
        }));
        let host = Some("manager.example.com");
        let user = |u: &str| json!({ "uid": u }).as_object().unwrap().clone();
        let env = Env::empty();
        assert_eq!(home(&r, host, &user("dwho"), env), Some("/manager/"));
        assert_eq!(
            home(&r, host, &user("rtyler"), env),
            Some("/manager/sessions")
        );
        assert_eq!(home(&r, host, &user("msmith"), env), None);
        assert_eq!(home(&r, None, &user("dwho"), env), None, "no managerHost");
        assert_eq!(
            home(&r, Some("other"), &user("dwho"), env),
            None,
            "no rules"
        );
        assert!(allows(&r, host, "/confs/3", &user("dwho"), env));
        assert!(!allows(&r, host, "/confs/3", &user("rtyler"), env));
    }
}
