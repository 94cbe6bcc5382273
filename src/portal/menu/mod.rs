//! The page of a connected user, LemonLDAP::NG's menu (`Main/Menu.pm`, `menu.tpl`), under the
//! account bar every signed-in page has (`account::header`: who is connected, the portal, the
//! console, the second factors, the sign-out): a link to the notification explorer when it
//! has something to show, then the tabs that `portalDisplayOrder` lists and whose `portalDisplay<Tab>` rule holds for the user:
//! `Appslist` (the applications the user may reach, `apps`), `LoginHistory` (with
//! `loginHistoryEnabled`: the last successful and failed logins of the persistent session),
//! `OidcConsents` (the relying parties consented to, each revocable by a form) and `Logout`.
//! Rules read the SSO session with the persistent session's keys over it, as LemonLDAP::NG's
//! `userData` holds them. Without script the tabs are sections of one page, linked from a list.
//!
//! The page is in the request's language, in the portal's frame (`pages::frame`: language,
//! skin); the logout tab is the portal's sign-out form (`pages::logout_form`).
//!
//! `POST /` with `revokeConsent=<rp>` and the page's token (bound to the session) forgets a
//! consent and answers with a redirect back to the menu (post/redirect/get), which then says
//! it once (`web::flash`, as every action's next page).
pub mod apps;
pub mod password;
mod render;
pub mod tabs;

use crate::app::App;
use crate::config::{value_string, Conf};
use crate::error::{PortalCode, Result};
use crate::http::{Request, Response};
use crate::rules::{location, Env};
use crate::sso::{consents, history};
use crate::storage::Session;
use crate::web::csrf;
use serde_json::{Map, Value};
pub use tabs::Tab;
#[cfg(test)]
use tabs::Tabs;

/// The tabs shown, in order: `portalDisplayOrder` (split on commas and spaces, a repeated
/// name counted once), each kept when its `portalDisplay<Tab>` rule holds (an absent key is
/// true, as LemonLDAP::NG's `// 1`; a rule that does not parse hides its tab). The menu reads
/// them from the portal's settings (`Tabs`, compiled with the configuration); the tests here.
#[cfg(test)]
fn tabs(raw: &Map<String, Value>, attrs: &Map<String, Value>, env: &Env) -> Vec<Tab> {
    Tabs::from_raw(raw).shown(attrs, env)
}

/// One section of the page.
#[derive(Debug)]
enum Section {
    Apps(Tiles),
    History {
        success: Vec<Login>,
        failed: Vec<Login>,
    },
    Consents(Vec<Consented>),
    Password(password::Form),
    Logout,
}

/// The applications as the page shows them: the categories left by the filter, how many
/// applications there are before it, and the filter's words (`?q=`, empty when none).
#[derive(Debug)]
struct Tiles {
    cats: Vec<apps::Category>,
    total: usize,
    query: String,
}

/// The filter shows above the applications when there are more than this many.
const FILTER_FROM: usize = 12;

/// A login of the history.
#[derive(Debug)]
struct Login {
    epoch: i64,
    ip: String,
    error: Option<u16>,
}

/// A relying party consented to.
#[derive(Debug)]
struct Consented {
    rp: String,
    name: String,
    epoch: i64,
    scope: String,
}

/// What the page shows.
#[derive(Debug)]
struct Menu {
    explorer: Option<String>,
    /// The second-factor manager's link, when the user may register a factor.
    sfa: Option<String>,
    sections: Vec<Section>,
    error: u16,
    /// What the last action did (`web::flash`).
    said: Option<crate::web::flash::Said>,
}

/// The menu of the connected user whose SSO session is `s`, in the request's language.
pub fn page(app: &App, conf: &Conf, req: &Request, s: &Session) -> Result<Response> {
    page_with(app, conf, req, s, 0, password::Said::Nothing)
}

/// The menu with what the password tab says of the last change (`portal::password`).
pub fn with_password(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &Session,
    said: password::Said,
) -> Result<Response> {
    page_with(app, conf, req, s, 0, said)
}

