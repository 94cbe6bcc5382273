//! Slow bodies from many addresses against a browser whose login body follows its head: 256
//! connections from 16 addresses (127.0.5.1 to 127.0.5.16) each send a login body at just
//! above `bodyMinRate`, reopened as soon as the server ends them, which is twice the reading
//! slots there are (`maxReading`); a user at 127.0.0.1 sends the head of a JSON login, waits
//! 50 ms, then sends its body, as a browser on a slow link does. The slots are shared: the
//! busiest address gives one up to a client holding none, so the user is served.
use crate::common::http::read_response;
use crate::common::{hostile, Portal};
use std::io::{BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Attacking connections, and the addresses they come from.
const CONNS: usize = 256;
const ADDRESSES: usize = 16;
/// A body of 60,000 bytes sent 150 bytes every 100 ms: 1,500 bytes a second, above the
/// default `bodyMinRate` (1,024), so that only `bodyTimeout` ends it.
const BODY: usize = 60_000;
const PIECE: usize = 150;

/// One attacking connection: its socket (None when ended, to be reopened).
struct Slow {
    from: String,
    sock: Option<TcpStream>,
}

impl Slow {
    /// Opens the connection and sends the head, or leaves it closed.
    fn open(&mut self, port: u16) {
        let head = format!(
            "POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {BODY}\r\n\r\n"
        );
        self.sock = hostile::connect_from(&self.from, port)
            .ok()
            .and_then(|mut s| {
                s.write_all(head.as_bytes()).ok()?;
                s.set_nonblocking(true).ok()?;
                Some(s)
            });
    }

    /// Sends one piece; false when the server answered (a refusal) or closed.
    fn feed(&mut self, refused: &AtomicUsize) -> bool {
        let Some(s) = &mut self.sock else {
            return false;
        };
        let mut buf = [0u8; 512];
        match s.read(&mut buf) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Ok(n) if n > 0 => {
                if buf.starts_with(b"HTTP/1.1 503") {
                    refused.fetch_add(1, Ordering::SeqCst);
                }
                return false;
            }
            _ => return false,
        }
        // A part of a piece is as good: only the rate counts.
        match s.write(&[b'a'; PIECE]) {
            Ok(sent) => sent > 0,
            Err(e) => e.kind() == ErrorKind::WouldBlock,
        }
    }
}

/// Runs the attack until `stop`, counting the 503s its connections get.
fn attack(port: u16, stop: Arc<AtomicBool>, refused: Arc<AtomicUsize>) {
    let mut conns: Vec<Slow> = (0..CONNS)
        .map(|i| Slow {
            from: format!("127.0.5.{}", 1 + i % ADDRESSES),
            sock: None,
        })
        .collect();
    while !stop.load(Ordering::SeqCst) {
        let tick = Instant::now();
        for c in &mut conns {
            if !c.feed(&refused) {
                c.open(port);
            }
        }
        // The attack's pace: each connection fed once every 100 ms.
        std::thread::sleep(Duration::from_millis(100).saturating_sub(tick.elapsed()));
    }
}

/// A JSON login whose body follows its head by 50 ms: its status, or None without an answer.
fn split_login(port: u16) -> Option<u16> {
    let body = b"user=dwho&password=dwho";
    let head = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut s = hostile::connect_from("127.0.0.1", port).ok()?;
    s.write_all(head.as_bytes()).ok()?;
    // A login whose head and body arrive apart: the pause is the shape under test.
    std::thread::sleep(Duration::from_millis(50));
    let _ = s.write_all(body);
    read_response(&mut BufReader::new(s), false)
        .ok()
        .map(|r| r.status)
}

#[test]
fn a_split_login_is_served_while_16_addresses_feed_slow_bodies() {
    let p = Portal::start();
    let (stop, refused) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let attacker = {
        let (port, stop, refused) = (p.port, stop.clone(), refused.clone());
        std::thread::spawn(move || attack(port, stop, refused))
    };
    // The attack holds every slot once its surplus connections are turned away.
    let full = hostile::wait_for(Duration::from_secs(20), || {
        refused.load(Ordering::SeqCst) >= 64
    });
    assert!(full, "the attack never filled the reading slots");
    let tries = 40;
    let got: Vec<Option<u16>> = (0..tries).map(|_| split_login(p.port)).collect();
    stop.store(true, Ordering::SeqCst);
    attacker.join().unwrap();
    let served = got.iter().filter(|s| **s == Some(200)).count();
    assert!(
        served * 100 >= tries * 95,
        "{served} of {tries} logins served: {got:?}"
    );
    super::assert_serving(&p);
}
