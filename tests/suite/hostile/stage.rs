//! The reading stage's own protections, met the way an attacker meets them: slow header blocks
//! that must not take the slots others need, anonymous bodies far over what a form needs,
//! clients that stop reading their answers, idle keep-alive connections that must cost no
//! thread, and the framing RFC 9112 asks a server to refuse. Raw sockets, clients bound to
//! their own loopback addresses; read timeouts here only detect a hang.
use super::assert_serving;
use crate::common::{hostile, Portal};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The status of the one answer to `bytes`, which must come with the connection closed.
fn refused_with(port: u16, bytes: &[u8]) -> u16 {
    let mut s = hostile::connect_from("127.0.0.1", port).expect("connect");
    let _ = s.write_all(bytes);
    let all = hostile::read_until_closed(&mut s).expect("answered and closed");
    let text = String::from_utf8_lossy(&all);
    assert_eq!(text.matches("HTTP/1.1 ").count(), 1, "{text}");
    text.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0)
}

#[test]
fn loose_framing_is_refused() {
    let p = Portal::start();
    let after = "GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let cases: [(&str, String); 6] = [
        ("no Host", format!("GET /oauth2/jwks HTTP/1.1\r\n\r\n{after}")),
        ("two Hosts", format!("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n{after}")),
        ("a lone CR first", format!("\rGET / HTTP/1.1\r\nHost: x\r\n\r\n{after}")),
        (
            "a3d 8",
            format!("POST /notifications HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\na3d 8\r\n{after}"),
        ),
        (
            "bare LF after a chunk size",
            format!("POST /notifications HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n{after}"),
        ),
        (
            "bare LF after chunk data",
            format!("POST /notifications HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\n0\r\n\r\n{after}"),
        ),
    ];
    for (what, bytes) in cases {
        assert_eq!(refused_with(p.port, bytes.as_bytes()), 400, "{what}");
    }
    // HTTP/1.0 may leave Host out, and a chunk extension after whitespace is well-formed.
    let r = hostile::raw(p.port, b"GET /oauth2/jwks HTTP/1.0\r\n\r\n").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_serving(&p);
}

