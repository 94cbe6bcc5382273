//! The house: login answers, SSO cookie, configuration backends and reload, server limits
//! (queue, body size, panics, shutdown, keep-alive, latency, silent clients), CLI errors.
use crate::common;

use common::{Client, Portal, TempDir};
use serde_json::json;
use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

const JSON: (&str, &str) = ("Accept", "application/json");

fn login(c: &Client, user: &str, password: Option<&str>) -> common::Resp {
    let mut f = vec![("user", user)];
    if let Some(p) = password {
        f.push(("password", p));
    }
    c.post_form("/", &f, &[JSON])
}

#[test]
fn login_answers_follow_the_contract() {
    let p = Portal::start();
    let c = p.client();
    let ok = login(&c, "dwho", Some("dwho"));
    assert_eq!(ok.status, 200);
    let id = ok.json()["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 64);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(ok.json(), json!({"result": 1, "error": "0", "id": id}));
    let cookie = ok.header("set-cookie").unwrap();
    assert_eq!(
        cookie,
        format!("lemonldap={id}; path=/; HttpOnly; SameSite=Lax")
    );
    assert!(ok.header("cache-control").unwrap().contains("no-store"));

    let same_on_oauth2 = c.post_form(
        "/oauth2/",
        &[("user", "rtyler"), ("password", "rtyler")],
        &[JSON],
    );
    assert_eq!(same_on_oauth2.status, 200);
    assert_eq!(same_on_oauth2.json()["error"], "0");

    let bad = login(&c, "dwho", Some("nope"));
    assert_eq!(
        (bad.status, bad.json()),
        (401, json!({"result": 0, "error": "5"}))
    );
    assert_eq!(
        bad.header("www-authenticate"),
        Some("SSO http://127.0.0.1:8080/")
    );
    assert!(bad.header("set-cookie").is_none());
    let unknown = login(&c, "nobody", Some("nobody"));
    assert_eq!(
        (unknown.status, unknown.json()),
        (401, json!({"result": 0, "error": "5"}))
    );
    let empty = login(&c, "dwho", Some(""));
    assert_eq!(
        (empty.status, empty.json()),
        (401, json!({"result": 0, "error": "2"}))
    );
    let missing = login(&c, "dwho", None);
    assert_eq!(
        (missing.status, missing.json()),
        (401, json!({"result": 0, "error": "24"}))
    );

    let cookie_hdr = format!("lemonldap={id}");
    let valid = c.get("/", &[JSON, ("Cookie", &cookie_hdr)]);
    assert_eq!(
        (valid.status, valid.json()),
        (200, json!({"result": 1, "error": "0"}))
    );
    let again = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho")],
        &[JSON, ("Cookie", &cookie_hdr)],
    );
    assert_eq!(
        (again.status, again.json()),
        (400, json!({"result": 0, "error": "24"}))
    );
    let none = c.get("/", &[JSON]);
    assert_eq!(
        (none.status, none.json()),
        (401, json!({"result": 0, "error": "9"}))
    );
    let bogus = c.get(
        "/",
        &[JSON, ("Cookie", &format!("lemonldap={}", "ab".repeat(32)))],
    );
    assert_eq!(
        (bogus.status, bogus.json()),
        (401, json!({"result": 0, "error": "1"}))
    );
    assert!(bogus
        .header("set-cookie")
        .unwrap()
        .starts_with("lemonldap=0; path=/; expires=Wed, 21 Oct 2015"));
    let traversal = c.get("/", &[JSON, ("Cookie", "lemonldap=../../../etc/passwd")]);
    assert_eq!(traversal.json(), json!({"result": 0, "error": "1"}));

    let out = c.get("/?logout=1", &[JSON, ("Cookie", &cookie_hdr)]);
    assert_eq!(out.status, 200);
    assert!(out
        .header("set-cookie")
        .unwrap()
        .starts_with("lemonldap=0;"));
    let after = c.get("/", &[JSON, ("Cookie", &cookie_hdr)]);
    assert_eq!(after.json(), json!({"result": 0, "error": "1"}));
}

