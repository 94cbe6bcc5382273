//! What the server is told: its limits, how large a body each path may send, what is refused
//! from a request's head alone, and what answers a request. `Settings::of` reads them from an
//! application's local configuration.
use crate::app::App;
use crate::config::fetch::FetchLimits;
use crate::config::server::ServerLimits;
use crate::http::{Request, Response};
use std::sync::Arc;
use std::time::Duration;

/// What answers a request: the router, or in the benchmark's ceiling a constant.
pub type Handler = Arc<dyn Fn(&Request) -> Response + Send + Sync>;

/// What refuses a request from its head, before any of its body is read (the request it is
/// given has no body yet): an answer, after which the connection ends, or None to go on.
pub type Gate = Box<dyn Fn(&Request) -> Option<Response> + Send + Sync>;

/// What the server needs to know: its limits and how large a body each path may send.
pub struct Settings {
    /// The reading stage's limits (header deadline, body rate, caps, trusted proxies).
    pub limits: ServerLimits,
    /// `idleTimeout`: how long a connection may wait for its next request.
    pub idle: Duration,
    /// `bodyTimeout`: time for a whole body, and for the client to read a whole answer.
    pub body_timeout: Duration,
    /// `maxRequestsPerConnection`.
    pub max_requests: u32,
    /// Worker threads.
    pub threads: usize,
    /// Requests queued for the workers (503 above).
    pub queue: usize,
    /// The fetchers that give answers a handler gives later (`later`).
    pub fetch: FetchLimits,
    /// The largest body a path may send (413 above, before any of it is read).
    pub body_limit: Box<dyn Fn(&str) -> u64 + Send + Sync>,
    /// The refusals decided from the head (the address rules of the servers that have one).
    pub gate: Gate,
}

impl Settings {
    /// The settings of an application: its local configuration, and the router's body limits
    /// and refusals from the head.
    pub fn of(app: &Arc<App>) -> Settings {
        let l = &app.local;
        let (max, prefix, hooks) = (l.max_body as u64, l.path_prefix.clone(), l.test_hooks);
        Settings {
            limits: l.limits.clone(),
            idle: l.idle_timeout,
            body_timeout: l.body_timeout,
            max_requests: l.max_requests,
            threads: l.threads,
            queue: l.queue,
            fetch: l.fetch.clone(),
            body_limit: Box::new(move |path| crate::router::body_limit(path, &prefix, max, hooks)),
            gate: {
                let app = app.clone();
                Box::new(move |req| crate::router::refuse_from_head(&app, req))
            },
        }
    }
}
