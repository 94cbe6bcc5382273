//! One client connection, on its own thread of the reading stage: wait for a request, read
//! its head and body against the clock, and only then hand it, complete and re-framed with a
//! plain `Content-Length`, to tiny_http over the private local socket (`relay`); pass the
//! answer on, and decide whether the connection stays open. A refusal is answered here (400, 408, 413, 429,
//! 501, 503, 505), logged, and ends the connection: bytes after a refused request are never
//! read as another request.
use super::admit::{forwarded_client, Admit, ConnSlot};
use super::head::{self, Head, Reject};
use super::relay::Relay;
use super::wire::{Fail, Pace, Wire};
use crate::config::front::RATE_GRACE;
use crate::http::{adapter, Response};
use crate::log;
use serde_json::json;
use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a connection waits for its next request before it lets its private connection
/// to tiny_http go (clients that send a request right after an answer keep theirs).
const RELAY_LINGER: Duration = Duration::from_millis(500);

/// What every connection thread needs.
pub struct Ctx {
    /// The book of connections and reads, with the limits.
    pub admit: Arc<Admit>,
    /// tiny_http's private socket.
    pub inner: PathBuf,
    /// `idleTimeout`: wait for a next request.
    pub idle: Duration,
    /// `bodyTimeout`: time for a whole body.
    pub body_timeout: Duration,
    /// `maxBodySize`.
    pub max_body: u64,
    /// `maxRequestsPerConnection`.
    pub max_requests: u32,
}

/// Serves a connection until it ends; the slot is given back on return.
pub fn serve(stream: TcpStream, peer: SocketAddr, slot: ConnSlot, ctx: &Ctx) {
    let Ok(out) = stream.try_clone() else { return };
    let mut wire = Wire::new(stream);
    let mut out = out;
    let mut relay = Relay::default();
    for n in 1..=ctx.max_requests {
        slot.set_idle(!wire.has_pending());
        if ctx.admit.closing() || !await_request(&mut wire, &mut relay, ctx.idle) {
            return;
        }
        slot.set_idle(false);
        let _busy = ctx.admit.busy();
        let t0 = Instant::now();
        let (head, body, client) = match read_request(&mut wire, peer, ctx) {
            Ok(request) => request,
            Err((Fail::Closed, _)) => return,
            Err((Fail::Reject(r), head)) => {
                return refuse(&mut wire, &mut out, &r, head.as_ref(), t0)
            }
        };
        wire.shrink();
        let keep = head.keep_alive() && n < ctx.max_requests;
        let request = inner_request(&head, &body, peer, client);
        let head_only = head.method == "HEAD";
        let answer = match relay.exchange(&ctx.inner, &request, head_only, keep) {
            Ok(answer) => answer.bytes,
            Err(e) => {
                log::error(&format!("handing a request to the workers failed: {e}"));
                let busy = Reject {
                    status: 503,
                    msg: "Server busy, try again",
                };
                return refuse(&mut wire, &mut out, &busy, Some(&head), t0);
            }
        };
        if out.write_all(&answer).and_then(|_| out.flush()).is_err() || !keep {
            return;
        }
    }
}

/// Waits up to `idle` for the next request; after `RELAY_LINGER` of silence the private
/// connection is let go. False when the client closed or stayed silent.
fn await_request(wire: &mut Wire<TcpStream>, relay: &mut Relay, idle: Duration) -> bool {
    if wire.has_pending() {
        return true;
    }
    let linger = RELAY_LINGER.min(idle);
    match wire.await_data(linger) {
        Ok(true) => return true,
        Ok(false) => relay.release(),
        Err(_) => return false,
    }
    wire.await_request(idle.saturating_sub(linger)).is_ok()
}

type Failed = (Fail, Option<Head>);

