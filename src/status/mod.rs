//! The node's state for operators and monitoring systems: LemonLDAP::NG's `/portalStatus`
//! (enabled by `portalStatus`, its JSON `{"storage":{"global":N}}`), the health path
//! `/health` for load balancers (200 when the node can serve, 503 with the reason otherwise,
//! see `health`) and `/metrics` in the Prometheus text exposition format 0.0.4 (the counters
//! of `crate::metrics` and what a scrape measures in the stores). The address rules
//! (`statusAllowFrom`, `metricsAllowFrom`) are applied by the router before these run.
pub mod health;

use crate::app::App;
use crate::config::access::Server;
use crate::config::{truthy, AreaSettings, Conf};
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::metrics::Gauge;
use crate::storage::Kind;
use serde_json::{json, Map, Value};

/// The health path.
pub const HEALTH: &str = "/health";

/// The area's settings: `portalStatus` (off: `/portalStatus` is unknown).
#[derive(Debug)]
pub struct Settings {
    /// `portalStatus`.
    pub portal_status: bool,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        Ok(Settings {
            portal_status: truthy(raw.get("portalStatus")),
        })
    }
}

/// Whether `path` is one of this area's.
pub fn owns(path: &str) -> bool {
    matches!(path, "/portalStatus" | HEALTH | "/metrics")
}

/// The address rule guarding `path`.
pub fn server_of(path: &str) -> Server {
    match path {
        "/metrics" => Server::Metrics,
        _ => Server::Status,
    }
}

/// Answers `/portalStatus`, the health path and `/metrics` (GET and HEAD only).
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if !matches!(req.method, Method::Get | Method::Head) {
        return Err(Error::MethodNotAllowed);
    }
    match req.path.as_str() {
        "/portalStatus" if conf.area::<Settings>().portal_status => Ok(Response::uncached(
            200,
            "application/json",
            portal_status(app).to_string(),
        )),
        HEALTH => {
            let h = health::check(app, conf);
            let status = if h.ok() { 200 } else { 503 };
            Ok(Response::uncached(
                status,
                "application/json",
                h.to_json().to_string(),
            ))
        }
        "/metrics" => {
            let text = crate::metrics::render(env!("CARGO_PKG_VERSION"), &scraped(app, conf));
            Ok(Response::uncached(
                200,
                "text/plain; version=0.0.4; charset=utf-8",
                text,
            ))
        }
        _ => Err(Error::not_found("Not found")),
    }
}

/// LemonLDAP::NG's answer (`Plugins/Status.pm`): the SSO sessions of each storage that holds
/// any, under `storage`. Its `total` and `average` come from the handler's status daemon,
/// which Limette has not: they are absent, as there when the daemon does not run.
pub fn portal_status(app: &App) -> Value {
    let mut storage = Map::new();
    for (name, kind) in [("global", Kind::Global), ("persistent", Kind::Persistent)] {
        if let Some(n) = session_count(app, kind).filter(|n| *n > 0) {
            storage.insert(name.into(), json!(n));
        }
    }
    if storage.is_empty() {
        return json!({});
    }
    json!({ "storage": storage })
}

/// How many sessions of `kind` the store holds; `None` when it cannot list them (a REST
/// store) or fails.
pub fn session_count(app: &App, kind: Kind) -> Option<usize> {
    app.sessions(kind).ids(kind).ok().map(|ids| ids.len())
}

/// The families measured for one scrape: the configuration in force, the sessions, the
/// health of each store.
fn scraped(app: &App, conf: &Conf) -> Vec<Gauge> {
    let mut sessions = Vec::new();
    for (name, kind) in [("global", Kind::Global), ("persistent", Kind::Persistent)] {
        if let Some(n) = session_count(app, kind) {
            sessions.push((vec![("kind", name.to_string())], n as f64));
        }
    }
    let h = health::check(app, conf);
    let stores = h
        .checks
        .iter()
        .map(|c| {
            (
                vec![("check", c.name.to_string())],
                f64::from(u8::from(c.ok())),
            )
        })
        .collect();
    vec![
        Gauge {
            name: "limette_config_number",
            help: "The number of the configuration in force.",
            samples: vec![(Vec::new(), conf.num as f64)],
        },
        Gauge {
            name: "limette_uptime_seconds",
            help: "Seconds since the node started.",
            samples: vec![(Vec::new(), crate::metrics::uptime().as_secs() as f64)],
        },
        Gauge {
            name: "limette_sessions",
            help: "Sessions in the stores that can list them, by kind.",
            samples: sessions,
        },
        Gauge {
            name: "limette_health_check",
            help: "1 when a check of the health path passes, 0 when it fails.",
            samples: stores,
        },
    ]
}
