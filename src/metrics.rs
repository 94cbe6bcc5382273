//! The node's counters, for `/metrics` (Prometheus text exposition format 0.0.4), the console's
//! status page and `/portalStatus`: plain atomics in statics, so that counting costs a relaxed
//! add on the request path and no lock. The server counts requests (by area and status class,
//! with their handling time in a histogram), the reading stage's refusals, its queue and its
//! connections; the areas count logins, tokens and configuration reloads. What is only known
//! by asking a store (sessions, store health) is measured when a scrape asks, by the status
//! area, and handed to [`render`] as extra families.
//!
//! This file owns the names and the text format; it knows no HTTP type and no store.
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

/// A gauge family measured at scrape time: name, help, and its samples (labels, value).
pub struct Gauge {
    /// The family's name.
    pub name: &'static str,
    /// Its `# HELP` text.
    pub help: &'static str,
    /// `(labels, value)`: labels as `(name, value)` pairs.
    pub samples: Vec<(Vec<(&'static str, String)>, f64)>,
}

/// The whole exposition: the counters, then the families measured for this scrape.
pub fn render(version: &str, extra: &[Gauge]) -> String {
    let mut out = String::with_capacity(16 * 1024);
    family(
        &mut out,
        "limette_build_info",
        "gauge",
        "The running version.",
    );
    let _ = writeln!(
        out,
        "limette_build_info{{version=\"{}\"}} 1",
        escape(version)
    );
    if let Some((_, wall)) = STARTED.get() {
        let t = wall.duration_since(UNIX_EPOCH).unwrap_or_default();
        family(
            &mut out,
            "process_start_time_seconds",
            "gauge",
            "When the node started, in seconds since the epoch.",
        );
        let _ = writeln!(out, "process_start_time_seconds {}", t.as_secs());
    }
    requests(&mut out);
    latencies(&mut out);
    refusals(&mut out);
    let gauges = [
        (
            "limette_queue_depth",
            "Requests waiting for a worker.",
            queue_depth(),
        ),
        (
            "limette_workers_busy",
            "Requests a worker is answering.",
            BUSY.load(Relaxed).max(0),
        ),
        (
            "limette_connections",
            "Open client connections.",
            CONNECTIONS.load(Relaxed).max(0),
        ),
    ];
    for (name, help, v) in gauges {
        family(&mut out, name, "gauge", help);
        let _ = writeln!(out, "{name} {v}");
    }
    family(
        &mut out,
        "limette_logins_total",
        "counter",
        "Logins checked, by result.",
    );
    let _ = writeln!(
        out,
        "limette_logins_total{{result=\"ok\"}} {}",
        LOGINS_OK.load(Relaxed)
    );
    let _ = writeln!(
        out,
        "limette_logins_total{{result=\"failed\"}} {}",
        LOGINS_FAILED.load(Relaxed)
    );
    family(
        &mut out,
        "limette_tokens_issued_total",
        "counter",
        "Tokens the OpenID Connect provider issued, by type.",
    );
    for ((_, name), c) in TOKENS.iter().zip(&TOKENS_ISSUED) {
        let _ = writeln!(
            out,
            "limette_tokens_issued_total{{type=\"{name}\"}} {}",
            c.load(Relaxed)
        );
    }
    family(
        &mut out,
        "limette_config_reloads_total",
        "counter",
        "Newer configurations put in force since the start.",
    );
    let _ = writeln!(
        out,
        "limette_config_reloads_total {}",
        RELOADS.load(Relaxed)
    );
    for g in extra {
        family(&mut out, g.name, "gauge", g.help);
        for (labels, v) in &g.samples {
            let _ = writeln!(out, "{}{} {}", g.name, label_set(labels), number(*v));
        }
    }
    out
}

fn requests(out: &mut String) {
    family(
        out,
        "limette_http_requests_total",
        "counter",
        "Requests answered, by area and status class.",
    );
    for ((_, area), row) in AREAS.iter().zip(&REQUESTS) {
        for (i, c) in row.iter().enumerate() {
            let n = c.load(Relaxed);
            if n > 0 {
                let _ = writeln!(
                    out,
                    "limette_http_requests_total{{area=\"{area}\",class=\"{}xx\"}} {n}",
                    i + 1
                );
            }
        }
    }
}

fn latencies(out: &mut String) {
    let name = "limette_http_request_duration_seconds";
    family(
        out,
        name,
        "histogram",
        "Time the workers took to answer, by area.",
    );
    for (a, (_, area)) in AREAS.iter().enumerate() {
        let (Some(row), Some(sum)) = (LATENCY.get(a), LATENCY_SUM_US.get(a)) else {
            continue;
        };
        let counts: Vec<u64> = row.iter().map(|c| c.load(Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            continue;
        }
        let mut cumulative = 0;
        for (i, n) in counts.iter().enumerate() {
            cumulative += n;
            let le = BUCKETS
                .get(i)
                .map_or_else(|| "+Inf".to_string(), |b| number(*b));
            let _ = writeln!(
                out,
                "{name}_bucket{{area=\"{area}\",le=\"{le}\"}} {cumulative}"
            );
        }
        let secs = sum.load(Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum{{area=\"{area}\"}} {}", number(secs));
        let _ = writeln!(out, "{name}_count{{area=\"{area}\"}} {cumulative}");
    }
}

fn refusals(out: &mut String) {
    family(
        out,
        "limette_refused_total",
        "counter",
        "Requests the reading stage refused at its caps and deadlines, by status.",
    );
    for (i, c) in REFUSED.iter().enumerate() {
        let status = REFUSALS
            .get(i)
            .map_or_else(|| "other".to_string(), u16::to_string);
        let _ = writeln!(
            out,
            "limette_refused_total{{status=\"{status}\"}} {}",
            c.load(Relaxed)
        );
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn label_set(labels: &[(&str, String)]) -> String {
    if labels.is_empty() {
        return String::new();
    }
    let inner: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect();
    format!("{{{}}}", inner.join(","))
}

/// A label value escaped as the text format wants: backslash, double quote and line feed.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A sample value: integers without a fraction, others as Rust prints them (which the
/// format's float syntax accepts).
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_show_in_the_exposition() {
        mark_start();
        request(Area::Status, 200, Duration::from_millis(3));
        request(Area::Status, 503, Duration::from_secs(20));
        refused(413);
        refused(999);
        login(false);
        token(Token::Refresh);
        let text = render(
            "1.2.3",
            &[Gauge {
                name: "limette_sessions",
                help: "SSO sessions.",
                samples: vec![(vec![("kind", "a\"b".into())], 4.0)],
            }],
        );
        assert!(text.contains("limette_build_info{version=\"1.2.3\"} 1"));
        assert!(text.contains("limette_http_requests_total{area=\"status\",class=\"2xx\"}"));
        assert!(text.contains(
            "limette_http_request_duration_seconds_bucket{area=\"status\",le=\"0.005\"}"
        ));
        assert!(text
            .contains("limette_http_request_duration_seconds_bucket{area=\"status\",le=\"+Inf\"}"));
        assert!(text.contains("limette_refused_total{status=\"413\"}"));
        assert!(text.contains("limette_refused_total{status=\"other\"}"));
        assert!(text.contains("limette_sessions{kind=\"a\\\"b\"} 4"));
        assert!(text.ends_with('\n'));
        for line in text.lines() {
            assert!(!line.is_empty(), "no blank line");
        }
    }

    #[test]
    fn buckets_are_cumulative_and_end_with_the_count() {
        let before = summary().requests;
        request(Area::Manager, 200, Duration::from_micros(10));
        request(Area::Manager, 302, Duration::from_millis(200));
        assert!(summary().requests >= before + 2);
        let text = render("x", &[]);
        let get = |le: &str| -> u64 {
            let key = format!(
                "limette_http_request_duration_seconds_bucket{{area=\"manager\",le=\"{le}\"}} "
            );
            let line = text.lines().find(|l| l.starts_with(&key)).unwrap();
            line[key.len()..].parse().unwrap()
        };
        assert!(get("0.001") >= 1);
        assert!(get("0.25") > get("0.001"));
        assert_eq!(get("+Inf"), get("10"));
    }

    #[test]
    fn numbers_and_escapes() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    }
}