/// `POST /` with `revokeConsent`: forgets the user's consent to that relying party, then
/// sends the browser back to the menu. A missing or stale token changes nothing and shows the
/// menu with the portal error that says so.
pub fn revoke(app: &App, conf: &Conf, req: &Request) -> Result<Response> {
    let crate::sso::CookieState::Valid(s) = super::session::from_request(app, conf, req)? else {
        return Ok(super::login_page(conf, req, PortalCode::FirstAccess, 401));
    };
    let token = req.form_param("token");
    if let Err(why) = csrf::check_session_bound(conf, token.as_deref(), &binding(&s)) {
        let code = match why {
            csrf::Refusal::Missing => PortalCode::NoToken,
            csrf::Refusal::Expired => PortalCode::TokenExpired,
        };
        return page_with(app, conf, req, &s, code as u16, password::Said::Nothing);
    }
    let rp = req.form_param("revokeConsent").unwrap_or_default();
    if consents::revoke(app, &s.trace(), &rp)? {
        let user: String = s.trace().chars().filter(|c| !c.is_control()).collect();
        let rp_shown: String = rp.chars().filter(|c| !c.is_control()).take(64).collect();
        crate::log::audit("consent_revoked", &[("user", &user), ("rp", &rp_shown)]);
    }
    let said =
        crate::web::flash::Said::new("consentRevoked").with("rp", &rp_display_name(conf, &rp));
    let to = format!("{}#oidcConsents", conf.portal);
    Ok(crate::web::flash::redirect(conf, &to, &said))
}

fn page_with(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &Session,
    error: u16,
    said: password::Said,
) -> Result<Response> {
    let trace = s.get("_whatToTrace").map(value_string).unwrap_or_default();
    let ps = match trace.is_empty() {
        true => Map::new(),
        false => crate::sso::persistent(app, &trace)?.1,
    };
    let attrs = user_data(s, &ps);
    let env = Env::from_request(
        req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        &req.ip(),
    );
    let settings = conf.area::<crate::portal::settings::Settings>();
    let sections = settings
        .tabs
        .shown(&attrs, &env)
        .into_iter()
        .filter_map(|tab| section(conf, tab, &attrs, &env, &ps, said))
        .map(|s| match s {
            Section::Apps(t) => Section::Apps(filtered(app, req, t)),
            other => other,
        })
        .collect();
    let explorer = (settings.explorer && ps.keys().any(|k| k.starts_with("notification_")))
        .then(|| format!("{}mynotifications", conf.portal));
    let sfa = crate::second_factor::offers_registration(conf, &attrs)
        .then(|| format!("{}2fregisters", conf.portal));
    let (said, clear) = crate::web::flash::take(conf, req);
    let menu = Menu {
        explorer,
        sfa,
        sections,
        error,
        said,
    };
    let tokens = render::Tokens {
        revoke: csrf::issue_for(conf, &binding(s)),
        logout: super::logout_token(conf, s),
        password: csrf::issue_for(conf, &password::binding(s)),
    };
    let frame = super::pages::frame(conf, req, Some(s))
        .with_header(Some(crate::account::header(app, conf, req, s)));
    let resp = Response::html(200, render::page(&frame, &menu, &tokens));
    Ok(match clear {
        Some(c) => resp.with_cookie(&c),
        None => resp,
    })
}

fn section(
    conf: &Conf,
    tab: Tab,
    attrs: &Map<String, Value>,
    env: &Env,
    ps: &Session,
    said: password::Said,
) -> Option<Section> {
    Some(match tab {
        Tab::Appslist => {
            let rules = conf.area::<location::Rules>();
            let reach = |url: &str| rules.allows(url, attrs, env);
            let list = conf.raw.get("applicationList").unwrap_or(&Value::Null);
            let cats = apps::visible(list, attrs, env, &reach);
            Section::Apps(Tiles {
                total: apps::count(&cats),
                cats,
                query: String::new(),
            })
        }
        Tab::LoginHistory if conf.area::<history::Settings>().enabled => {
            let h = ps.get(history::KEY);
            Section::History {
                success: logins(h.and_then(|h| h.get("successLogin"))),
                failed: logins(h.and_then(|h| h.get("failedLogin"))),
            }
        }
        Tab::LoginHistory => return None,
        Tab::OidcConsents => {
            let mut list = consents::of(ps);
            crate::util::sort::sort_by(&mut list, |a, b| a.rp.cmp(&b.rp));
            let rows = list
                .into_iter()
                .map(|c| Consented {
                    name: rp_display_name(conf, &c.rp),
                    rp: c.rp,
                    epoch: c.epoch,
                    scope: c.scope,
                })
                .collect();
            Section::Consents(rows)
        }
        Tab::ChangePassword => Section::Password(password::Form::of(conf, attrs, env, said)?),
        Tab::Logout => Section::Logout,
    })
}

