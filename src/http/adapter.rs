//! The only file that names tiny_http: reads a `tiny_http::Request` into our `Request` (body
//! bounded in size and time) and writes our `Response` back.
//!
//! Responses are written through `into_writer` so that Limette, not tiny_http, decides the
//! `Connection` header. That is how it escapes two traps of tiny_http 0.12:
//! - a connection is served by one tiny_http thread for its whole life, and a race in its pool
//!   can queue a new connection behind busy keep-alive ones; answering `Connection: close`
//!   after `max_requests` requests on a connection frees that thread regularly, so a queued
//!   connection is picked up within milliseconds under load;
//! - dropping a request whose body was not read makes tiny_http drain the rest into a buffer of
//!   the *announced* size; an absurd `Content-Length` would make that allocation abort the
//!   process, so such requests are answered and their connection abandoned instead.
use crate::error::Error;
use crate::http::{Method, Request, Response};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The request type of the HTTP library, as the server module passes it around.
pub type RawRequest = tiny_http::Request;

/// The header in which the reading stage (`server::front`) states the client's address:
/// tiny_http listens on a private local socket and sees no TCP peer. The stage removes any
/// such header a client sends, so only the stage can set it.
pub const PEER_HEADER: &str = "x-limette-peer";

/// Announced bodies above this are never drained by tiny_http (see the module doc).
const ABSURD_BODY: usize = 1 << 30;

/// Largest request line plus headers accepted (Apache allows 8 KiB a line, 100 lines). tiny_http
/// has already read them into memory, so this cannot bound that transient allocation; it makes
/// sure no handler works on such a request and that the client gets a clear 400.
pub const MAX_HEAD: usize = 64 * 1024;

/// Limits applied while reading and writing.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest accepted body in bytes (413 above).
    pub max_body: usize,
    /// Time allowed to receive a whole body (408 after).
    pub body_deadline: Duration,
    /// Requests served on one connection before `Connection: close` is answered.
    pub max_requests: u32,
}

/// Counts requests per live connection (keyed by the peer address).
#[derive(Default)]
pub struct ConnTracker {
    counts: Mutex<HashMap<SocketAddr, u32>>,
}

impl ConnTracker {
    /// Records one request and says whether its connection should now be closed.
    fn should_close(&self, peer: Option<SocketAddr>, max: u32) -> bool {
        let Some(peer) = peer else { return false };
        let Ok(mut map) = self.counts.lock() else {
            return true;
        };
        if map.len() > 16_384 {
            map.clear(); // entries of connections that ended by themselves
        }
        let n = map.entry(peer).or_insert(0);
        *n += 1;
        if *n >= max {
            map.remove(&peer);
            true
        } else {
            false
        }
    }
}

/// Reads the request line, headers and the bounded body. On failure the raw request is
/// handed back with the error so the caller can answer it.
pub fn read_request(raw: &mut RawRequest, id: u64, limits: &Limits) -> Result<Request, Error> {
    let method = Method::parse(raw.method().as_str());
    let url = raw.url().to_string();
    let (path, query) = match url.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (url, String::new()),
    };
    let mut headers: Vec<(String, String)> = raw
        .headers()
        .iter()
        .map(|h| {
            (
                h.field.as_str().as_str().to_ascii_lowercase(),
                h.value.as_str().to_string(),
            )
        })
        .collect();
    let stated = headers.iter().find(|(k, _)| k == PEER_HEADER);
    let stated: Option<SocketAddr> = stated.and_then(|(_, v)| v.parse().ok());
    headers.retain(|(k, _)| k != PEER_HEADER);
    if head_size(&path, &query, &headers) > MAX_HEAD {
        return Err(Error::bad("Request line and headers too large"));
    }
    let remote = stated.or_else(|| raw.remote_addr().copied());
    let mut req = Request {
        method,
        path,
        query,
        headers,
        body: Vec::new(),
        remote,
        id,
    };
    if let Some(len) = raw.body_length() {
        if len > limits.max_body {
            return Err(Error::PayloadTooLarge);
        }
    }
    req.body = read_body(raw.as_reader(), limits)?;
    Ok(req)
}

/// Bytes of the request line and headers, as sent (near enough).
fn head_size(path: &str, query: &str, headers: &[(String, String)]) -> usize {
    path.len()
        + query.len()
        + headers
            .iter()
            .map(|(k, v)| k.len() + v.len() + 4)
            .sum::<usize>()
}

