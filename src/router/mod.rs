//! The ordered prefix table: which module owns which path. First match wins; each area answers
//! with its error flavour (the REST servers always JSON, the portal by `Accept`), and `errors`,
//! THE error -> response table, turns any error into the response of that flavour.
pub mod errors;
mod head;

pub use head::{body_limit, refuse_from_head};

use crate::app::App;
use crate::config::{Areas, Conf};
use crate::ctx::{Ctx, Handler};
use crate::error::{Error, Result};
use crate::http::response::{Later, Task};
use crate::http::{Method, Request, Response};
use errors::Flavour;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Routes one request and turns any error into its response. An answer given later (a fetch a
/// client asked for, see [`Later`]) is finished the same way when it comes, with copies of the
/// request and of the configuration in force now.
pub fn dispatch(app: &Arc<App>, req: &Request) -> Response {
    let t0 = std::time::Instant::now();
    let conf = app.conf();
    let found = area(app, req);
    let counted = found.map_or(crate::metrics::Area::Other, |(a, _)| a.counted());
    let (flavour, mut res) = route(app, req, &conf, found);
    let later = match &mut res {
        Ok(r) => r.later.take(),
        Err(_) => None,
    };
    let Some(later) = later else {
        return finish(app, req, &conf, (flavour, counted, t0), res);
    };
    let how = (flavour, counted, t0);
    let finishing = |task: Task| -> Task {
        let (app, req, conf) = (app.clone(), req.clone(), conf.clone());
        Box::new(move || Ok(finish(&app, &req, &conf, how, task())))
    };
    let Later { key, run, busy } = *later;
    Response::later(key, finishing(run), finishing(busy))
}

/// How an answer is finished: its error flavour, the area it is counted under, and when its
/// request was taken.
type Finish = (Flavour, crate::metrics::Area, std::time::Instant);

/// Any error turned into its response, the language cookie, the security headers, the count.
fn finish(app: &App, req: &Request, conf: &Conf, how: Finish, res: Result<Response>) -> Response {
    let (flavour, counted, t0) = how;
    let mut resp = match res {
        Ok(r) => r,
        Err(e) => errors::to_response_of(app, &e, req, flavour, conf),
    };
    remember_language(conf, req, &mut resp);
    let policy = conf.area::<crate::web::headers::Policy>();
    crate::web::headers::apply(&policy, &mut resp, client_https(app, req, conf));
    crate::metrics::request(counted, resp.status, t0.elapsed());
    resp
}

/// A page answering a language switch (`?lang=`) remembers the choice in LemonLDAP::NG's
/// `llnglanguage` cookie, whichever area answered.
fn remember_language(conf: &Conf, req: &Request, resp: &mut Response) {
    let page = resp
        .header("Content-Type")
        .is_some_and(|t| t.starts_with("text/html"));
    if let (true, Some(lang)) = (page, crate::web::lang::remembered(req)) {
        let cookie = crate::web::lang::cookie(conf, lang);
        resp.headers.push(("Set-Cookie".into(), cookie.into()));
    }
}

/// Whether the client reached the portal over https: what a trusted proxy says in
/// `X-Forwarded-Proto` (its last value: the proxy's own, after any the client sent), else the portal URL's
/// scheme, since Limette itself speaks plain http only behind the terminator the URL names.
/// From an untrusted peer the header is the client's own word, and ignored.
fn client_https(app: &App, req: &Request, conf: &Conf) -> bool {
    let trusted = req
        .remote
        .is_some_and(|peer| app.local.limits.is_trusted(peer.ip()));
    let forwarded = req
        .header("x-forwarded-proto")
        .and_then(|v| v.rsplit(',').next())
        .map(|v| v.trim().to_ascii_lowercase());
    match forwarded.filter(|_| trusted) {
        Some(proto) => proto == "https",
        None => conf.portal.starts_with("https://"),
    }
}

/// Parses every area's settings of a configuration (each is kept in it for its life): given to
/// every `Conf::build`, so a configuration whose settings do not parse is refused where it is
/// loaded or saved. Each area owns its settings type and parser; this list says which areas
/// there are, and names every `AreaSettings` type (a test checks it).
pub fn area_settings(areas: &mut Areas, raw: &Map<String, Value>) -> Result<(), String> {
    areas.parse::<crate::oidc::Settings>(raw)?;
    areas.parse::<crate::sessions::Settings>(raw)?;
    areas.parse::<crate::notifications::Settings>(raw)?;
    areas.parse::<crate::login::macros::Compiled>(raw)?;
    areas.parse::<crate::login::build::Exports>(raw)?;
    areas.parse::<crate::portal::settings::Settings>(raw)?;
    areas.parse::<crate::web::headers::Policy>(raw)?;
    areas.parse::<crate::sso::history::Settings>(raw)?;
    areas.parse::<crate::web::skin::Skin>(raw)?;
    areas.parse::<crate::web::zone::Settings>(raw)?;
    areas.parse::<crate::sso::skin::SkinRules>(raw)?;
    areas.parse::<crate::rules::location::Rules>(raw)?;
    areas.parse::<crate::directory::Settings>(raw)?;
    areas.parse::<crate::directory::dbi::Settings>(raw)?;
    areas.parse::<crate::password::Settings>(raw)?;
    areas.parse::<crate::config_proxy::Settings>(raw)?;
    areas.parse::<crate::status::Settings>(raw)?;
    areas.parse::<crate::handler::Settings>(raw)?;
    areas.parse::<crate::second_factor::Settings>(raw)?;
    areas.parse::<crate::second_factor::totp::Settings>(raw)?;
    areas.parse::<crate::second_factor::webauthn::Settings>(raw)?;
    areas.parse::<crate::oidc::base::acr::AuthnContext>(raw)?;
    areas.parse::<crate::account::Settings>(raw)?;
    Ok(())
}

/// The areas, in the order their paths are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Area {
    /// `/sessions/...` under `pathPrefix`: the REST session server.
    Sessions,
    /// `/config/...` under `pathPrefix`: the REST configuration proxy.
    Config,
    /// `/error/...`: error references.
    ErrorRefs,
    /// `/session/my/...`, `/mysession/`: the connected user's session.
    MySession,
    /// `POST /oauth2/` with credentials: the command-line login.
    Login,
    /// `/oauth2/...` and discovery: the OpenID Connect provider.
    Oidc,
    /// `/notifications`: the notification server.
    NotificationServer,
    /// `/notifback`, `/mynotifications`: notifications at login and the explorer.
    NotificationPortal,
    /// `/2fchoice`, `/<prefix>2fcheck`, `/2fregisters...`: second factors at login and their
    /// registration (the portal's).
    SecondFactor,
    /// `/static/...`: embedded assets.
    Static,
    /// `/portalStatus`, `/health`, `/metrics`: the node's state for operators and monitors.
    Status,
    /// `/manager/...`: the administration console.
    Manager,
    /// `/lmauth`, `/lmauth/forward`: the handler endpoint web servers ask.
    Handler,
    /// `/__test/...` when test hooks are on.
    TestHook,
    /// `/`: the portal.
    Root,
}