/// Reads one request whole, holding a read slot (per client) while it does. With it comes the
/// client's address: the peer, or behind a trusted proxy the address it forwards.
fn read_request(
    wire: &mut Wire<TcpStream>,
    peer: SocketAddr,
    ctx: &Ctx,
) -> Result<(Head, Vec<u8>, IpAddr), Failed> {
    let limits = &ctx.admit.limits;
    let trusted = limits.is_trusted(peer.ip());
    let direct = (!trusted).then_some(peer.ip());
    let mut slot = ctx.admit.read(direct).map_err(|r| (r.into(), None))?;
    let lines = wire
        .read_head(limits.header_timeout, adapter::MAX_HEAD)
        .map_err(|f| (f, None))?;
    let lines: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
    let head = head::parse(&lines).map_err(|r| (r.into(), None))?;
    let mut client = peer.ip();
    if trusted {
        let xff: Vec<&str> = header_values(&head, "x-forwarded-for");
        if let Some(forwarded) = forwarded_client(limits, peer.ip(), &xff) {
            if let Err(r) = slot.name_client(forwarded) {
                return Err((r.into(), Some(head)));
            }
            client = forwarded;
        }
    }
    if head.has_token("expect", "100-continue") && fits(&head, ctx.max_body) {
        // The client waits for this before it sends the body (RFC 9110 §10.1.1).
        let _ = wire.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let mut pace = Pace::rated(ctx.body_timeout, limits.body_min_rate, RATE_GRACE);
    match wire.read_body(head.framing, ctx.max_body, &mut pace) {
        Ok(body) => Ok((head, body, client)),
        Err(f) => Err((f, Some(head))),
    }
}

fn fits(head: &Head, max: u64) -> bool {
    match head.framing {
        head::Framing::Length(n) => n <= max,
        head::Framing::Chunked => true,
    }
}

fn header_values<'a>(head: &'a Head, name: &str) -> Vec<&'a str> {
    head.headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
        .collect()
}

/// Headers the stage sets itself: framing, the connection, the expectation it already met,
/// and the peer and client, which only the stage may state.
const OWN_HEADERS: &[&str] = &[
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "expect",
    adapter::PEER_HEADER,
    adapter::CLIENT_HEADER,
];

/// The request as tiny_http reads it: the client's head without the fields the stage states
/// itself, then those (the peer, the client, the length of the body read whole), and the body.
/// HTTP/1.1 keeps the private connection open; tiny_http closes it after an HTTP/1.0 request.
fn inner_request(head: &Head, body: &[u8], peer: SocketAddr, client: IpAddr) -> Vec<u8> {
    let version = if head.http10 { "HTTP/1.0" } else { "HTTP/1.1" };
    let mut req = Vec::with_capacity(body.len() + 1024);
    req.extend_from_slice(format!("{} {} {version}\r\n", head.method, head.target).as_bytes());
    for (k, v) in &head.headers {
        if !OWN_HEADERS.iter().any(|o| k.eq_ignore_ascii_case(o)) {
            req.extend_from_slice(k.as_bytes());
            req.extend_from_slice(b": ");
            req.extend_from_slice(v.as_bytes());
            req.extend_from_slice(b"\r\n");
        }
    }
    let own = format!(
        "{}: {peer}\r\n{}: {client}\r\nContent-Length: {}\r\n\r\n",
        adapter::PEER_HEADER,
        adapter::CLIENT_HEADER,
        body.len()
    );
    req.extend_from_slice(own.as_bytes());
    req.extend_from_slice(body);
    req
}

/// Answers a refusal, logs it and ends the connection, draining what the client still sends
/// for a moment so that the answer is not lost to a reset.
fn refuse(
    wire: &mut Wire<TcpStream>,
    out: &mut TcpStream,
    r: &Reject,
    head: Option<&Head>,
    t0: Instant,
) {
    let resp = Response::json(r.status, &json!({ "error": r.msg }));
    let resp = match r.status {
        429 | 503 => resp.with_header("Retry-After", "1"),
        _ => resp,
    };
    let head_only = head.is_some_and(|h| h.method == "HEAD");
    let _ = out.write_all(&adapter::serialize(&resp, true, head_only));
    let (method, path) = match head {
        Some(h) => (h.method.as_str(), h.target.split('?').next().unwrap_or("")),
        None => ("-", "-"),
    };
    log::access(method, path, r.status, t0.elapsed().as_millis());
    let _ = out.shutdown(Shutdown::Write);
    let mut sink = [0u8; 16 * 1024];
    let until = Instant::now() + Duration::from_secs(1);
    let mut drained = 0usize;
    while drained < (1 << 20) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || wire.stream.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match wire.stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}
