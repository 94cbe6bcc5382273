//! `/portalStatus`, the health path and `/metrics`: closed by default (loopback), opened by
//! `statusAllowFrom` / `metricsAllowFrom`; the metrics parsed by prometheus_client's reference
//! parser and moving with what the test does; the health path turning 503 while a session
//! store is unreachable (a File store whose folder went away, a REST store whose server is
//! down) and 200 when it is back.
use super::common::hostile::request_from;
use super::common::sessions::{builder, rest_node_of};
use super::common::{Portal, Resp};
use serde_json::{json, Value};

fn get(p: &Portal, from: &str, path: &str, headers: &str) -> Resp {
    request_from(from, p.port, "GET", path, headers, b"").unwrap()
}

/// Every sample of `/metrics`, as prometheus_client parsed them.
pub fn scrape(p: &Portal) -> Vec<Value> {
    let r = p.client().get("/metrics", &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/console/metrics_parse.py"
    );
    let mut child = std::process::Command::new(super::python::python())
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the tests' python3 starts");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(r.text().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "prometheus_client refused the exposition: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        r.text()
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The value of the sample `name` whose labels include `labels` (0 when absent).
pub fn sample(samples: &[Value], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|s| s["name"] == name)
        .find(|s| labels.iter().all(|(k, v)| s["labels"][*k] == *v))
        .and_then(|s| s["value"].as_f64())
        .unwrap_or(0.0)
}

#[test]
fn closed_by_default_and_opened_by_their_rules() {
    // Default: the loopback block, as the REST servers.
    let p = Portal::builder().conf("portalStatus", json!(1)).start();
    for path in ["/portalStatus", "/health", "/metrics"] {
        assert_eq!(get(&p, "127.0.0.2", path, "").status, 200, "{path}");
    }
    drop(p);
    let p = Portal::builder()
        .conf("portalStatus", json!(1))
        .ini("statusAllowFrom = 127.0.0.1")
        .ini("metricsAllowFrom = 127.0.0.1")
        .ini("restUser = prom")
        .ini("restPassword = s3cret")
        .start();
    for path in ["/portalStatus", "/health", "/metrics"] {
        let r = get(&p, "127.0.0.2", path, "");
        assert_eq!(r.status, 403, "{path}: {}", r.text());
        assert!(
            r.json()["error"].as_str().unwrap().contains("AllowFrom"),
            "{}",
            r.text()
        );
    }
    assert_eq!(get(&p, "127.0.0.1", "/health", "").status, 200);
    assert_eq!(get(&p, "127.0.0.1", "/portalStatus", "").status, 200);
    // /metrics wants the REST servers' credentials too; the health path does not.
    assert_eq!(get(&p, "127.0.0.1", "/metrics", "").status, 401);
    let auth = format!(
        "Authorization: Basic {}\r\n",
        super::common::sessions::b64(b"prom:s3cret")
    );
    let r = get(&p, "127.0.0.1", "/metrics", &auth);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r
        .text()
        .contains("# TYPE limette_http_requests_total counter"));
    // Read-only paths.
    let r = request_from("127.0.0.1", p.port, "POST", "/health", "", b"").unwrap();
    assert_eq!(r.status, 405);
}

#[test]
fn portal_status_is_off_unless_configured_and_counts_sso_sessions() {
    let p = Portal::start();
    assert_eq!(p.client().get("/portalStatus", &[]).status, 404);
    drop(p);
    let p = Portal::builder().conf("portalStatus", json!(1)).start();
    assert_eq!(p.client().get_json("/portalStatus").json(), json!({}));
    p.login("dwho");
    p.login("rtyler");
    let r = p.client().get_json("/portalStatus");
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({"storage": {"global": 2}}));
}

