//! One client connection as the reading loop (`stage`) and the workers (`pool`) pass it
//! between them: its non-blocking socket, the bytes read and not yet used, and where it
//! stands (waiting, reading a head, reading a body, with a worker, writing an answer,
//! draining after a refusal). Only one thread holds a connection at a time: the loop, or the
//! worker answering its request.
//!
//! Also here: the clock a body or an answer must keep (`Pace`), and writing without ever
//! blocking (`write_some`).
use super::chunked::Chunked;
use super::head::{Head, Reject, TIMEOUT};
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A client connection.
pub struct Conn {
    /// Unique for the life of the process (the loop's key; never reused).
    pub id: u64,
    /// The socket, non-blocking.
    pub stream: TcpStream,
    /// The TCP peer.
    pub peer: SocketAddr,
    /// The key its connection is counted under (None for a trusted proxy).
    pub counted: Option<IpAddr>,
    /// Bytes of `maxReadingBytes` its request's large body holds, from its head until the
    /// connection comes back from the worker that answered it (0 for a small body).
    pub holds: u64,
    /// Bytes read and not yet used (a partial head, a body, a pipelined request).
    pub buf: Vec<u8>,
    /// Requests answered on it.
    pub served: u32,
    /// Where it stands.
    pub phase: Phase,
}

/// Where a connection stands.
pub enum Phase {
    /// Waiting for the first byte of a request (`idleTimeout`).
    Idle(Instant),
    /// A head has begun at this instant (`headerTimeout`); its end was searched for in the
    /// first so many bytes of `buf` already.
    Head(Instant, usize),
    /// Its body is being read.
    Body(Box<Body>),
    /// A worker holds it.
    Away,
    /// An answer is being written.
    Write(Box<Pending>),
    /// After a refusal: what the client still sends is read and dropped until this instant,
    /// so that the answer is not lost to a reset; with the bytes drained so far.
    Drain(Instant, usize),
}

/// A request whose head is read and whose body is arriving.
pub struct Body {
    /// The head.
    pub head: Head,
    /// The client for the address rules (the peer, or behind a trusted proxy the address it
    /// forwards; None when unknown: an untrusted peer forwarding for someone).
    pub client: Option<IpAddr>,
    /// The key of the body slot it holds (`Admit::read`).
    pub slot: IpAddr,
    /// The body so far.
    pub data: BodyData,
    /// Its deadline and rate.
    pub pace: Pace,
    /// Since when the request is in hand (its first byte).
    pub t0: Instant,
}

/// A body by its framing.
pub enum BodyData {
    /// `Content-Length`: this many bytes, read into one buffer of that size.
    Length(usize, Vec<u8>),
    /// Chunked, decoded as it arrives.
    Chunked(Chunked),
}

/// An answer not yet wholly written.
pub struct Pending {
    /// The bytes of the answer.
    pub out: Vec<u8>,
    /// How many are written.
    pub pos: usize,
    /// Its total deadline and rate.
    pub pace: Pace,
    /// What follows once it is written.
    pub then: Then,
}

/// What follows an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// Wait for the next request.
    Keep,
    /// Shut down the sending side and drain for a moment, then close.
    Close,
}

/// How long a refused or closing connection is drained.
pub const DRAIN_FOR: Duration = Duration::from_secs(1);

/// What a read gave.
pub enum Got {
    /// Bytes were added to `buf`.
    Bytes(usize),
    /// Nothing to read now.
    Nothing,
    /// The client closed, or the socket failed.
    Closed,
}

impl Conn {
    /// Reads once what the socket holds, at most `scratch.len()` bytes, into `buf`.
    pub fn read_some(&mut self, scratch: &mut [u8]) -> Got {
        loop {
            match self.stream.read(scratch) {
                Ok(0) => return Got::Closed,
                Ok(n) => {
                    self.buf.extend_from_slice(&scratch[..n.min(scratch.len())]);
                    return Got::Bytes(n);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Got::Nothing,
                Err(_) => return Got::Closed,
            }
        }
    }

    /// The connection, idle: its buffer memory is given back when nothing is pending.
    pub fn to_idle(&mut self, now: Instant) {
        if self.buf.is_empty() {
            self.buf = Vec::new();
        }
        self.phase = Phase::Idle(now);
    }

    /// Whether it waits for a request with nothing of one read.
    pub fn is_idle(&self) -> bool {
        matches!(self.phase, Phase::Idle(_)) && self.buf.is_empty()
    }
}

/// Writes what the socket takes now, from `out[*pos..]`: true once all is written, false
/// when the socket is full, an error when it failed (the client went away).
pub fn write_some(stream: &mut TcpStream, out: &[u8], pos: &mut usize) -> std::io::Result<bool> {
    while *pos < out.len() {
        match stream.write(&out[*pos..]) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => *pos += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// A deadline, and optionally a minimum rate counted from `start` once `grace` has passed:
/// the clock a body must keep as it arrives, and an answer as the client reads it.
#[derive(Debug, Clone)]
pub struct Pace {
    start: Instant,
    deadline: Instant,
    min_rate: u64,
    grace: Duration,
    /// Bytes moved so far.
    pub got: u64,
}

impl Pace {
    /// A deadline and a rate in bytes a second (0: none), checked once `grace` has passed.
    pub fn rated(now: Instant, limit: Duration, min_rate: u64, grace: Duration) -> Pace {
        Pace {
            start: now,
            deadline: now + limit,
            min_rate,
            grace,
            got: 0,
        }
    }

    /// Since when the clock runs.
    pub fn since(&self) -> Instant {
        self.start
    }

    /// 408 once the deadline has passed or the bytes lag behind the rate.
    pub fn check(&self, now: Instant) -> Result<(), Reject> {
        if now >= self.deadline {
            return Err(TIMEOUT);
        }
        let elapsed = now.saturating_duration_since(self.start);
        if self.min_rate > 0 && elapsed > self.grace {
            let owed = self.min_rate as f64 * (elapsed - self.grace).as_secs_f64();
            if (self.got as f64) < owed {
                return Err(TIMEOUT);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missed_deadline_or_rate_is_408() {
        let t = Instant::now();
        let past = Pace::rated(t, Duration::ZERO, 0, Duration::ZERO);
        assert_eq!(past.check(t), Err(TIMEOUT));
        let mut slow = Pace::rated(t, Duration::from_secs(60), 1_000_000, Duration::ZERO);
        let later = t + Duration::from_secs(1);
        assert_eq!(slow.check(later), Err(TIMEOUT));
        slow.got = 2_000_000;
        assert!(slow.check(later).is_ok());
        let graced = Pace::rated(t, Duration::from_secs(60), 1_000, Duration::from_secs(2));
        assert!(graced.check(later).is_ok());
    }
}
