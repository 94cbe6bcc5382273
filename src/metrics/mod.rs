//! The node's counters, for `/metrics` (Prometheus text exposition format 0.0.4), the console's
//! status page and `/portalStatus`: plain atomics in statics, so that counting costs a relaxed
//! add on the request path and no lock. The server counts requests (by area and status class,
//! with their handling time in a histogram), the reading stage's refusals, its queue and its
//! connections; the areas count logins, tokens and configuration reloads. What is only known
//! by asking a store (sessions, store health) is measured when a scrape asks, by the status
//! area, and handed to [`render`] as extra families.
//!
//! This folder owns the names (here) and the text format (`text`); it knows no HTTP type and
//! no store.
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The areas requests are counted by (the router's table, plus what no area owns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// The REST session server.
    Sessions,
    /// The REST configuration server.
    Config,
    /// Error references.
    Errors,
    /// The connected user's session.
    MySession,
    /// The OpenID Connect provider (and the command-line login).
    Oidc,
    /// The notification server (REST and SOAP).
    Notifications,
    /// Notifications at login and the explorer.
    NotificationPortal,
    /// Embedded assets.
    Static,
    /// The portal's pages.
    Portal,
    /// `/portalStatus`, the health path and `/metrics`.
    Status,
    /// The administration console.
    Manager,
    /// The test hooks, and what no area owns (404).
    Other,
}

const AREAS: [(Area, &str); 12] = [
    (Area::Sessions, "sessions"),
    (Area::Config, "config"),
    (Area::Errors, "errors"),
    (Area::MySession, "mysession"),
    (Area::Oidc, "oidc"),
    (Area::Notifications, "notifications"),
    (Area::NotificationPortal, "notifback"),
    (Area::Static, "static"),
    (Area::Portal, "portal"),
    (Area::Status, "status"),
    (Area::Manager, "manager"),
    (Area::Other, "other"),
];
const N_AREAS: usize = AREAS.len();

/// The upper bounds of the latency histogram's buckets, in seconds (`+Inf` follows).
const BUCKETS: [f64; 11] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];
const N_BUCKETS: usize = BUCKETS.len() + 1;

/// The statuses the reading stage refuses with, counted each (`other` for the rest).
const REFUSALS: [u16; 8] = [400, 408, 413, 414, 429, 431, 501, 503];

/// Tokens the provider issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// An access token.
    Access,
    /// A refresh token.
    Refresh,
    /// An ID token.
    Id,
}

const TOKENS: [(Token, &str); 3] = [
    (Token::Access, "access"),
    (Token::Refresh, "refresh"),
    (Token::Id, "id"),
];

static REQUESTS: [[AtomicU64; 5]; N_AREAS] = [const { [const { AtomicU64::new(0) }; 5] }; N_AREAS];
static LATENCY: [[AtomicU64; N_BUCKETS]; N_AREAS] =
    [const { [const { AtomicU64::new(0) }; N_BUCKETS] }; N_AREAS];
/// Sum of the handling times per area, in microseconds.
static LATENCY_SUM_US: [AtomicU64; N_AREAS] = [const { AtomicU64::new(0) }; N_AREAS];
static REFUSED: [AtomicU64; REFUSALS.len() + 1] = [const { AtomicU64::new(0) }; REFUSALS.len() + 1];
static QUEUED: AtomicI64 = AtomicI64::new(0);
static BUSY: AtomicI64 = AtomicI64::new(0);
static CONNECTIONS: AtomicI64 = AtomicI64::new(0);
static LOGINS_OK: AtomicU64 = AtomicU64::new(0);
static LOGINS_FAILED: AtomicU64 = AtomicU64::new(0);
static TOKENS_ISSUED: [AtomicU64; TOKENS.len()] = [const { AtomicU64::new(0) }; TOKENS.len()];
static RELOADS: AtomicU64 = AtomicU64::new(0);
static STARTED: OnceLock<(Instant, SystemTime)> = OnceLock::new();

fn area_index(area: Area) -> usize {
    AREAS
        .iter()
        .position(|(a, _)| *a == area)
        .unwrap_or(N_AREAS - 1)
}

/// Marks the node's start (the first call wins): uptime counts from here.
pub fn mark_start() {
    STARTED.get_or_init(|| (Instant::now(), SystemTime::now()));
}