impl Area {
    /// The handler of the area; the notifications' portal paths are two: the explorer, and
    /// the answer to a login held by notifications (a login entry point, the portal's).
    fn handler(self, path: &str) -> Handler {
        use crate::{config_proxy as proxy, notifications, portal, sessions};
        match self {
            Area::Sessions => sessions::rest::handle,
            Area::Config => proxy::handle_config,
            Area::ErrorRefs => proxy::handle_error,
            Area::MySession => sessions::my::handle,
            Area::Login | Area::Root => portal::handle,
            Area::Oidc => crate::oidc::handle,
            Area::NotificationServer => notifications::server::handle,
            Area::NotificationPortal if path.starts_with("/mynotifications") => {
                notifications::explorer::handle
            }
            Area::NotificationPortal => portal::login::notifback,
            Area::SecondFactor => portal::second_factor::handle,
            Area::Static => portal::assets::serve,
            Area::Status => crate::status::handle,
            Area::Manager => crate::manager::handle,
            Area::Handler => crate::handler::handle,
            Area::TestHook => test_hook,
        }
    }

    /// The flavour of the area's errors: JSON always for the REST servers and the status
    /// paths, by `Accept` for the others.
    fn flavour(self) -> Flavour {
        match self {
            Area::Sessions
            | Area::Config
            | Area::ErrorRefs
            | Area::NotificationServer
            | Area::Status
            | Area::Handler => Flavour::Json,
            _ => Flavour::Negotiated,
        }
    }

    /// The area requests are counted under in the metrics.
    fn counted(self) -> crate::metrics::Area {
        use crate::metrics::Area as M;
        match self {
            Area::Sessions => M::Sessions,
            Area::Config => M::Config,
            Area::ErrorRefs => M::Errors,
            Area::MySession => M::MySession,
            Area::Login | Area::Oidc => M::Oidc,
            Area::NotificationServer => M::Notifications,
            Area::NotificationPortal => M::NotificationPortal,
            Area::SecondFactor => M::Portal,
            Area::Static => M::Static,
            Area::Status => M::Status,
            Area::Manager => M::Manager,
            Area::TestHook | Area::Handler => M::Other,
            Area::Root => M::Portal,
        }
    }
}

