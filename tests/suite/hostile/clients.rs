//! Slow and greedy clients, met as an attacker on the same machine would: slow bodies and slow
//! header blocks on raw sockets, and connections from 127.0.0.2 and 127.0.0.3 for the rules
//! kept per client address, while a user at 127.0.0.1 must still be answered. Read timeouts
//! here only detect a hang; none measures speed.
use crate::common::{hostile, Portal};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Opens a connection from `from` that sends `head` and then a byte a second until `stop`.
fn trickle(
    from: &str,
    port: u16,
    head: &[u8],
    stop: &Arc<AtomicBool>,
) -> (TcpStream, JoinHandle<()>) {
    let mut s = hostile::connect_from(from, port).expect("connect");
    let reader = s.try_clone().unwrap();
    s.write_all(head).unwrap();
    let stop = stop.clone();
    let writer = std::thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) && s.write_all(b"a").is_ok() {
            for _ in 0..10 {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                // The attack: a byte a second, in steps that notice `stop`.
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    });
    (reader, writer)
}

/// The answers on held connections within 6 s, each a status or None for no answer (the
/// server still reading). The server takes its slots as bytes arrive, in no order the client
/// controls: which of the connections is refused is not known, how many is.
fn statuses(readers: Vec<TcpStream>) -> Vec<Option<u16>> {
    let waits: Vec<_> = readers
        .into_iter()
        .map(|s| {
            std::thread::spawn(move || {
                s.set_read_timeout(Some(Duration::from_secs(6))).unwrap();
                let r = crate::common::http::read_response(&mut BufReader::new(s), false);
                r.ok()
                    .map(|r| (r.status, r.header("retry-after") == Some("1")))
            })
        })
        .collect();
    let got: Vec<_> = waits.into_iter().map(|w| w.join().unwrap()).collect();
    assert!(got.iter().flatten().all(|(_, retry)| *retry), "{got:?}");
    got.into_iter().map(|g| g.map(|(s, _)| s)).collect()
}