#[test]
fn sso_session_holds_lemonldap_keys_and_expires() {
    let p = Portal::builder().conf("timeout", json!(3600)).start();
    let id = p.login("dwho");
    let file = p.data().join("sessions").join(&id);
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(s["_session_id"], id.as_str());
    assert_eq!(s["_session_kind"], "SSO");
    assert_eq!(s["_user"], "dwho");
    assert_eq!(s["_whatToTrace"], "dwho");
    assert_eq!(s["_auth"], "Demo");
    assert_eq!(s["cn"], "Doctor Who");
    assert_eq!(s["mail"], "dwho@badwolf.org");
    assert_eq!(s["groups"], "timelords; users");
    assert_eq!(
        s["hGroups"],
        json!({"timelords": {"name": "timelords"}, "users": {"name": "users"}})
    );
    assert_eq!(s["authenticationLevel"], 1);
    assert_eq!(s["ipAddr"], "127.0.0.1");
    assert_eq!(s["_startTime"].as_str().unwrap().len(), 14);
    // Age the session past the timeout: the portal must treat it as expired and delete it.
    let mut old = s.clone();
    old["_utime"] = json!(s["_utime"].as_i64().unwrap() - 7200);
    std::fs::write(&file, serde_json::to_vec(&old).unwrap()).unwrap();
    let r = p
        .client()
        .get("/", &[JSON, ("Cookie", &format!("lemonldap={id}"))]);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "1"}))
    );
    assert!(!file.exists(), "expired session file must be removed");
}

#[test]
fn html_login_needs_the_csrf_token_and_lands_on_the_portal() {
    let p = Portal::start();
    let c = p.client();
    let page = c.get("/", &[]);
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("<form method=\"post\""));
    let token = html
        .split("name=\"token\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let no_token = c.post_form("/", &[("user", "dwho"), ("password", "dwho")], &[]);
    assert!(no_token.text().contains("trmsg=\"81\""));
    assert!(no_token.header("set-cookie").is_none());
    let forged = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho"), ("token", "1.abc")],
        &[],
    );
    assert!(forged.text().contains("trmsg=\"82\""));
    let wrong = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "x"), ("token", &token)],
        &[],
    );
    assert!(wrong.text().contains("trmsg=\"5\""));
    assert!(wrong.text().contains("Wrong username or password"));
    // The token was spent; the page answering carries the next one.
    let token = wrong
        .text()
        .split("name=\"token\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let ok = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho"), ("token", &token)],
        &[],
    );
    // Post/redirect/get: the login answers with a redirect to the landing page.
    assert_eq!(ok.status, 302);
    assert!(ok.header("location").unwrap().ends_with('/'));
    let sid = ok.cookie("lemonldap").unwrap();
    assert!(sid.len() == 64);
    let landing = c.get("/", &[("Cookie", &format!("lemonldap={sid}"))]);
    assert!(landing.text().contains("Doctor Who"));
}

#[test]
fn new_configuration_file_is_in_force_within_five_seconds() {
    let p = Portal::start();
    assert!(p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON])
        .cookie("lemonldap")
        .is_some());
    let mut conf = common::default_conf();
    conf.insert("cfgNum".into(), json!(2));
    conf.insert("cookieName".into(), json!("limettesso"));
    std::fs::write(
        p.data().join("conf/lmConf-2.json"),
        serde_json::to_vec(&conf).unwrap(),
    )
    .unwrap();
    assert!(wait_for(Duration::from_secs(5), || {
        p.client()
            .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON])
            .cookie("limettesso")
            .is_some()
    }));
    // A broken newer configuration is refused and the current one stays.
    std::fs::write(p.data().join("conf/lmConf-3.json"), b"{ not json").unwrap();
    assert!(
        wait_for(Duration::from_secs(10), || p
            .log()
            .contains("configuration 3 rejected")),
        "{}",
        p.log()
    );
    let r = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert!(r.cookie("limettesso").is_some());
    assert!(p.log().contains("configuration 3 rejected"));
}

#[test]
fn sqlite_configuration_backend_serves_and_reloads() {
    let dir = TempDir::new("sqlconf");
    let db = dir.path().join("conf.db");
    let store = limette::storage::sqlite::conf::SqliteConf::open(&db, "lmConfig").unwrap();
    use limette::storage::ConfStore;
    let mut conf = common::default_conf();
    conf.insert("cookieName".into(), json!("sqlsso"));
    assert_eq!(store.save(&conf).unwrap(), 1);
    let p = Portal::builder()
        .ini_configuration(&format!(
            "type = SQLite\ndbiChain = dbi:SQLite:dbname={}",
            db.display()
        ))
        .start();
    let r = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert!(r.cookie("sqlsso").is_some(), "{:?}", r.headers);
    conf.insert("cookieName".into(), json!("sqlsso2"));
    assert_eq!(store.save(&conf).unwrap(), 2);
    assert!(wait_for(Duration::from_secs(5), || {
        p.client()
            .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON])
            .cookie("sqlsso2")
            .is_some()
    }));
}

