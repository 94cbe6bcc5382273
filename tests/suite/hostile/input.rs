//! Hostile requests: each gets a clear 4xx quickly and nothing else is disturbed.
use super::{assert_serving, rest_portal};
use crate::common::{hostile, Portal};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn a_chunked_body_over_the_limit_gets_413() {
    let p = Portal::builder().ini("maxBodySize = 1024").start();
    let mut bytes = b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..64 {
        bytes.extend_from_slice(b"400\r\n");
        bytes.extend_from_slice(&[b'a'; 0x400]);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"0\r\n\r\n");
    let r = hostile::raw(p.port, &bytes).expect("an answer");
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.json()["error"], "Request body too large");
    // A chunked body under the limit is read whole.
    let ok = b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n1b\r\nuser=dwho&password=dwho&x=1\r\n0\r\n\r\n";
    let r = hostile::raw(p.port, ok).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_serving(&p);
}

#[test]
fn a_body_trickled_a_byte_a_second_is_cut_off_while_others_are_served() {
    let p = Portal::builder()
        .ini("bodyTimeout = 2")
        .arg("-t")
        .arg("2")
        .start();
    let stop = Arc::new(AtomicBool::new(false));
    let trickle = |head: &'static [u8], stop: Arc<AtomicBool>, port: u16| {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(8))).unwrap();
        let reader = s.try_clone().unwrap();
        s.write_all(head).unwrap();
        let writer = std::thread::spawn(move || {
            for _ in 0..8 {
                if stop.load(Ordering::SeqCst) || s.write_all(b"a").is_err() {
                    break;
                }
                // The attack: one byte a second.
                std::thread::sleep(Duration::from_secs(1));
            }
        });
        (reader, writer)
    };
    let (body_reader, w1) = trickle(
        b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Length: 4096\r\n\r\n",
        stop.clone(),
        p.port,
    );
    // Two more trickle their headers and a small body: the reading stage reads those before a
    // request reaches a worker, so they hold no worker at all.
    let (_head_reader, w2) = trickle(b"GET / HTTP/1.1\r\nX-Slow: ", stop.clone(), p.port);
    let (_small_reader, w3) = trickle(
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n",
        stop.clone(),
        p.port,
    );
    for _ in 0..10 {
        assert_serving(&p);
        // Served throughout the trickle: the checks are spread over its first second.
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = crate::common::http::read_response(&mut BufReader::new(body_reader), false)
        .expect("an answer");
    // The trickle never completes its 4,096 bytes: only the body timeout can produce this
    // answer before the client's own 8 s read timeout.
    assert_eq!(r.status, 408, "{}", r.text());
    stop.store(true, Ordering::SeqCst);
    assert_serving(&p);
    let _ = (w1.join(), w2.join(), w3.join());
}

#[test]
fn a_thousand_idle_connections_leave_the_server_serving_in_bounded_memory() {
    // One address may hold this many here; the caps per address have tests of their own.
    let p = Portal::builder()
        .ini("idleTimeout = 1")
        .ini("maxConnectionsPerAddress = 2000")
        .start();
    let pid = p.child.as_ref().unwrap().id();
    let before = hostile::rss_kib(pid);
    let n = 1000.min(hostile::nofile_limit().saturating_sub(200) / 2);
    let idle: Vec<TcpStream> = (0..n)
        .filter_map(|_| hostile::connect_from("127.0.0.2", p.port).ok())
        .collect();
    assert!(idle.len() >= n * 9 / 10, "opened {} of {n}", idle.len());
    for _ in 0..5 {
        assert_serving(&p);
    }
    let grown = hostile::rss_kib(pid).saturating_sub(before);
    assert!(
        grown < 48 * 1024,
        "resident memory grew by {grown} KiB for {n} idle connections"
    );
    // The server drops them after its idle timeout: descriptors and threads come back down.
    assert!(
        hostile::wait_for(Duration::from_secs(6), || hostile::fds(pid) < 64),
        "server still holds {} descriptors",
        hostile::fds(pid)
    );
    assert_serving(&p);
    drop(idle);
}

#[test]
fn invalid_utf8_gets_a_clear_4xx() {
    let p = rest_portal();
    let r = hostile::request(
        p.port,
        "POST",
        "/",
        "Content-Type: application/x-www-form-urlencoded\r\n",
        b"user=%FF%FEdwho&password=%C3%28",
    )
    .unwrap();
    // Not a login name LemonLDAP::NG's default userControl accepts: PE_MALFORMEDUSER.
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["error"], "40");
    let r = hostile::request(
        p.port,
        "POST",
        "/",
        "Content-Type: application/x-www-form-urlencoded\r\n",
        b"user=\xff\xfe&password=\xc3\x28",
    )
    .unwrap();
    assert_eq!(r.status, 401, "{}", r.text());
    for target in [
        "/sessions/global/%FF%FE",
        "/sessions/%C3%28/x",
        "/%FF/..%C0%AF",
    ] {
        let r = hostile::request(p.port, "GET", target, "", b"").unwrap();
        assert!(
            (400..500).contains(&r.status),
            "{target}: {} {}",
            r.status,
            r.text()
        );
    }
    let r = hostile::request(
        p.port,
        "POST",
        "/sessions/global",
        "Content-Type: application/json\r\n",
        b"{\"uid\": \"\xff\xfe\"}",
    )
    .unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    // Raw invalid bytes in the request line or a header: a 400, not a silent close.
    for bytes in [
        &b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        &b"GET / HTTP/1.1\r\nHost: x\r\nCookie: lemonldap=\xff\xfe\r\n\r\n"[..],
    ] {
        let r = hostile::raw(p.port, bytes).expect("an answer");
        assert_eq!(r.status, 400, "{}", r.text());
    }
    assert_serving(&p);
}

#[test]
fn deeply_nested_json_gets_400() {
    let p = rest_portal();
    let id = p.login("dwho");
    let deep_array = "[".repeat(100_000);
    let deep_object = "{\"a\":".repeat(50_000) + "1" + &"}".repeat(50_000);
    for body in [deep_array.as_bytes(), deep_object.as_bytes()] {
        for (method, target) in [
            ("POST", "/sessions/global".to_string()),
            ("PUT", format!("/sessions/global/{id}")),
        ] {
            let r = hostile::request(
                p.port,
                method,
                &target,
                "Content-Type: application/json\r\n",
                body,
            )
            .unwrap();
            assert_eq!(r.status, 400, "{method} {target}: {}", r.text());
            assert!(r.json()["error"].as_str().is_some());
        }
    }
    assert_serving(&p);
}

#[test]
fn huge_query_strings_and_headers_get_400() {
    let p = Portal::start();
    let big = "a".repeat(1 << 20);
    let r = hostile::request(p.port, "GET", &format!("/?url={big}"), "", b"").unwrap();
    assert_eq!(r.status, 400, "{}", &r.text()[..r.text().len().min(200)]);
    assert_eq!(r.json()["error"], "Request line and headers too large");
    let r = hostile::request(p.port, "GET", "/", &format!("X-Big: {big}\r\n"), b"").unwrap();
    assert_eq!(r.status, 400);
    let many: String = (0..4000)
        .map(|i| format!("X-H{i}: {}\r\n", "b".repeat(20)))
        .collect();
    let r = hostile::request(p.port, "GET", "/", &many, b"").unwrap();
    assert_eq!(r.status, 400);
    // A long but reasonable query (8 KiB) is served normally.
    let r = hostile::request(p.port, "GET", &format!("/?x={}", "a".repeat(8192)), "", b"").unwrap();
    assert_eq!(r.status, 401);
    assert_serving(&p);
}
