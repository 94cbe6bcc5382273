//! The outbound guard as an attacker meets it: a relying party's `request_uri` or back-channel
//! logout URL that points at the portal's own machine. Without `outboundAllowTo` the portal
//! refuses loopback before connecting (the listener sees no connection, by address or by a
//! name that resolves to it); and whatever the target does (refused by the guard, a closed
//! port, a listener that never answers, a 404) the client gets the same answer, the detail
//! going to the log only. Private addresses are never tried here: the resolver step is tested
//! with names mapped to them in the unit tests (`upstream::guard`).
use crate::common::oidc::*;
use crate::common::Portal;
use serde_json::json;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A listener that counts the connections it gets and answers each with `reply` (none: it
/// holds them open and never answers).
struct Target {
    port: u16,
    seen: Arc<Mutex<usize>>,
}

impl Target {
    fn start(reply: Option<&'static str>) -> Target {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(0));
        let count = seen.clone();
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            for mut s in l.incoming().flatten() {
                *count.lock().unwrap() += 1;
                match reply {
                    Some(r) => {
                        let mut buf = [0u8; 4096];
                        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
                        let _ = s.read(&mut buf);
                        let _ = s.write_all(r.as_bytes());
                    }
                    None => held.push(s),
                }
            }
        });
        Target { port, seen }
    }

    fn seen(&self) -> usize {
        *self.seen.lock().unwrap()
    }
}

/// A port where nothing listens: connections are refused.
fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

const NOT_FOUND: &str = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
const OK_JWT: &str = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\na.b.c";

/// RP `app`, whose `RequestUris` covers every http URL (as a careless or self-registered
/// client's would).
fn app() -> Vec<(&'static str, serde_json::Value)> {
    vec![("app", rp("app", json!({"RequestUris": "http://*"})))]
}

/// The authorization request with `request_uri` = `uri`: the `Location` of the answer.
fn refused_with(p: &Portal, sid: &str, uri: &str) -> String {
    let q = format!(
        "client_id=app&response_type=code&scope=openid&redirect_uri={}&state=s&request_uri={}",
        enc(CB),
        enc(uri)
    );
    let r = authorize(p, Some(sid), &q, &[]);
    assert_eq!(r.status, 302, "{uri}: {}", r.text());
    let loc = r.header("location").unwrap().to_string();
    assert_eq!(
        param(&loc, "error").as_deref(),
        Some("invalid_request_uri"),
        "{uri}: {loc}"
    );
    loc
}

#[test]
fn a_request_uri_on_loopback_is_refused_before_any_connection() {
    let listener = Target::start(Some(OK_JWT));
    let p = builder_guarded(&app()).start();
    let sid = p.login("dwho");
    let port = listener.port;
    let uris = [
        format!("http://127.0.0.1:{port}/req"),
        format!("http://127.0.0.2:{port}/req"),
        format!("http://localhost:{port}/req"),
        format!("http://[::ffff:127.0.0.1]:{port}/req"),
        format!("http://0.0.0.0:{port}/req"),
    ];
    let first = refused_with(&p, &sid, &uris[0]);
    for uri in &uris[1..] {
        assert_eq!(refused_with(&p, &sid, uri), first, "{uri}");
    }
    assert_eq!(listener.seen(), 0, "the guard let a connection through");
    let log = p.log();
    assert!(
        log.contains("refused by the outbound guard (outboundAllowTo)"),
        "{log}"
    );
}

#[test]
fn the_client_cannot_tell_what_the_target_did() {
    let (silent, missing, unused) = (
        Target::start(None),
        Target::start(Some(NOT_FOUND)),
        Target::start(Some(OK_JWT)),
    );
    let guarded = builder_guarded(&app()).start();
    let open = builder(&app()).start();
    let (gsid, osid) = (guarded.login("dwho"), open.login("dwho"));
    let by_guard = refused_with(
        &guarded,
        &gsid,
        &format!("http://127.0.0.1:{}/r", unused.port),
    );
    let answers = [
        format!("http://127.0.0.1:{}/r", closed_port()),
        format!("http://127.0.0.1:{}/r", silent.port),
        format!("http://127.0.0.1:{}/r", missing.port),
    ]
    .map(|u| refused_with(&open, &osid, &u));
    for a in &answers {
        assert_eq!(a, &by_guard, "the answers differ");
    }
    assert_eq!(unused.seen(), 0);
    assert!(
        silent.seen() >= 1 && missing.seen() >= 1,
        "allowed targets are reached"
    );
    // The detail is in the log, and only there.
    let log = open.log();
    assert!(log.contains("answered 404"), "{log}");
    for a in &answers {
        assert!(!a.contains("404") && !a.contains("refused") && !a.contains("timed"));
    }
}

#[test]
fn a_back_channel_logout_url_on_loopback_is_not_posted_to() {
    let listener = Target::start(Some(NOT_FOUND));
    let url = format!("http://127.0.0.1:{}/bc", listener.port);
    let rps = [(
        "back",
        rp("back", json!({"LogoutUrl": url, "LogoutType": "back"})),
    )];
    let p = builder_guarded(&rps).start();
    let id = p.login("dwho");
    let r = redeem(&p, "back", &code(&p, &id, "back", ""));
    assert_eq!(r.status, 200, "{}", r.text());
    let h = [
        ("Accept", "application/json"),
        ("Cookie", &*format!("lemonldap={id}")),
    ];
    assert_eq!(
        p.client().send("DELETE", "/session/my", &h, b"").status,
        200
    );
    let until = Instant::now() + Duration::from_secs(5);
    let log = loop {
        let log = p.log();
        if log.contains("back-channel logout of relying party back failed") {
            break log;
        }
        assert!(Instant::now() < until, "no failure logged: {log}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(log.contains("refused by the outbound guard"), "{log}");
    assert_eq!(listener.seen(), 0, "the guard let a connection through");
    // The listener really listens: a plain connection reaches it.
    let mut s = TcpStream::connect(("127.0.0.1", listener.port)).unwrap();
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut answer = String::new();
    match s.read_to_string(&mut answer) {
        Ok(_) => assert!(answer.starts_with("HTTP/1.1 404")),
        Err(e) => assert_ne!(e.kind(), ErrorKind::ConnectionRefused),
    }
    assert_eq!(listener.seen(), 1);
}

#[test]
fn an_allow_list_that_does_not_parse_stops_the_start() {
    let dir = crate::common::TempDir::new("outbound");
    let ini = dir.path().join("limette.ini");
    for (bad, shown) in [
        ("10.0.0.0/33", "10.0.0.0/33"),
        ("127.0.0.1 intranet", "intranet"),
    ] {
        std::fs::write(
            &ini,
            format!("[configuration]\ntype = File\ndirName = {}/conf\n[portal]\noutboundAllowTo = {bad}\n",
                dir.path().display()),
        )
        .unwrap();
        let o = crate::common::command(&ini, dir.path(), &["sessions", "list"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("outboundAllowTo") && err.contains(shown),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