fn read_body(reader: &mut dyn Read, limits: &Limits) -> Result<Vec<u8>, Error> {
    let start = Instant::now();
    let mut body = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if start.elapsed() > limits.body_deadline {
            return Err(Error::RequestTimeout);
        }
        match reader.read(&mut buf) {
            Ok(0) => return Ok(body),
            Ok(n) => {
                if body.len() + n > limits.max_body {
                    return Err(Error::PayloadTooLarge);
                }
                body.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Error::RequestTimeout),
        }
    }
}

/// Writes a response; `force_close` asks for the connection to end after it (the body was
/// not read).
pub fn write_response(
    raw: RawRequest,
    resp: &Response,
    force_close: bool,
    tracker: &ConnTracker,
    limits: &Limits,
) {
    let announced = raw.body_length().unwrap_or(0);
    // A body cut short (too large, or too slow: 408) must not be drained by this worker.
    if force_close && announced > 0 {
        return answer_unread(raw, resp, announced);
    }
    let head_only = raw.method() == &tiny_http::Method::Head;
    let close = force_close
        || wants_close(&raw)
        || tracker.should_close(raw.remote_addr().copied(), limits.max_requests);
    let bytes = serialize(resp, close, head_only);
    let mut w = raw.into_writer();
    let _ = w.write_all(&bytes);
    let _ = w.flush();
}

/// Answers a request whose announced body was refused without reading it. tiny_http drains
/// the unread body when the request is dropped (into a buffer of the announced size): the
/// answer is written first, the drain happens on a short-lived thread so no worker waits for
/// a slow sender, and an absurd size is never drained at all (see the module doc).
fn answer_unread(raw: RawRequest, resp: &Response, announced: usize) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static DRAINERS: AtomicUsize = AtomicUsize::new(0);
    let tiny = to_tiny(resp);
    if announced > ABSURD_BODY {
        let len = tiny_http::Header::from_bytes(
            &b"Content-Length"[..],
            resp.body.len().to_string().as_bytes(),
        );
        let tiny = match len {
            Ok(h) => tiny.with_header(h),
            Err(()) => tiny,
        };
        let mut stream = raw.upgrade("close", tiny);
        let _ = stream.write_all(&resp.body);
        let _ = stream.flush();
        std::mem::forget(stream);
        return;
    }
    if DRAINERS.fetch_add(1, Ordering::SeqCst) < 64 {
        let spawned = std::thread::Builder::new()
            .name("drain".into())
            .spawn(move || {
                let _ = raw.respond(tiny);
                DRAINERS.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            DRAINERS.fetch_sub(1, Ordering::SeqCst);
        }
    } else {
        DRAINERS.fetch_sub(1, Ordering::SeqCst);
        let _ = raw.respond(tiny);
    }
}

/// Our response as tiny_http's (used only where tiny_http must write it).
fn to_tiny(resp: &Response) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut t = tiny_http::Response::from_data(resp.body.clone()).with_status_code(resp.status);
    for (k, v) in &resp.headers {
        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            t.add_header(h);
        }
    }
    t
}

fn wants_close(raw: &RawRequest) -> bool {
    let conn = raw
        .headers()
        .iter()
        .find(|h| h.field.equiv("Connection"))
        .map(|h| h.value.as_str().to_ascii_lowercase());
    let http10 = raw.http_version() == &tiny_http::HTTPVersion(1, 0);
    match conn {
        Some(v) if v.contains("close") => true,
        Some(v) if v.contains("keep-alive") => false,
        _ => http10,
    }
}

/// The status line, headers and body. Header names or values holding CR or LF never reach the
/// wire: the response becomes a 500 (a handler let unchecked input into a header).
pub fn serialize(resp: &Response, close: bool, head_only: bool) -> Vec<u8> {
    let bad = resp.headers.iter().any(|(k, v)| has_ctl(k) || has_ctl(v));
    let owned;
    let resp = if bad {
        crate::log::error("dropped a response whose header held CR/LF");
        owned = Response::bytes(500, "text/plain; charset=utf-8", "Internal error\n");
        &owned
    } else {
        resp
    };
    let mut out = Vec::with_capacity(resp.body.len() + 256);
    out.extend_from_slice(
        format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status)).as_bytes(),
    );
    for (k, v) in &resp.headers {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n", resp.body.len()).as_bytes());
    out.extend_from_slice(if close {
        b"Connection: close\r\n\r\n"
    } else {
        b"Connection: keep-alive\r\n\r\n"
    });
    if !head_only {
        out.extend_from_slice(&resp.body);
    }
    out
}

fn has_ctl(s: &str) -> bool {
    s.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0)
}

/// Reason phrases for the statuses Limette sends.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}