/// Seconds since [`mark_start`].
pub fn uptime() -> Duration {
    STARTED.get().map_or(Duration::ZERO, |(i, _)| i.elapsed())
}

/// One request answered by `area` with `status`, handled in `took`.
pub fn request(area: Area, status: u16, took: Duration) {
    let a = area_index(area);
    let class = usize::from((status / 100).clamp(1, 5)) - 1;
    if let Some(row) = REQUESTS.get(a) {
        row.get(class).map(|c| c.fetch_add(1, Relaxed));
    }
    let secs = took.as_secs_f64();
    let bucket = BUCKETS
        .iter()
        .position(|b| secs <= *b)
        .unwrap_or(BUCKETS.len());
    if let Some(row) = LATENCY.get(a) {
        row.get(bucket).map(|c| c.fetch_add(1, Relaxed));
    }
    let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
    LATENCY_SUM_US.get(a).map(|c| c.fetch_add(us, Relaxed));
}

/// A request the reading stage refused with `status` (a cap, a deadline, a full queue).
pub fn refused(status: u16) {
    let i = REFUSALS
        .iter()
        .position(|s| *s == status)
        .unwrap_or(REFUSALS.len());
    REFUSED.get(i).map(|c| c.fetch_add(1, Relaxed));
}

/// A request entered the workers' queue.
pub fn enqueued() {
    QUEUED.fetch_add(1, Relaxed);
}

/// A worker took a request from the queue; it is busy until [`worker_done`].
pub fn dequeued() {
    QUEUED.fetch_sub(1, Relaxed);
    BUSY.fetch_add(1, Relaxed);
}

/// A worker finished a request.
pub fn worker_done() {
    BUSY.fetch_sub(1, Relaxed);
}

/// Requests waiting in the workers' queue.
pub fn queue_depth() -> i64 {
    QUEUED.load(Relaxed).max(0)
}

/// A connection admitted.
pub fn connection_opened() {
    CONNECTIONS.fetch_add(1, Relaxed);
}

/// A connection closed.
pub fn connection_closed() {
    CONNECTIONS.fetch_sub(1, Relaxed);
}

/// A login checked: `ok` when the credentials were right and the session opened.
pub fn login(ok: bool) {
    let c = if ok { &LOGINS_OK } else { &LOGINS_FAILED };
    c.fetch_add(1, Relaxed);
}

/// A token issued.
pub fn token(kind: Token) {
    if let Some(i) = TOKENS.iter().position(|(t, _)| *t == kind) {
        TOKENS_ISSUED.get(i).map(|c| c.fetch_add(1, Relaxed));
    }
}

/// A newer configuration put in force.
pub fn config_reloaded() {
    RELOADS.fetch_add(1, Relaxed);
}

/// The counters a status page shows, read at once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Requests answered, every area.
    pub requests: u64,
    /// Of which answered 5xx.
    pub errors: u64,
    /// Refusals of the reading stage.
    pub refused: u64,
    /// Requests waiting for a worker.
    pub queued: i64,
    /// Requests a worker holds.
    pub busy: i64,
    /// Open connections.
    pub connections: i64,
    /// Logins that succeeded.
    pub logins_ok: u64,
    /// Logins refused.
    pub logins_failed: u64,
    /// Access tokens issued.
    pub access_tokens: u64,
    /// Configurations put in force since the start.
    pub reloads: u64,
}

/// The counters now.
pub fn summary() -> Summary {
    let sum = |cells: &[AtomicU64]| cells.iter().map(|c| c.load(Relaxed)).sum::<u64>();
    Summary {
        requests: REQUESTS.iter().map(|r| sum(r)).sum(),
        errors: REQUESTS.iter().map(|r| r[4].load(Relaxed)).sum(),
        refused: sum(&REFUSED),
        queued: queue_depth(),
        busy: BUSY.load(Relaxed).max(0),
        connections: CONNECTIONS.load(Relaxed).max(0),
        logins_ok: LOGINS_OK.load(Relaxed),
        logins_failed: LOGINS_FAILED.load(Relaxed),
        access_tokens: TOKENS_ISSUED[0].load(Relaxed),
        reloads: RELOADS.load(Relaxed),
    }
}

mod text;
pub use text::{render, Gauge};