#[test]
fn full_queue_answers_503_and_recovers() {
    let p = Portal::builder()
        .test_hooks()
        .arg("-t")
        .arg("1")
        .ini("queue = 1")
        .start();
    let port = p.port;
    let handles: Vec<_> = (0..6)
        .map(|_| std::thread::spawn(move || Client::new(port).get("/__test/sleep?ms=800", &[JSON])))
        .collect();
    let statuses: Vec<u16> = handles
        .into_iter()
        .map(|h| h.join().unwrap().status)
        .collect();
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(statuses.contains(&503), "{statuses:?}");
    let busy = statuses.iter().filter(|s| **s == 503).count();
    assert!(busy >= 3, "{statuses:?}");
    assert_eq!(
        p.client().get("/", &[JSON]).status,
        401,
        "serves again once the queue drains"
    );
}

#[test]
fn body_limit_gives_413() {
    let p = Portal::builder().ini("maxBodySize = 1024").start();
    let c = p.client();
    let big = vec![b'a'; 4096];
    let r = c.send(
        "POST",
        "/",
        &[JSON, ("Content-Type", "application/x-www-form-urlencoded")],
        &big,
    );
    assert_eq!(r.status, 413);
    assert_eq!(r.json(), json!({"error": "Request body too large"}));
    // An absurd announced length is refused at once, without waiting for the body.
    let mut s = TcpStream::connect(("127.0.0.1", p.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Length: 99999999999999\r\n\r\n").unwrap();
    let mut status_line = String::new();
    std::io::BufRead::read_line(&mut BufReader::new(s), &mut status_line).unwrap();
    // The body is never sent: only a refusal before it can answer within the read timeout.
    assert!(status_line.starts_with("HTTP/1.1 413"), "{status_line}");
    // A large but plausible one is answered before its body is drained.
    let mut s = TcpStream::connect(("127.0.0.1", p.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Length: 99999999\r\n\r\n").unwrap();
    let r = common::http::read_response(&mut BufReader::new(s), false).unwrap();
    assert_eq!(r.status, 413);
    assert_eq!(c.get("/", &[JSON]).status, 401, "still serving");
}

#[test]
fn a_panicking_handler_gives_500_and_the_worker_lives_on() {
    let p = Portal::builder().test_hooks().arg("-t").arg("1").start();
    let c = p.client();
    for _ in 0..3 {
        let r = c.get("/__test/panic", &[JSON]);
        assert_eq!(r.status, 500);
        assert_eq!(r.json(), json!({"error": "Internal error"}));
    }
    assert_eq!(c.get("/", &[JSON]).status, 401);
    assert!(p.log().contains("handler panicked"));
}

#[test]
fn sigterm_finishes_in_flight_requests_and_exits_0() {
    let mut p = Portal::builder().test_hooks().start();
    let port = p.port;
    assert!(wait_for(Duration::from_secs(3), || p
        .log()
        .contains("[notice]")));
    let idle = workers_busy(&p);
    let slow = std::thread::spawn(move || Client::new(port).get("/__test/sleep?ms=700", &[JSON]));
    // The slow request has reached a worker when /metrics counts one more busy.
    assert!(
        wait_for(Duration::from_secs(3), || workers_busy(&p) > idle),
        "the slow request never reached a worker"
    );
    assert_eq!(p.terminate(), Some(0));
    assert_eq!(slow.join().unwrap().status, 200);
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "no longer listening"
    );
}

#[test]
fn sixty_four_keep_alive_clients_are_all_served() {
    let p = Portal::builder().test_hooks().start();
    let port = p.port;
    let handles: Vec<_> = (0..64)
        .map(|_| {
            std::thread::spawn(move || {
                let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                let mut w = s.try_clone().unwrap();
                let mut r = BufReader::new(s);
                let mut served = 0;
                for _ in 0..30 {
                    if w.write_all(b"GET /static/limette.css HTTP/1.1\r\nHost: x\r\n\r\n")
                        .is_err()
                    {
                        break;
                    }
                    let Ok(resp) = common::http::read_response(&mut r, false) else {
                        break;
                    };
                    assert_eq!(resp.status, 200);
                    served += 1;
                    if resp.header("connection") == Some("close") {
                        // The server rotates connections; open a new one and go on.
                        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                        w = s.try_clone().unwrap();
                        r = BufReader::new(s);
                    }
                }
                served
            })
        })
        .collect();
    let served: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(served.iter().all(|n| *n == 30), "{served:?}");
}

#[test]
fn a_silent_client_does_not_hold_the_server() {
    let p = Portal::builder()
        .ini("idleTimeout = 1")
        .arg("-t")
        .arg("1")
        .start();
    let mut silent = TcpStream::connect(("127.0.0.1", p.port)).unwrap();
    let mut half = TcpStream::connect(("127.0.0.1", p.port)).unwrap();
    half.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap(); // headers never finished
                                                               // The single worker still serves others (the client's read timeout detects a hang).
    assert_eq!(p.client().get("/", &[JSON]).status, 401);
    // Closed means the socket says so (end of stream or a reset) before our 5 s read timeout
    // runs out, not merely that some time has passed.
    for (what, conn) in [
        ("silent connection", &mut silent),
        ("half-sent request", &mut half),
    ] {
        conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut rest = Vec::new();
        if let Err(e) = conn.read_to_end(&mut rest) {
            let open = matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            );
            assert!(!open, "{what} not closed by the server: {e}");
        }
    }
}

#[test]
fn bad_command_lines_and_configurations_exit_2_with_one_clear_line() {
    let run = |args: &[&str]| {
        let out = Command::new(common::bin()).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["--nope"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("nope"));
    let (code, err) = run(&["-t", "zero"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--threads"));
    let (code, err) = run(&["-c", "/nonexistent/limette.ini"]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("limette: /nonexistent/limette.ini: "),
        "{err}"
    );
    let dir = TempDir::new("badini");
    let ini = dir.path().join("bad.ini");
    std::fs::write(&ini, "[configuration]\ntype = Foo\n").unwrap();
    let (code, err) = run(&[
        "-c",
        ini.to_str().unwrap(),
        "--data",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains(
            "bad.ini: type: Foo is not supported (supported: File, RDBI, CDBI, SQLite, REST)"
        ),
        "{err}"
    );
    std::fs::write(
        &ini,
        "[configuration]\ntype = File\ndirName = /x\n[portal]\nthreads = many\n",
    )
    .unwrap();
    let (code, err) = run(&["-c", ini.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("bad.ini: threads: line 5: expected a number"),
        "{err}"
    );
    let conf_dir = dir.path().join("conf");
    std::fs::create_dir_all(&conf_dir).unwrap();
    std::fs::write(
        conf_dir.join("lmConf-1.json"),
        br#"{"cfgNum":1,"portal":"ftp://x"}"#,
    )
    .unwrap();
    std::fs::write(
        &ini,
        format!(
            "[configuration]\ntype = File\ndirName = {}\n",
            conf_dir.display()
        ),
    )
    .unwrap();
    let (code, err) = run(&[
        "-c",
        ini.to_str().unwrap(),
        "--data",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("lmConf-1: portal: not an http URL"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, out) = {
        let o = Command::new(common::bin()).arg("-V").output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    assert_eq!(code, Some(0));
    assert!(out.starts_with("limette "));
}

#[test]
fn unknown_paths_and_methods() {
    let p = Portal::start();
    let c = p.client();
    let r = c.get("/nope", &[JSON]);
    assert_eq!((r.status, r.json()), (404, json!({"error": "Not found"})));
    let r = c.get("/nope", &[]);
    assert_eq!(r.status, 404);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    let r = c.send("DELETE", "/", &[JSON], b"");
    assert_eq!(r.status, 405);
    let css = c.get("/static/limette.css", &[]);
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
}

/// `limette_workers_busy` as `/metrics` reports it (loopback may read it by default); a
/// worker answering the metrics request itself counts too, the same on every read.
fn workers_busy(p: &Portal) -> i64 {
    let text = p.client().get("/metrics", &[]).text();
    text.lines()
        .find_map(|l| l.strip_prefix("limette_workers_busy "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no limette_workers_busy in {text}"))
}

fn wait_for(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}