/// Which area owns the request, and the path below the `pathPrefix` for the prefixed ones.
fn area<'r>(app: &App, req: &'r Request) -> Option<(Area, &'r str)> {
    let path = req.path.as_str();
    let under = |p: &str| is_under(path, p);
    let prefixed = |p: &str| -> Option<&'r str> {
        let rest = path.strip_prefix(app.local.path_prefix.as_str())?;
        is_under(rest, p).then_some(rest)
    };
    let cli_login = (path == "/oauth2/" || path == "/oauth2")
        && req.method == Method::Post
        && has_credentials(req);
    let table = [
        (Area::Sessions, prefixed("/sessions")),
        (Area::Config, prefixed("/config")),
        (Area::ErrorRefs, under("/error").then_some(path)),
        (
            Area::MySession,
            (under("/session/my") || under("/mysession")).then_some(path),
        ),
        (Area::Login, cli_login.then_some(path)),
        (
            Area::Oidc,
            (under("/oauth2") || path == "/.well-known/openid-configuration").then_some(path),
        ),
        (
            Area::NotificationServer,
            under("/notifications").then_some(path),
        ),
        (
            Area::NotificationPortal,
            (under("/notifback") || under("/mynotifications")).then_some(path),
        ),
        (
            Area::SecondFactor,
            crate::portal::second_factor::owns(path).then_some(path),
        ),
        (Area::Static, under("/static").then_some(path)),
        (Area::Status, crate::status::owns(path).then_some(path)),
        (Area::Manager, under("/manager").then_some(path)),
        (Area::Handler, under(crate::handler::PATH).then_some(path)),
        (
            Area::TestHook,
            (app.local.test_hooks && under("/__test")).then_some(path),
        ),
        (Area::Root, (path == "/" || path.is_empty()).then_some(path)),
    ];
    table
        .into_iter()
        .find_map(|(area, rest)| rest.map(|r| (area, r)))
}

/// `path` is `p` or below it.
fn is_under(path: &str, p: &str) -> bool {
    path.strip_prefix(p)
        .is_some_and(|r| r.is_empty() || r.starts_with('/'))
}

/// The area's handler, run on the request's context (`Ctx`), with its error flavour.
fn route(
    app: &Arc<App>,
    req: &Request,
    conf: &Arc<Conf>,
    found: Option<(Area, &str)>,
) -> (Flavour, Result<Response>) {
    let Some((area, _)) = found else {
        return (Flavour::Negotiated, Err(Error::not_found("Not found")));
    };
    if let Err(e) = admit_server(app, req, area) {
        return (refusal_flavour(area), Err(e));
    }
    let ctx = Ctx::new(app, conf, req).with_account_bar(crate::account::header);
    (area.flavour(), area.handler(&req.path)(&ctx))
}

/// The server whose address rule and credentials guard an area, if any.
fn guarded(req: &Request, area: Area) -> Option<crate::config::access::Server> {
    use crate::config::access::Server;
    Some(match area {
        Area::Sessions => Server::Sessions,
        Area::Config => Server::Config,
        Area::NotificationServer => Server::Notifications,
        Area::Status => crate::status::server_of(&req.path),
        Area::Manager => Server::Manager,
        _ => return None,
    })
}

/// The flavour of a refusal by `admit_server`: the console's pages by `Accept`, JSON else.
fn refusal_flavour(area: Area) -> Flavour {
    match area {
        Area::Manager => Flavour::Negotiated,
        _ => Flavour::Json,
    }
}

/// The request's path as a log line shows it: 200 characters at most, no control characters.
fn shown_path(req: &Request) -> String {
    req.path
        .chars()
        .take(200)
        .filter(|c| !c.is_control())
        .collect()
}

/// The client as a log line names it.
fn shown_client(req: &Request) -> String {
    req.client
        .map_or_else(|| "an unknown address".to_string(), |ip| ip.to_string())
}

/// The 403 of an address rule, logged.
fn forbidden(req: &Request, server: crate::config::access::Server) -> Error {
    crate::log::warn(&format!(
        "{}: refused to {}, outside {}",
        shown_path(req),
        shown_client(req),
        server.key()
    ));
    Error::Forbidden(format!(
        "Access refused from this address ({})",
        server.key()
    ))
}