#[test]
fn metrics_parse_and_count_what_happened() {
    let p = Portal::start();
    let before = scrape(&p);
    let c = p.client();
    for _ in 0..3 {
        assert_eq!(c.get("/", &[]).status, 200);
    }
    assert_eq!(c.get("/nowhere", &[]).status, 404);
    p.login("dwho");
    let bad = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "wrong")],
        &[("Accept", "application/json")],
    );
    assert_eq!(bad.status, 401);
    let after = scrape(&p);
    let moved = |name: &str, labels: &[(&str, &str)]| {
        sample(&after, name, labels) - sample(&before, name, labels)
    };
    assert!(
        moved(
            "limette_http_requests_total",
            &[("area", "portal"), ("class", "2xx")]
        ) >= 4.0
    );
    assert!(
        moved(
            "limette_http_requests_total",
            &[("area", "other"), ("class", "4xx")]
        ) >= 1.0
    );
    assert_eq!(moved("limette_logins_total", &[("result", "ok")]), 1.0);
    assert_eq!(moved("limette_logins_total", &[("result", "failed")]), 1.0);
    // The histogram: its count follows the requests, its +Inf bucket equals its count.
    let count = sample(
        &after,
        "limette_http_request_duration_seconds_count",
        &[("area", "portal")],
    );
    let inf = sample(
        &after,
        "limette_http_request_duration_seconds_bucket",
        &[("area", "portal"), ("le", "+Inf")],
    );
    assert!(count >= 5.0 && count == inf, "{count} {inf}");
    // The scrape itself was counted; one connection at least is open (this one's).
    assert!(
        moved(
            "limette_http_requests_total",
            &[("area", "status"), ("class", "2xx")]
        ) >= 1.0
    );
    assert!(sample(&after, "limette_connections", &[]) >= 1.0);
    assert_eq!(
        sample(&after, "limette_sessions", &[("kind", "global")]),
        1.0
    );
    assert_eq!(sample(&after, "limette_config_number", &[]), 1.0);
    assert_eq!(
        sample(
            &after,
            "limette_health_check",
            &[("check", "globalStorage")]
        ),
        1.0
    );
    assert!(after.iter().any(|s| s["name"] == "limette_build_info"));
    assert!(after.iter().any(|s| s["name"] == "limette_queue_depth"));
    // A refusal of the reading stage: a body above the cap.
    let big = request_from(
        "127.0.0.1",
        p.port,
        "POST",
        "/",
        "Content-Type: application/x-www-form-urlencoded\r\n",
        &vec![b'a'; 70 * 1024],
    )
    .unwrap();
    assert_eq!(big.status, 413);
    let last = scrape(&p);
    assert_eq!(
        sample(&last, "limette_refused_total", &[("status", "413")])
            - sample(&after, "limette_refused_total", &[("status", "413")]),
        1.0
    );
}

#[test]
fn health_follows_a_file_store_whose_folder_goes_away() {
    let p = Portal::start();
    let r = p.client().get_json("/health");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["status"], "ok");
    assert_eq!(r.json()["checks"]["globalStorage"], "ok");
    let folder = p.data().join("sessions");
    let aside = p.data().join("sessions-aside");
    std::fs::rename(&folder, &aside).unwrap();
    let r = p.client().get_json("/health");
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.json()["status"], "unavailable");
    assert_eq!(r.json()["reason"], "pendingStorage unreachable");
    assert!(
        !r.text().contains(folder.to_str().unwrap()),
        "no path in the answer: {}",
        r.text()
    );
    assert!(
        p.log().contains("health: pendingStorage failed"),
        "{}",
        p.log()
    );
    std::fs::rename(&aside, &folder).unwrap();
    let r = p.client().get_json("/health");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(p.log().contains("health: every check passes again"));
}

#[test]
fn health_follows_a_rest_store_whose_server_goes_down() {
    // A on a port of its choosing; B is configured with the port A reports.
    let a = builder().start();
    let port = a.port;
    let b = rest_node_of(&a, json!({}));
    assert_eq!(b.client().get_json("/health").status, 200);
    let data = a.stop_keep_data();
    let r = b.client().get_json("/health");
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.json()["reason"], "globalStorage unreachable");
    assert_eq!(r.json()["checks"]["pendingStorage"], "ok");
    let _a = builder().port(port).data(data).start();
    let r = b.client().get_json("/health");
    assert_eq!(r.status, 200, "{}", r.text());
}
