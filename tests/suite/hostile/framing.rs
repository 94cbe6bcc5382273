//! Framing as RFC 9112 says, met on a raw socket the way a smuggler sends it: one answer (400
//! or 501), the connection closed, and the bytes after the request never answered as a second
//! request. A well-framed pipeline on the same kind of socket is answered twice, so counting
//! answers can tell the two apart.
use super::assert_serving;
use crate::common::http::read_response;
use crate::common::{hostile, Portal};
use std::io::{BufReader, Write};

/// Sends `bytes` on one connection and returns the status of every answer received until
/// the server closed it (a connection left open fails the test).
fn answers(port: u16, bytes: &[u8]) -> Vec<u16> {
    let mut s = hostile::connect_from("127.0.0.1", port).expect("connect");
    let _ = s.write_all(bytes);
    let all = hostile::read_until_closed(&mut s).expect("the server closes the connection");
    let mut r = BufReader::new(&all[..]);
    let mut got = Vec::new();
    while let Ok(resp) = read_response(&mut r, false) {
        got.push(resp.status);
    }
    got
}

const LEFTOVER: &str = "GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

#[test]
fn a_well_framed_pipeline_is_answered_twice() {
    let p = Portal::start();
    let req = format!(
        "POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd{LEFTOVER}"
    );
    let got = answers(p.port, req.as_bytes());
    // The token endpoint refuses the first (no grant type); the second is served.
    assert_eq!(got, vec![400, 200]);
}

#[test]
fn content_length_with_transfer_encoding_is_400_and_the_leftover_is_never_answered() {
    let p = Portal::start();
    let req = format!(
        "POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n{LEFTOVER}"
    );
    let got = answers(p.port, req.as_bytes());
    assert_eq!(got, vec![400]);
    assert_serving(&p);
}

#[test]
fn differing_or_malformed_content_lengths_are_400_and_the_leftover_is_never_answered() {
    let p = Portal::start();
    for lengths in [
        "Content-Length: 4\r\nContent-Length: 50",
        "Content-Length: 4, 50",
        "Content-Length: +4",
        "Content-Length: 4x",
    ] {
        let req = format!("POST / HTTP/1.1\r\nHost: x\r\n{lengths}\r\n\r\nuser{LEFTOVER}");
        let got = answers(p.port, req.as_bytes());
        assert_eq!(got, vec![400], "{lengths}");
    }
    let r = hostile::raw(
        p.port,
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 50\r\n\r\nuser",
    )
    .unwrap();
    assert_eq!(r.json()["error"], "Differing Content-Length values");
    assert_serving(&p);
}

#[test]
fn an_unknown_transfer_coding_is_501() {
    let p = Portal::start();
    for coding in ["gzip", "gzip, chunked", "identity"] {
        let req = format!("POST /notifications HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: {coding}\r\n\r\n0\r\n\r\n{LEFTOVER}");
        let got = answers(p.port, req.as_bytes());
        assert_eq!(got, vec![501], "{coding}");
    }
}

#[test]
fn a_malformed_request_line_is_400() {
    let p = Portal::start();
    for line in [
        &b"GET /\xff\xfe HTTP/1.1"[..],
        b"GET  / HTTP/1.1",
        b"GET / HTTP/1.1 extra",
        b"GET /a b HTTP/1.1",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
    ] {
        let mut bytes = line.to_vec();
        bytes.extend_from_slice(b"\r\nHost: x\r\n\r\n");
        let r = hostile::raw(p.port, &bytes).expect("an answer, not a silent close");
        assert_eq!(
            r.status,
            400,
            "{:?}: {}",
            String::from_utf8_lossy(line),
            r.text()
        );
        assert_eq!(r.header("connection"), Some("close"));
    }
    let r = hostile::raw(p.port, b"GET / HTTP/2.0\r\n\r\n").unwrap();
    assert_eq!(r.status, 505);
    assert_serving(&p);
}

#[test]
fn chunk_sizes_are_bounded_and_expect_continue_is_met() {
    let p = Portal::builder().ini("maxBodySize = 1024").start();
    // One chunk announcing more than the whole body limit: 413 before any of it is read.
    let r = hostile::raw(
        p.port,
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\nab",
    )
    .unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    let r = hostile::raw(p.port, b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\n").unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    // curl's way with larger bodies: it waits for 100 Continue, then sends the body.
    let mut s = hostile::connect_from("127.0.0.1", p.port).unwrap();
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nExpect: 100-continue\r\nContent-Length: 23\r\nConnection: close\r\n\r\n").unwrap();
    let mut first = [0u8; 25];
    std::io::Read::read_exact(&mut s, &mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(b"user=dwho&password=dwho").unwrap();
    let all = hostile::read_until_closed(&mut s).unwrap();
    assert!(
        all.starts_with(b"HTTP/1.1 200 OK"),
        "{}",
        String::from_utf8_lossy(&all)
    );
}
