//! The reading half of the stage: from the bytes a connection has to a complete request in
//! the workers' queue. A head is parsed once it is whole (`head::parse_head`), its client is
//! decided (`forward`), a request with a body is refused from its head when the gate
//! says so (an address rule: no byte of the body is read), its body's limit is the route's, a
//! body that did not come with its head takes a slot for reading (fairly: `Admit::victim`)
//! and is read as it arrives (`Content-Length` into one buffer of that size, chunked through
//! the decoder), and the request goes to the pool, or is refused (400, 403, 408, 413, 429,
//! 501, 503).
use super::admit::BUSY;
use super::chunked::Chunked;
use super::conn::{Body, BodyData, Conn, Pace, Phase};
use super::head::{self, Framing, Head, Reject, BODY_TOO_LARGE, MAX_HEAD, TOO_LARGE};
use super::pool::Job;
use super::stage::Stage;
use crate::config::server::RATE_GRACE;
use crate::http::{Method, Request};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

static NEXT_REQUEST: AtomicU64 = AtomicU64::new(1);

/// The interim answer to `Expect: 100-continue`.
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

impl Stage {
    /// Goes as far as the bytes read allow: a head, a body, a complete request handed on.
    pub(super) fn advance(&mut self, mut conn: Conn) {
        let now = Instant::now();
        match conn.phase {
            Phase::Idle(_) => {
                let skip = head::leading_empty_lines(&conn.buf);
                conn.buf.drain(..skip);
                if conn.buf.is_empty() {
                    return self.rewatch(conn);
                }
                conn.phase = Phase::Head(now, 0);
                self.on_head(conn, now)
            }
            Phase::Head(..) => self.on_head(conn, now),
            Phase::Body(_) => self.on_body(conn),
            Phase::Drain(..) => self.rewatch(conn),
            Phase::Away | Phase::Write(_) => self.rewatch(conn),
        }
    }

    /// A head being read: wait for its end, parse it, and go on to its body.
    fn on_head(&mut self, mut conn: Conn, now: Instant) {
        let Phase::Head(t0, scanned) = conn.phase else {
            return self.rewatch(conn);
        };
        // The search for the empty line goes on from where the last one stopped (less the
        // three bytes an end can straddle): a head sent a byte at a time is scanned once, not
        // once per byte.
        let from = scanned.saturating_sub(3).min(conn.buf.len());
        let Some((_, end)) = head::head_end(&conn.buf[from..]) else {
            if conn.buf.len() > MAX_HEAD {
                return self.refuse(conn, &TOO_LARGE, None, t0);
            }
            conn.phase = Phase::Head(t0, conn.buf.len());
            return self.rewatch(conn);
        };
        let end = from + end;
        if end > MAX_HEAD {
            return self.refuse(conn, &TOO_LARGE, None, t0);
        }
        let parsed = head::parse_head(&conn.buf[..end]);
        conn.buf.drain(..end);
        match parsed {
            Ok(head) => self.on_parsed(conn, head, t0, now),
            Err(r) => self.refuse(conn, &r, None, t0),
        }
    }

    /// A head just parsed: its client, what the gate says, its body's limit and share of
    /// `maxReadingBytes`; then the request goes on whole, or its body is read.
    fn on_parsed(&mut self, mut conn: Conn, mut head: Head, t0: Instant, now: Instant) {
        let peer = conn.peer.ip();
        let client = match self.origin(peer, &head) {
            Ok(c) => c,
            Err(r) => return self.refuse(conn, &r, Some(&head), t0),
        };
        if head.framing != Framing::Length(0) {
            let early = request(&mut head, Vec::new(), conn.peer, client);
            let answer = (self.settings.gate)(&early);
            head.headers = early.headers;
            if let Some(answer) = answer {
                return self.answer_and_close(conn, answer, &head, t0);
            }
        }
        let limit = (self.settings.body_limit)(head.target.split('?').next().unwrap_or(""));
        if matches!(head.framing, Framing::Length(n) if n > limit) {
            return self.refuse(conn, &BODY_TOO_LARGE, Some(&head), t0);
        }
        // A large body (only a server whose rule let the client in takes one) holds its size
        // of `maxReadingBytes` until its answer is written.
        let size = match head.framing {
            Framing::Length(n) => n,
            Framing::Chunked => limit,
        };
        conn.holds = match self.admit.take_bytes(size) {
            Ok(held) => held,
            Err(r) => return self.refuse(conn, &r, Some(&head), t0),
        };
        let data = match head.framing {
            Framing::Length(n) if conn.buf.len() as u64 >= n => {
                let body: Vec<u8> = conn.buf.drain(..n as usize).collect();
                return self.submit(conn, head, body, client, t0);
            }
            Framing::Length(n) => {
                let mut body = Vec::with_capacity(n as usize);
                body.append(&mut conn.buf);
                BodyData::Length(n as usize, body)
            }
            Framing::Chunked => BodyData::Chunked(Chunked::new(limit)),
        };
        let key = client.unwrap_or(peer);
        self.await_body(conn, head, client, key, data, (t0, now))
    }

