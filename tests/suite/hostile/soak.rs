//! The short version of `make soak`'s hostile scenario: attackers at 127.0.0.2 and 127.0.0.3
//! hold slow-body, slow-header and idle connections (reopened when the server ends them)
//! while a user at 127.0.0.1 logs in, runs the code flow and reads its session for a few
//! seconds. Every step of the user must be answered as usual; how fast is `make soak`'s
//! business (bench/hostile.sh), not this test's.
use crate::common::oidc;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SLOW_BODY: &[u8] =
    b"POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n";
const SLOW_HEADER: &[u8] = b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n";
const IDLE: &[u8] = b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n\r\n";

/// One attacker address: its connections dribble every 200 ms; a connection the server
/// answered or closed is opened again. Counts the connections it opened.
fn attack(from: &'static str, port: u16, stop: Arc<AtomicBool>, opened: Arc<AtomicUsize>) {
    let kinds: Vec<&[u8]> = [(SLOW_BODY, 5), (SLOW_HEADER, 20), (IDLE, 30)]
        .iter()
        .flat_map(|(k, n)| std::iter::repeat(*k).take(*n))
        .collect();
    let open = |head: &[u8]| -> Option<TcpStream> {
        let mut s = crate::common::hostile::connect_from(from, port).ok()?;
        s.write_all(head).ok()?;
        s.set_nonblocking(true).ok()?;
        opened.fetch_add(1, Ordering::SeqCst);
        Some(s)
    };
    let mut conns: Vec<Option<TcpStream>> = kinds.iter().map(|k| open(k)).collect();
    while !stop.load(Ordering::SeqCst) {
        for (slot, kind) in conns.iter_mut().zip(&kinds) {
            let alive = slot.as_mut().is_some_and(|s| {
                let mut buf = [0u8; 4096];
                let ended = match s.read(&mut buf) {
                    Ok(n) => n == 0 || *kind != IDLE,
                    Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
                };
                let dribble: &[u8] = if *kind == SLOW_BODY {
                    b"a"
                } else {
                    b"X-Slow: a\r\n"
                };
                !ended && (*kind == IDLE || s.write(dribble).is_ok())
            });
            if !alive {
                *slot = open(kind);
            }
        }
        // The attackers' pace: each slot fed every 200 ms.
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_user_is_answered_throughout_a_short_hostile_soak() {
    let p = oidc::builder(&[("rp1", oidc::rp("rp1", serde_json::json!({})))])
        .conf("restSessionServer", serde_json::json!(1))
        .ini("headerTimeout = 1")
        .ini("idleTimeout = 2")
        .arg("-t")
        .arg("2")
        .start();
    let stop = Arc::new(AtomicBool::new(false));
    let opened = Arc::new(AtomicUsize::new(0));
    let attackers: Vec<_> = ["127.0.0.2", "127.0.0.3"]
        .into_iter()
        .map(|from| {
            let (port, stop, opened) = (p.port, stop.clone(), opened.clone());
            std::thread::spawn(move || attack(from, port, stop, opened))
        })
        .collect();
    assert!(
        crate::common::hostile::wait_for(Duration::from_secs(10), || opened.load(Ordering::SeqCst)
            >= 110),
        "the attack did not get in place"
    );
    let until = Instant::now() + Duration::from_secs(4);
    let mut rounds = 0;
    while Instant::now() < until {
        let sid = p.login("dwho");
        let code = oidc::code(&p, &sid, "rp1", "");
        let t = oidc::redeem(&p, "rp1", &code);
        assert_eq!(t.status, 200, "{}", t.text());
        let r = p.client().get_json(&format!("/sessions/global/{sid}"));
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["uid"], "dwho");
        rounds += 1;
    }
    stop.store(true, Ordering::SeqCst);
    for a in attackers {
        a.join().unwrap();
    }
    assert!(rounds > 0);
    // The attack was met: slow ones were cut off and reopened while the user was served.
    assert!(opened.load(Ordering::SeqCst) > 110, "nothing was reopened");
}