/// A plain GET from `from` that must be answered 200 (the client's timeout is the hang
/// detector: the slow bodies below would hold a worker for 30 s before this stage).
fn jwks_from(from: &str, port: u16) {
    let mut s = hostile::connect_from(from, port).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let r = crate::common::http::read_response(&mut BufReader::new(s), false)
        .unwrap_or_else(|e| panic!("GET from {from} not answered: {e}"));
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn sixteen_slow_bodies_hold_no_worker_and_a_seventeenth_from_the_same_address_gets_429() {
    let p = Portal::builder()
        .ini("bodyTimeout = 30")
        .ini("bodyMinRate = 0")
        .arg("-t")
        .arg("2")
        .start();
    let stop = Arc::new(AtomicBool::new(false));
    let paths = ["/oauth2/token", "/", "/notifications"];
    let slow: Vec<_> = (0..17)
        .map(|i| {
            let head = format!(
                "POST {} HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n",
                paths[i % 3]
            );
            trickle("127.0.0.2", p.port, head.as_bytes(), &stop)
        })
        .collect();
    for _ in 0..5 {
        jwks_from("127.0.0.1", p.port);
        jwks_from("127.0.0.3", p.port);
    }
    let (readers, writers): (Vec<_>, Vec<_>) = slow.into_iter().unzip();
    let got = statuses(readers);
    // Sixteen are still being read, one (the last to arrive) was refused.
    assert_eq!(got.iter().filter(|s| s.is_none()).count(), 16, "{got:?}");
    assert!(got.contains(&Some(429)), "{got:?}");
    assert!(
        p.log().contains("maxReadingPerAddress reached"),
        "{}",
        p.log()
    );
    stop.store(true, Ordering::SeqCst);
    for w in writers {
        let _ = w.join();
    }
}

#[test]
fn a_slow_body_is_cut_by_the_minimum_rate() {
    let p = Portal::builder()
        .ini("bodyMinRate = 100")
        .ini("bodyTimeout = 60")
        .start();
    let stop = Arc::new(AtomicBool::new(false));
    let head =
        b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Length: 4096\r\n\r\n";
    let (reader, w) = trickle("127.0.0.2", p.port, head, &stop);
    // Well before the 60 s deadline, only the rate can end it.
    let r = crate::common::http::read_response(&mut BufReader::new(reader), false).expect("408");
    assert_eq!(r.status, 408, "{}", r.text());
    stop.store(true, Ordering::SeqCst);
    let _ = w.join();
}

#[test]
fn a_header_block_sent_a_line_at_a_time_gets_408_at_the_header_deadline() {
    let p = Portal::builder()
        .ini("headerTimeout = 1")
        .ini("idleTimeout = 30")
        .start();
    let stop = Arc::new(AtomicBool::new(false));
    let mut s = hostile::connect_from("127.0.0.2", p.port).unwrap();
    let mut writer = s.try_clone().unwrap();
    let stop2 = stop.clone();
    let w = std::thread::spawn(move || {
        let _ = writer.write_all(b"GET / HTTP/1.1\r\n");
        for i in 0..100 {
            if stop2.load(Ordering::SeqCst)
                || writer
                    .write_all(format!("X-{i}: a\r\n").as_bytes())
                    .is_err()
            {
                return;
            }
            // The attack: a header line every 200 ms.
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    // The idle timeout (30 s) and the client's read timeout (10 s) are far off: only the
    // header deadline answers this, and closes.
    let all = hostile::read_until_closed(&mut s).expect("answered and closed");
    let text = String::from_utf8_lossy(&all);
    assert!(text.starts_with("HTTP/1.1 408 Request Timeout"), "{text}");
    stop.store(true, Ordering::SeqCst);
    let _ = w.join();
    // A connection that sends nothing is closed after idleTimeout without a word.
    let p = Portal::builder().ini("idleTimeout = 1").start();
    let mut s = hostile::connect_from("127.0.0.2", p.port).unwrap();
    assert_eq!(hostile::read_until_closed(&mut s).expect("closed"), b"");
}

#[test]
fn connections_per_address_are_capped_without_touching_other_addresses() {
    let p = Portal::builder()
        .ini("maxConnectionsPerAddress = 4")
        .start();
    let held: Vec<TcpStream> = (0..4)
        .map(|_| hostile::connect_from("127.0.0.2", p.port).unwrap())
        .collect();
    let r = hostile::raw_from(
        "127.0.0.2",
        p.port,
        b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .expect("an answer");
    assert_eq!(r.status, 429, "{}", r.text());
    jwks_from("127.0.0.3", p.port);
    jwks_from("127.0.0.1", p.port);
    drop(held);
    assert!(hostile::wait_for(Duration::from_secs(5), || {
        hostile::raw_from(
            "127.0.0.2",
            p.port,
            b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .is_ok_and(|r| r.status == 200)
    }));
}

#[test]
fn at_the_ceiling_the_oldest_idle_connection_makes_room() {
    let p = Portal::builder()
        .ini("maxConnections = 20")
        .ini("maxConnectionsPerAddress = 100")
        .ini("idleTimeout = 30")
        .start();
    let mut idle: Vec<TcpStream> = Vec::new();
    for _ in 0..20 {
        idle.push(hostile::connect_from("127.0.0.2", p.port).unwrap());
        // Each is admitted before the next, so their age order is known. No request can see
        // the admission without taking one of the 20 slots itself, so this waits, briefly.
        std::thread::sleep(Duration::from_millis(20));
    }
    jwks_from("127.0.0.1", p.port);
    let first = hostile::read_until_closed(&mut idle[0]).expect("the oldest idle one is closed");
    assert_eq!(first, b"");
}

#[test]
fn behind_a_trusted_proxy_the_caps_key_on_the_forwarded_client() {
    let p = Portal::builder()
        .ini("trustedProxies = 127.0.0.2")
        .ini("maxConnectionsPerAddress = 2")
        .ini("maxReadingPerAddress = 1")
        .ini("bodyMinRate = 0")
        .start();
    let stop = Arc::new(AtomicBool::new(false));
    // The proxy holds more connections than one address may: it is not one client.
    let _held: Vec<TcpStream> = (0..3)
        .map(|_| hostile::connect_from("127.0.0.2", p.port).unwrap())
        .collect();
    let slow = b"POST / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.7\r\nContent-Length: 4096\r\n\r\n";
    let (r1, w1) = trickle("127.0.0.2", p.port, slow, &stop);
    let (r2, w2) = trickle("127.0.0.2", p.port, slow, &stop);
    // That client may have one request being read: one of these two is refused...
    let got = statuses(vec![r1, r2]);
    assert!(got.contains(&None) && got.contains(&Some(429)), "{got:?}");
    // ...while another client behind the same proxy is served.
    let other = b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.8\r\nConnection: close\r\n\r\n";
    let r = hostile::raw_from("127.0.0.2", p.port, other).expect("an answer");
    assert_eq!(r.status, 200, "{}", r.text());
    // An untrusted peer's X-Forwarded-For is not believed: its own address is capped.
    let _mine: Vec<TcpStream> = (0..2)
        .map(|_| hostile::connect_from("127.0.0.3", p.port).unwrap())
        .collect();
    let r = hostile::raw_from("127.0.0.3", p.port, other).expect("an answer");
    assert_eq!(r.status, 429, "{}", r.text());
    stop.store(true, Ordering::SeqCst);
    let _ = (w1.join(), w2.join());
}