/// The applications with their logo files found (`<data dir>/static/common/apps/<name>`, as
/// LemonLDAP::NG keeps them; a name without a file shows as a letter) and the request's filter
/// (`?q=`, at most 100 characters) applied.
fn filtered(app: &App, req: &Request, mut t: Tiles) -> Tiles {
    let dir = app
        .local
        .data_dir
        .join("static")
        .join("common")
        .join("apps");
    fn found(cats: &mut [apps::Category], dir: &std::path::Path) {
        for c in cats {
            for a in &mut c.apps {
                let file = a.logo_file.as_ref().filter(|f| dir.join(f).is_file());
                if a.logo.is_none() {
                    a.logo = file.map(|f| format!("/static/common/apps/{f}"));
                }
            }
            found(&mut c.categories, dir);
        }
    }
    found(&mut t.cats, &dir);
    t.query = req
        .query_param("q")
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    t.cats = apps::matching(t.cats, &t.query);
    t
}

/// The SSO session with the persistent session's keys over it (but its own id, kind and
/// times), as LemonLDAP::NG's `setPersistentSessionInfo` and `updatePersistentSession` keep
/// the user's data.
fn user_data(s: &Session, ps: &Session) -> Map<String, Value> {
    let mut out = s.clone();
    for (k, v) in ps {
        if !matches!(
            k.as_str(),
            "_utime" | "_session_id" | "_session_uid" | "_session_kind"
        ) {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

fn logins(v: Option<&Value>) -> Vec<Login> {
    let Some(Value::Array(list)) = v else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|e| {
            Some(Login {
                epoch: e.get("_utime").and_then(crate::config::as_i64)?,
                ip: e.get("ipAddr").map(value_string).unwrap_or_default(),
                error: e
                    .get("error")
                    .and_then(crate::config::as_i64)
                    .and_then(|n| u16::try_from(n).ok()),
            })
        })
        .collect()
}

/// `oidcRPMetaDataOptionsDisplayName` of a relying party, its key when unset (as `mkOidcConsent`).
fn rp_display_name(conf: &Conf, rp: &str) -> String {
    let settings = conf.area::<crate::portal::settings::Settings>();
    settings
        .rp_names
        .get(rp)
        .cloned()
        .unwrap_or_else(|| rp.to_string())
}

/// What the page's token is bound to: this SSO session and the revocation.
fn binding(s: &Session) -> String {
    let sid = s.get("_session_id").map(value_string).unwrap_or_default();
    format!("menu-revoke-consent:{sid}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn the_order_and_the_rules_choose_the_tabs() {
        let defaults = crate::config::defaults::defaults();
        let user = map(json!({"uid": "dwho"}));
        let env = Env::empty();
        assert_eq!(
            tabs(&defaults, &user, env),
            vec![Tab::Appslist, Tab::LoginHistory, Tab::Logout],
            "no consent: no consent tab (its default rule)"
        );
        let with = map(json!({"uid": "dwho", "_oidcConsents": "[{\"rp\":\"a\"}]"}));
        assert!(tabs(&defaults, &with, env).contains(&Tab::OidcConsents));
        let empty = map(json!({"uid": "dwho", "_oidcConsents": "[]"}));
        assert!(!tabs(&defaults, &empty, env).contains(&Tab::OidcConsents));
        let raw = map(json!({
            "portalDisplayOrder": "Logout,Appslist  Logout ChangePassword Nope",
            "portalDisplayAppslist": "$uid eq \"rtyler\"",
            "portalDisplayLogout": 1
        }));
        // ChangePassword's rule is absent there: true (its section needs passwordDB = DBI).
        assert_eq!(
            tabs(&raw, &user, env),
            vec![Tab::Logout, Tab::ChangePassword]
        );
        let rtyler = map(json!({"uid": "rtyler"}));
        assert_eq!(
            tabs(&raw, &rtyler, env),
            vec![Tab::Logout, Tab::Appslist, Tab::ChangePassword]
        );
        let dbi = map(json!({"uid": "dwho", "_auth": "DBI"}));
        assert!(tabs(&defaults, &dbi, env).contains(&Tab::ChangePassword));
        let off = map(json!({"portalDisplayOrder": "Logout", "portalDisplayLogout": "0"}));
        assert!(tabs(&off, &user, env).is_empty());
        let broken = map(json!({"portalDisplayOrder": "Logout", "portalDisplayLogout": "$uid eq"}));
        assert!(tabs(&broken, &user, env).is_empty(), "a broken rule hides");
    }

    #[test]
    fn persistent_keys_join_the_user_data() {
        let s = map(json!({"_session_id": "sso", "uid": "dwho", "_utime": 5}));
        let ps = map(json!({"_session_id": "p", "_utime": 1, "_oidcConsents": "[]"}));
        let d = user_data(&s, &ps);
        assert_eq!(d["_session_id"], "sso");
        assert_eq!(d["_utime"], 5);
        assert_eq!(d["_oidcConsents"], "[]");
    }
}
