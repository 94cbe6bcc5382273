//! `request_uri` aimed at a listener that never answers, as an attacker would: sixteen
//! connections from 127.0.0.2 to 127.0.0.17 ask `/oauth2/authorize` again and again to fetch
//! it, while a logged-in user at 127.0.0.1 is timed. A fetch runs on the fetchers, never on a
//! worker: the user's answers stay fast, and what the fetchers cannot take is refused at once.
use crate::common::oidc::{self, enc, param, rp, CB};
use crate::common::{hostile, Portal};
use serde_json::json;
use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A listener that accepts and never answers (its connections are kept open); its base URL
/// and how many connections it holds.
fn silent() -> (String, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let held = Arc::new(Mutex::new(Vec::<TcpStream>::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            c.fetch_add(1, Ordering::SeqCst);
            held.lock().unwrap().push(s);
        }
    });
    (format!("http://127.0.0.1:{port}"), count)
}

/// A portal (default workers) whose RP `app` may fetch request objects from `base`.
fn portal(base: &str, ini: &[&str]) -> Portal {
    let mut b = oidc::builder(&[(
        "app",
        rp("app", json!({"RequestUris": format!("{base}/*")})),
    )]);
    for line in ini {
        b = b.ini(line);
    }
    b.start()
}

/// The authorize request that makes the portal fetch `base`'s silent URL.
fn attack_request(base: &str) -> Vec<u8> {
    let q = format!(
        "client_id=app&response_type=code&scope=openid&redirect_uri={}&request_uri={}",
        enc(CB),
        enc(&format!("{base}/req"))
    );
    format!("GET /oauth2/authorize?{q} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").into_bytes()
}

/// One hostile connection from `from`, asking again as soon as it is answered, until `stop`.
fn attacker(from: String, port: u16, req: Vec<u8>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        let Ok(s) = hostile::connect_from(&from, port) else {
            continue;
        };
        let mut w = s.try_clone().unwrap();
        let mut r = BufReader::new(s);
        while !stop.load(Ordering::SeqCst) {
            if w.write_all(&req).is_err() {
                break;
            }
            if crate::common::http::read_response(&mut r, false).is_err() {
                break;
            }
        }
    }
}

#[test]
fn sixteen_connections_at_a_silent_request_uri_leave_a_user_p99_under_100_ms() {
    let (base, held) = silent();
    let p = portal(&base, &[]);
    let sid = p.login("dwho");
    let stop = Arc::new(AtomicBool::new(false));
    let attackers: Vec<_> = (2..18)
        .map(|i| {
            let (from, port, req, stop) = (
                format!("127.0.0.{i}"),
                p.port,
                attack_request(&base),
                stop.clone(),
            );
            std::thread::spawn(move || attacker(from, port, req, stop))
        })
        .collect();
    // The attack is under way once the silent listener holds fetches.
    assert!(hostile::wait_for(Duration::from_secs(10), || held
        .load(Ordering::SeqCst)
        >= 2));
    // 200 requests, or as many as 30 s allow (a held worker makes each wait seconds).
    let head = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nCookie: lemonldap={sid}\r\nConnection: close\r\n\r\n"
    );
    let begun = Instant::now();
    let mut times: Vec<Duration> = Vec::new();
    while times.len() < 200 && begun.elapsed() < Duration::from_secs(30) {
        let t0 = Instant::now();
        let r = hostile::raw(p.port, head.as_bytes());
        times.push(t0.elapsed());
        let r = r.expect("the user is answered");
        assert_eq!(r.status, 200, "{}", r.text());
    }
    stop.store(true, Ordering::SeqCst);
    times.sort();
    let p50 = times[times.len() / 2];
    let p99 = times[(times.len() * 99 / 100).min(times.len() - 1)];
    eprintln!("user under attack: p50 {p50:?}, p99 {p99:?}");
    assert!(p99 < Duration::from_millis(100), "p50 {p50:?}, p99 {p99:?}");
    for a in attackers {
        let _ = a.join();
    }
}

#[test]
fn a_client_over_its_share_of_fetchers_is_refused_at_once() {
    let (base, held) = silent();
    let p = portal(&base, &["fetchesPerClient = 1"]);
    let req = attack_request(&base);
    // The first holds the client's one fetch (the silent listener has it)...
    let mut first = hostile::connect_from("127.0.0.2", p.port).unwrap();
    first.write_all(&req).unwrap();
    assert!(hostile::wait_for(Duration::from_secs(5), || held
        .load(Ordering::SeqCst)
        == 1));
    // ...the second is refused at once, to the client with temporarily_unavailable.
    let t0 = Instant::now();
    let r = hostile::raw_from("127.0.0.3", p.port, &req).expect("an answer");
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    let loc = r.header("location").unwrap();
    assert_eq!(
        param(loc, "error").as_deref(),
        Some("temporarily_unavailable")
    );
    // The first is answered when its fetch gives up (2 s).
    let r = crate::common::http::read_response(&mut BufReader::new(first), false).unwrap();
    let loc = r.header("location").unwrap();
    assert_eq!(param(loc, "error").as_deref(), Some("invalid_request_uri"));
}
