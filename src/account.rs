//! The account bar of a signed-in user's pages (`web::page::Header`), made from the SSO
//! session: the name (`cn`, else `_whatToTrace`), a link to the portal's menu, to the console
//! when its rules let the user open one of its pages (`rules::console::home`), to the second
//! factors when the user may register one (`second_factor::offers_registration`), and the
//! sign-out form's token, unless `portalDisplayLogout` (the rule of the menu's `Logout` tab)
//! hides the sign-out from this user. The portal's, the provider's and the notifications' pages
//! and the router's error pages ask it; what each link leads to decides again on its own.
use crate::app::App;
use crate::config::{value_string, AreaSettings, Conf};
use crate::http::Request;
use crate::rules::{console, location, Env, Rule};
use crate::storage::Session;
use crate::web::page::Header;
use serde_json::{Map, Value};

/// What the account bar reads from the configuration, compiled once.
#[derive(Debug)]
pub struct Settings {
    /// `portalDisplayLogout` (absent: true; a rule that does not compile: false, which hides).
    logout: Option<Rule>,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        let rule = raw
            .get("portalDisplayLogout")
            .map_or("1".into(), value_string);
        Ok(Settings {
            logout: Rule::parse(&rule).ok(),
        })
    }
}

/// The account bar of the user of the SSO session `s`, for the page that answers `req`.
pub fn header(app: &App, conf: &Conf, req: &Request, s: &Session) -> Header {
    let env = Env::from_request(
        req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        &req.ip(),
    );
    let here = req.path.as_str();
    let mut links = vec![(conf.portal.clone(), "mgrBackToPortal", here == "/")];
    let rules = conf.area::<location::Rules>();
    if let Some(href) = console::home(&rules, app.local.access.manager_host(), s, &env) {
        links.push((href.to_string(), "navConsole", false));
    }
    if crate::second_factor::offers_registration(conf, s) {
        let href = format!("{}2fregisters", conf.portal);
        links.push((href, "sfaManager", here.starts_with("/2fregisters")));
    }
    let settings = conf.area::<Settings>();
    let logout_token = (settings.logout.as_ref())
        .is_some_and(|r| r.eval_with(s, &env))
        .then(|| crate::web::csrf::issue_for(conf, &logout_binding(s)));
    Header {
        user: name(s),
        links,
        logout_token,
    }
}

/// What the portal's sign-out tokens are bound to: the session and the sign-out.
pub fn logout_binding(s: &Session) -> String {
    let sid = s.get("_session_id").map(value_string).unwrap_or_default();
    format!("portal-logout:{sid}")
}

/// The name the pages show of the user: `cn`, else `_whatToTrace`.
pub fn name(s: &Session) -> String {
    s.get("cn")
        .or_else(|| s.get("_whatToTrace"))
        .map(value_string)
        .unwrap_or_default()
}