    /// A body still to come: it takes a slot for reading, counted under `key` (the client,
    /// an unknown one under its peer), and is read as it arrives.
    fn await_body(
        &mut self,
        mut conn: Conn,
        head: Head,
        client: Option<IpAddr>,
        key: IpAddr,
        data: BodyData,
        (t0, now): (Instant, Instant),
    ) {
        let slot = match self.reading_slot(key, conn.id) {
            Ok(k) => k,
            Err(r) => return self.refuse(conn, &r, Some(&head), t0),
        };
        // The client waits for this before it sends the body (RFC 9110 §10.1.1; an HTTP/1.0
        // client never does). Sent whole or not at all: a socket that cannot take 25 bytes
        // now has a client that is not reading, and will send its body after its own wait; a
        // part of it would corrupt the answer that follows, so the connection ends instead.
        if head.has_token("expect", "100-continue") && !head.http10 && conn.buf.is_empty() {
            match (&conn.stream).write(CONTINUE) {
                Ok(n) if n < CONTINUE.len() => {
                    self.admit.done_reading(slot, conn.id);
                    return self.close(conn);
                }
                _ => {}
            }
        }
        let s = &self.settings;
        let pace = Pace::rated(now, s.body_timeout, s.limits.body_min_rate, RATE_GRACE);
        conn.phase = Phase::Body(Box::new(Body {
            head,
            client,
            slot,
            data,
            pace,
            t0,
        }));
        self.on_body(conn)
    }

    /// The client's address for the address rules (`Forwarders::origin`): the peer, or behind a
    /// trusted proxy the one it forwards (400 when it forwards none), or None, unknown, when a
    /// peer that is not a trusted proxy forwards for someone.
    fn origin(&mut self, peer: IpAddr, head: &Head) -> Result<Option<IpAddr>, Reject> {
        let named = |name: &str| {
            head.headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case(name))
        };
        let proxied = named("forwarded") || named("x-real-ip");
        let xff: Vec<&str> = head
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("x-forwarded-for"))
            .map(|(_, v)| v.as_str())
            .collect();
        self.forwarders
            .origin(&self.settings.limits, peer, &xff, proxied)
    }

    /// A slot for reading a body: when every slot is taken, the busiest client's latest body
    /// ends (503) for a client holding fewer (`Admit::victim`).
    fn reading_slot(&mut self, client: IpAddr, id: u64) -> Result<IpAddr, Reject> {
        match self.admit.read(client, id) {
            Err(r) if r == BUSY => {
                let victim = self.admit.victim(client).and_then(|v| self.take(v));
                let Some(victim) = victim else {
                    return Err(BUSY);
                };
                let Phase::Body(b) = &victim.phase else {
                    self.close(victim); // unreachable: only bodies hold slots
                    return Err(BUSY);
                };
                let (head, t0) = (b.head.clone(), b.t0);
                self.refuse(victim, &BUSY, Some(&head), t0);
                self.admit.read(client, id)
            }
            other => other,
        }
    }

    /// A body being read: take what arrived, and hand the request on once it is whole.
    fn on_body(&mut self, mut conn: Conn) {
        let Phase::Body(b) = &mut conn.phase else {
            return self.rewatch(conn);
        };
        let complete = match &mut b.data {
            BodyData::Length(n, body) => {
                let take = (*n - body.len()).min(conn.buf.len());
                body.extend(conn.buf.drain(..take));
                body.len() == *n
            }
            BodyData::Chunked(d) => match d.feed(&conn.buf) {
                Ok(used) => {
                    conn.buf.drain(..used);
                    d.done()
                }
                Err(r) => {
                    let (head, t0) = (b.head.clone(), b.t0);
                    return self.refuse(conn, &r, Some(&head), t0);
                }
            },
        };
        if !complete {
            return self.rewatch(conn);
        }
        let Phase::Body(b) = std::mem::replace(&mut conn.phase, Phase::Away) else {
            return; // matched just above
        };
        let b = *b;
        self.admit.done_reading(b.slot, conn.id);
        let body = match b.data {
            BodyData::Length(_, body) => body,
            BodyData::Chunked(d) => d.body,
        };
        self.submit(conn, b.head, body, b.client, b.t0)
    }

    /// Hands a complete request to the workers, or answers 503 when their queue is full.
    fn submit(
        &mut self,
        mut conn: Conn,
        mut head: Head,
        body: Vec<u8>,
        client: Option<IpAddr>,
        t0: Instant,
    ) {
        let closing = self.closing();
        let keep = head.keep_alive() && conn.served + 1 < self.settings.max_requests && !closing;
        let req = request(&mut head, body, conn.peer, client);
        conn.phase = Phase::Away;
        let job = Job {
            conn,
            req,
            keep,
            t0,
        };
        match self.pool.submit(job) {
            Ok(()) => {
                crate::metrics::enqueued();
                self.away += 1;
            }
            Err(job) => self.refuse(job.conn, &BUSY, Some(&head), t0),
        }
    }
}

/// The request as handlers see it. Its header fields are moved out of the head, names
/// lower-cased in place; the head keeps its method and target.
fn request(head: &mut Head, body: Vec<u8>, peer: SocketAddr, client: Option<IpAddr>) -> Request {
    let mut headers = std::mem::take(&mut head.headers);
    for (k, _) in &mut headers {
        k.make_ascii_lowercase();
    }
    let (path, query) = match head.target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (head.target.clone(), String::new()),
    };
    Request {
        method: Method::parse(&head.method),
        path,
        query,
        headers,
        body,
        remote: Some(peer),
        client,
        id: NEXT_REQUEST.fetch_add(1, Ordering::Relaxed),
    }
}