#[test]
fn slow_header_blocks_take_no_slot_a_user_needs() {
    // Few slots for reading: before this stage a head took one at its first byte, and 24
    // slow heads left nothing for anyone else.
    let p = Portal::builder()
        .ini("maxReading = 4")
        .ini("headerTimeout = 30")
        .ini("idleTimeout = 30")
        .start();
    let mut slow: Vec<TcpStream> = Vec::new();
    for i in 0..24 {
        let mut s = hostile::connect_from(&format!("127.0.0.{}", 2 + i % 6), p.port).unwrap();
        s.write_all(b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nX-Slow: a\r\n")
            .unwrap();
        slow.push(s);
    }
    for _ in 0..10 {
        let r = hostile::raw_from(
            "127.0.0.1",
            p.port,
            b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .expect("the user is answered");
        assert_eq!(r.status, 200, "{}", r.text());
    }
    // And a login whose body comes with its head needs no slot either.
    let r = hostile::request(
        p.port,
        "POST",
        "/",
        "Accept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\n",
        b"user=dwho&password=dwho",
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    drop(slow);
}

#[test]
fn an_anonymous_body_larger_than_a_form_is_413_before_any_of_it_is_read() {
    let p = Portal::start();
    for path in ["/", "/oauth2/token", "/oauth2/authorize", "/notifback"] {
        // 8 MB announced, none of it sent: the answer comes from the head alone.
        let mut s = hostile::connect_from("127.0.0.2", p.port).unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8388608\r\n\r\n"
        );
        s.write_all(head.as_bytes()).unwrap();
        let all = hostile::read_until_closed(&mut s).expect("answered and closed");
        let text = String::from_utf8_lossy(&all);
        assert!(text.starts_with("HTTP/1.1 413"), "{path}: {text}");
    }
    // Where a body can be large (a REST server, from an address its rule lets in), the
    // configured maximum holds.
    let mut s = hostile::connect_from("127.0.0.1", p.port).unwrap();
    s.write_all(b"POST /sessions/global HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n")
        .unwrap();
    s.write_all(&vec![b'a'; 100_000]).unwrap();
    let all = hostile::read_until_closed(&mut s).expect("answered");
    assert!(
        !all.starts_with(b"HTTP/1.1 413"),
        "{}",
        String::from_utf8_lossy(&all)
    );
}

#[test]
fn a_client_that_stops_reading_its_answers_is_cut_off() {
    let p = Portal::builder()
        .test_hooks()
        .ini("bodyTimeout = 2")
        .ini("bodyMinRate = 1024")
        .ini("idleTimeout = 30")
        .start();
    // A receive buffer of a few KiB, set before connecting so that the window the kernel
    // offers stays that small: once the server cuts the connection, what is still queued on
    // our side is read in seconds. Then answers far larger than that, pipelined.
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let from: std::net::SocketAddr = "127.0.0.2:0".parse().unwrap();
    sock.bind(&from.into()).unwrap();
    let to: std::net::SocketAddr = format!("127.0.0.1:{}", p.port).parse().unwrap();
    sock.connect(&to.into()).unwrap();
    let mut s: TcpStream = sock.into();
    let one = b"GET /__test/big?n=1048576 HTTP/1.1\r\nHost: x\r\n\r\n";
    for _ in 0..8 {
        s.write_all(one).unwrap();
    }
    // Read 1 KiB every 500 ms: far under bodyMinRate. The server ends the connection.
    let t0 = Instant::now();
    let mut buf = [0u8; 1024];
    s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let mut got = 0usize;
    let closed = loop {
        // The attack: a reader far under bodyMinRate.
        std::thread::sleep(Duration::from_millis(500));
        match s.read(&mut buf) {
            Ok(0) => break true,
            Ok(n) => got += n,
            Err(e) if hostile::timed_out(&e) => {}
            Err(_) => break true, // reset: closed too
        }
        if t0.elapsed() > Duration::from_secs(20) {
            break false;
        }
    };
    assert!(closed, "still open after {got} bytes read slowly");
    assert_serving(&p);
}

#[test]
fn idle_keep_alive_connections_cost_no_thread() {
    let p = Portal::builder()
        .ini("maxConnectionsPerAddress = 1000")
        .ini("idleTimeout = 30")
        .arg("-t")
        .arg("4")
        .start();
    let pid = p.child.as_ref().unwrap().id();
    let before = hostile::threads(pid);
    let n = 300.min(hostile::nofile_limit().saturating_sub(200) / 2);
    let mut held = Vec::new();
    for _ in 0..n {
        let mut s = hostile::connect_from("127.0.0.2", p.port).unwrap();
        s.write_all(b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut first = [0u8; 12];
        s.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"HTTP/1.1 200");
        held.push(s);
    }
    let during = hostile::threads(pid);
    assert!(
        during <= before + 2,
        "{n} idle keep-alive connections: {before} threads before, {during} during"
    );
    assert_serving(&p);
}

#[test]
fn a_head_sent_a_byte_at_a_time_is_read_whole() {
    let p = Portal::start();
    let mut s = hostile::connect_from("127.0.0.2", p.port).unwrap();
    s.set_nodelay(true).unwrap();
    // Every byte its own segment, the empty line that ends the head split across four.
    let head = b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nX-A: b\r\nConnection: close\r\n\r\n";
    for b in head {
        s.write_all(&[*b]).unwrap();
        // The shape under test: every byte its own segment.
        std::thread::sleep(Duration::from_millis(2));
    }
    let all = hostile::read_until_closed(&mut s).expect("answered and closed");
    let text = String::from_utf8_lossy(&all);
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
}