/// The address rule and the basic credentials of the REST servers, the status paths and the
/// console (`config::access`), applied before the handler runs and so before any store is
/// touched: 403 outside the rule, then 401 without the right credentials. Other areas pass.
/// (A request with a body met the address rule already, from its head: `refuse_from_head`.)
fn admit_server(app: &App, req: &Request, area: Area) -> Result<()> {
    use crate::config::access::Verdict;
    let Some(server) = guarded(req, area) else {
        return Ok(());
    };
    let (path, shown) = (shown_path(req), shown_client(req));
    match app
        .local
        .access
        .check(server, req.client, req.header("authorization"))
    {
        Verdict::Allowed => Ok(()),
        Verdict::Forbidden => Err(forbidden(req, server)),
        // LemonLDAP::NG's Perl clients send credentials only after this challenge: a request
        // without any is the normal first half of a call (info); a wrong password is not.
        Verdict::Unauthorized if req.header("authorization").is_none() => {
            crate::log::info(&format!(
                "{path}: asked {shown} for restUser/restPassword (401 challenge)"
            ));
            Err(Error::BasicRequired("Authentication required".into()))
        }
        Verdict::Unauthorized => {
            crate::log::warn(&format!(
                "{path}: refused to {shown}, wrong restUser/restPassword"
            ));
            Err(Error::BasicRequired("Authentication required".into()))
        }
    }
}

/// The furthest one call of `/__test/clock` moves the clock: ten years.
const MAX_SKEW: i64 = 10 * 366 * 86_400;

fn has_credentials(req: &Request) -> bool {
    let form = req.form();
    form.iter().any(|(k, _)| k == "user" || k == "password")
}

/// Debug routes for the test-suite only (enabled by `LIMETTE_TEST_HOOKS=1`): a slow handler to
/// fill the queue, a panicking one, a large answer, the clock moved forward (`advance`
/// seconds) so that expiry is tested without waiting, and the reloader's rounds counted.
fn test_hook(ctx: &Ctx) -> Result<Response> {
    let req = ctx.req;
    match req.path.as_str() {
        "/__test/sleep" => {
            let ms: u64 = req
                .query_param("ms")
                .and_then(|v| v.parse().ok())
                .unwrap_or(500)
                .min(10_000);
            std::thread::sleep(std::time::Duration::from_millis(ms));
            Ok(Response::json(200, &serde_json::json!({"slept": ms})))
        }
        "/__test/panic" => panic!("test hook asked for a panic"),
        "/__test/big" => {
            let n: usize = req
                .query_param("n")
                .and_then(|v| v.parse().ok())
                .unwrap_or(2048)
                .min(1 << 20);
            Ok(Response::bytes(200, "text/plain", vec![b'x'; n]))
        }
        "/__test/reloads" => Ok(Response::json(
            200,
            &serde_json::json!({"rounds": crate::app::reload_rounds()}),
        )),
        "/__test/clock" => {
            let secs: i64 = req
                .query_param("advance")
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| Error::bad("advance: expected a number of seconds"))?;
            let skew = crate::util::advance_clock(secs.clamp(-MAX_SKEW, MAX_SKEW));
            Ok(Response::json(200, &serde_json::json!({"skew": skew})))
        }
        _ => Err(Error::not_found("Not found")),
    }
}

#[cfg(test)]
mod tests {
    use super::{area_settings, is_under};
    use crate::config::{defaults, Areas, Conf};
    use serde_json::json;

    /// Every `AreaSettings` type written under `src/` is in the list every configuration is
    /// built with: none is ever parsed at request time (`Conf::area`).
    #[test]
    fn the_area_list_names_every_area_settings_type() {
        fn count(dir: &std::path::Path) -> usize {
            let mut n = 0;
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    n += count(&p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    n += text
                        .lines()
                        .filter(|l| l.starts_with("impl") && l.contains("AreaSettings for "))
                        .count();
                }
            }
            n
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut areas = Areas::default();
        area_settings(&mut areas, &defaults::defaults()).unwrap();
        assert_eq!(areas.count(), count(&src));
    }

    /// A value an area cannot parse refuses the configuration when it is built, naming the key
    /// and the value: it is never run with the area's defaults.
    #[test]
    fn a_bad_area_value_refuses_the_configuration_at_build() {
        let bad = |k: &str, v: serde_json::Value| {
            let mut m = serde_json::Map::new();
            m.insert(k.into(), v);
            Conf::build(m, &serde_json::Map::new(), "k", area_settings).unwrap_err()
        };
        let e = bad("restTimeout", json!("soon"));
        assert_eq!(e, "restTimeout = soon is not an integer");
        let e = bad("formTimeout", json!("later"));
        assert_eq!(e, "formTimeout = later is not an integer");
        let e = bad("oidcRPMetaDataOptions", json!({"rp": "x"}));
        assert!(e.starts_with("oidcRPMetaDataOptions/rp"), "{e}");
    }

    #[test]
    fn a_prefix_owns_itself_and_what_is_below_it_only() {
        assert!(is_under("/oauth2", "/oauth2"));
        assert!(is_under("/oauth2/", "/oauth2"));
        assert!(is_under("/oauth2/token", "/oauth2"));
        assert!(!is_under("/oauth2token", "/oauth2"));
        assert!(!is_under("/oauth", "/oauth2"));
        assert!(!is_under("/x/oauth2", "/oauth2"));
    }
}
