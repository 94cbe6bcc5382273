//! Reading one request off a client socket against the clock: the wait for its first byte
//! (`idleTimeout`), the header block within `headerTimeout` of that byte, the body within
//! `bodyTimeout` and above `bodyMinRate`, each chunk size and the whole body under
//! `maxBodySize`. Every read waits at most a second, so a deadline or a rate is checked
//! at least that often, whatever the client sends or does not send.
//!
//! Bytes that arrive after a request (a pipelined one) stay in the buffer for the next.
use super::head::{self, Framing, Reject, BODY_TOO_LARGE, TIMEOUT, TOO_LARGE};
use std::io::{ErrorKind, Read};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Largest chunk-size line (with extensions) and largest trailer section.
const MAX_CHUNK_LINE: usize = 1024;
const MAX_TRAILERS: usize = 8 * 1024;

/// Why a read stopped.
#[derive(Debug, PartialEq, Eq)]
pub enum Fail {
    /// The client must be told (and the connection closed).
    Reject(Reject),
    /// The client went away, or stayed silent while idle: close without a word.
    Closed,
}

impl From<Reject> for Fail {
    fn from(r: Reject) -> Fail {
        Fail::Reject(r)
    }
}

/// A source whose reads can be given a timeout (a socket; a cursor in tests).
pub trait Timed: Read {
    /// Sets how long the next read may block.
    fn set_timeout(&mut self, t: Duration) -> std::io::Result<()>;
}

impl Timed for TcpStream {
    fn set_timeout(&mut self, t: Duration) -> std::io::Result<()> {
        self.set_read_timeout(Some(t.max(Duration::from_millis(1))))
    }
}

/// A deadline, and optionally a minimum rate counted from `start`.
pub struct Pace {
    start: Instant,
    deadline: Instant,
    min_rate: u64,
    grace: Duration,
    got: u64,
}

impl Pace {
    /// A deadline `limit` from now, with no rate.
    pub fn within(limit: Duration) -> Pace {
        Pace::rated(limit, 0, Duration::ZERO)
    }

    /// A deadline and a rate in bytes a second, checked once `grace` has passed.
    pub fn rated(limit: Duration, min_rate: u64, grace: Duration) -> Pace {
        let start = Instant::now();
        Pace {
            start,
            deadline: start + limit,
            min_rate,
            grace,
            got: 0,
        }
    }

    /// How long the next read may wait, or 408 when the deadline or the rate is missed.
    fn wait(&self) -> Result<Duration, Reject> {
        let now = Instant::now();
        if now >= self.deadline {
            return Err(TIMEOUT);
        }
        let elapsed = now - self.start;
        if self.min_rate > 0 && elapsed > self.grace {
            let owed = self.min_rate as f64 * (elapsed - self.grace).as_secs_f64();
            if (self.got as f64) < owed {
                return Err(TIMEOUT);
            }
        }
        Ok((self.deadline - now).min(Duration::from_secs(1)))
    }
}

/// A client connection's buffered reader.
pub struct Wire<S> {
    /// The socket.
    pub stream: S,
    buf: Vec<u8>,
}

impl<S: Timed> Wire<S> {
    /// Wraps a stream.
    pub fn new(stream: S) -> Wire<S> {
        Wire {
            stream,
            buf: Vec::new(),
        }
    }

    /// Gives back buffer memory beyond what a usual request needs (an idle connection keeps
    /// no large head or body buffer).
    pub fn shrink(&mut self) {
        self.buf.shrink_to(4096);
    }

    /// Whether bytes of a next request are already buffered.
    pub fn has_pending(&self) -> bool {
        !self.buf.is_empty()
    }

    /// Reads more bytes, waiting no longer than `pace` allows.
    fn fill(&mut self, pace: &mut Pace) -> Result<(), Fail> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let wait = pace.wait()?;
            self.stream.set_timeout(wait).map_err(|_| Fail::Closed)?;
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(Fail::Closed),
                Ok(n) => {
                    pace.got += n as u64;
                    self.buf.extend_from_slice(&chunk[..n.min(chunk.len())]);
                    return Ok(());
                }
                Err(e) if is_timeout(e.kind()) || e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return Err(Fail::Closed),
            }
        }
    }

    /// Waits up to `d` for bytes: true when some are here, false when the time ran out,
    /// `Closed` when the client went away.
    pub fn await_data(&mut self, d: Duration) -> Result<bool, Fail> {
        if !self.buf.is_empty() {
            return Ok(true);
        }
        match self.fill(&mut Pace::within(d)) {
            Ok(()) => Ok(true),
            Err(Fail::Reject(_)) => Ok(false),
            Err(Fail::Closed) => Err(Fail::Closed),
        }
    }

    /// Waits up to `idle` for the first byte of a request; `Closed` when none comes.
    pub fn await_request(&mut self, idle: Duration) -> Result<(), Fail> {
        match self.await_data(idle)? {
            true => Ok(()),
            false => Err(Fail::Closed),
        }
    }

    /// Reads the header block (empty lines before it are skipped, RFC 9112 §2.2) and returns
    /// its lines without line endings, or 408 / 400 when it is too slow / too large.
    pub fn read_head(&mut self, limit: Duration, max: usize) -> Result<Vec<Vec<u8>>, Fail> {
        let mut pace = Pace::within(limit);
        loop {
            let blank = self.buf.iter().take_while(|&&b| b == b'\r' || b == b'\n');
            let skip = blank.count();
            self.buf.drain(..skip);
            if let Some(end) = head_end(&self.buf) {
                if end.1 > max {
                    return Err(TOO_LARGE.into());
                }
                let block: Vec<u8> = self.buf.drain(..end.1).take(end.0).collect();
                let lines = block
                    .split(|&b| b == b'\n')
                    .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
                    .collect();
                return Ok(lines);
            }
            if self.buf.len() > max {
                return Err(TOO_LARGE.into());
            }
            self.fill(&mut pace)?;
        }
    }

    /// Reads the body `framing` announces, at most `max` bytes, within `pace`.
    pub fn read_body(
        &mut self,
        framing: Framing,
        max: u64,
        pace: &mut Pace,
    ) -> Result<Vec<u8>, Fail> {
        match framing {
            Framing::Length(n) if n > max => Err(BODY_TOO_LARGE.into()),
            Framing::Length(n) => {
                let mut body = Vec::with_capacity((n as usize).min(64 * 1024));
                self.take(n as usize, &mut body, pace)?;
                Ok(body)
            }
            Framing::Chunked => self.read_chunked(max, pace),
        }
    }

    /// RFC 9112 §7.1: chunks until the last one, then trailers, which are dropped.
    /// Everything up to the end of the stream (a body the end of the connection delimits), at
    /// most `max` bytes.
    pub fn read_to_end(&mut self, max: u64, pace: &mut Pace) -> Result<Vec<u8>, Fail> {
        loop {
            if self.buf.len() as u64 > max {
                return Err(BODY_TOO_LARGE.into());
            }
            match self.fill(pace) {
                Ok(()) => {}
                Err(Fail::Closed) => return Ok(std::mem::take(&mut self.buf)),
                Err(e) => return Err(e),
            }
        }
    }

    fn read_chunked(&mut self, max: u64, pace: &mut Pace) -> Result<Vec<u8>, Fail> {
        let mut body = Vec::new();
        loop {
            let line = self.line(MAX_CHUNK_LINE, pace)?;
            let size = head::chunk_size(&line)?;
            if size == 0 {
                break;
            }
            if body.len() as u64 + size > max {
                return Err(BODY_TOO_LARGE.into());
            }
            self.take(size as usize, &mut body, pace)?;
            if !self.line(0, pace)?.is_empty() {
                return Err(Reject::bad("Malformed chunk").into());
            }
        }
        let mut trailers = 0;
        loop {
            let line = self.line(MAX_TRAILERS, pace)?;
            trailers += line.len() + 2;
            if line.is_empty() {
                return Ok(body);
            }
            if trailers > MAX_TRAILERS {
                return Err(TOO_LARGE.into());
            }
        }
    }

    /// Moves exactly `n` bytes into `out`.
    fn take(&mut self, n: usize, out: &mut Vec<u8>, pace: &mut Pace) -> Result<(), Fail> {
        let mut left = n;
        while left > 0 {
            if self.buf.is_empty() {
                self.fill(pace)?;
            }
            let k = left.min(self.buf.len());
            out.extend(self.buf.drain(..k));
            left -= k;
        }
        Ok(())
    }

    /// One line without its CRLF (or bare LF), at most `max` bytes before it.
    fn line(&mut self, max: usize, pace: &mut Pace) -> Result<Vec<u8>, Fail> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buf.drain(..=i).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(line);
            }
            if self.buf.len() > max + 1 {
                return Err(Reject::bad("Malformed chunk").into());
            }
            self.fill(pace)?;
        }
    }
}

/// Where the header block ends: (bytes of its lines, bytes including the empty line).
fn head_end(buf: &[u8]) -> Option<(usize, usize)> {
    let ends = buf.iter().enumerate().filter(|(_, &b)| b == b'\n');
    for (i, _) in ends {
        match (buf.get(i + 1), buf.get(i + 2)) {
            (Some(b'\n'), _) => return Some((i, i + 2)),
            (Some(b'\r'), Some(b'\n')) => return Some((i, i + 3)),
            _ => {}
        }
    }
    None
}

fn is_timeout(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    impl Timed for Cursor<Vec<u8>> {
        fn set_timeout(&mut self, _: Duration) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn wire(bytes: &[u8]) -> Wire<Cursor<Vec<u8>>> {
        Wire::new(Cursor::new(bytes.to_vec()))
    }

    fn pace() -> Pace {
        Pace::within(Duration::from_secs(5))
    }

    #[test]
    fn head_ends_at_the_empty_line_and_keeps_what_follows() {
        let mut w = wire(b"\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\n\nrest");
        let lines = w.read_head(Duration::from_secs(1), 1024).unwrap();
        assert_eq!(lines, vec![b"GET / HTTP/1.1".to_vec(), b"Host: x".to_vec()]);
        let lines = w.read_head(Duration::from_secs(1), 1024).unwrap();
        assert_eq!(lines, vec![b"GET /2 HTTP/1.1".to_vec()]);
        assert!(w.has_pending());
        assert_eq!(head_end(b"a\r\nb\r"), None);
        assert_eq!(head_end(b"a\r\nb\r\n\r\n"), Some((5, 8)));
    }

    #[test]
    fn an_endless_head_is_too_large_and_an_unfinished_one_closed() {
        let mut w = wire(&[b'a'; 5000]);
        let e = w.read_head(Duration::from_secs(1), 1024).unwrap_err();
        assert_eq!(e, Fail::Reject(TOO_LARGE));
        let mut w = wire(b"GET / HTTP/1.1\r\nHost");
        assert_eq!(
            w.read_head(Duration::from_secs(1), 1024).unwrap_err(),
            Fail::Closed
        );
    }

    #[test]
    fn chunked_bodies_are_decoded_within_their_bounds() {
        let mut w = wire(b"4;x=y\r\nuser\r\n3\r\n=dw\r\n0\r\nTrailer: t\r\n\r\nNEXT");
        let body = w.read_body(Framing::Chunked, 100, &mut pace()).unwrap();
        assert_eq!(body, b"user=dw");
        assert!(w.has_pending());
        let mut w = wire(b"400\r\n");
        let e = w.read_body(Framing::Chunked, 100, &mut pace()).unwrap_err();
        assert_eq!(e, Fail::Reject(BODY_TOO_LARGE));
        let mut w = wire(b"2\r\nabc\r\n0\r\n\r\n");
        let e = w.read_body(Framing::Chunked, 100, &mut pace()).unwrap_err();
        assert_eq!(e, Fail::Reject(Reject::bad("Malformed chunk")));
        let mut w = wire(&[b'1'; 2000]);
        assert!(matches!(
            w.read_body(Framing::Chunked, 100, &mut pace()),
            Err(Fail::Reject(_))
        ));
    }

    #[test]
    fn lengths_are_read_exactly_and_bounded() {
        let mut w = wire(b"abcdGET");
        assert_eq!(
            w.read_body(Framing::Length(4), 10, &mut pace()).unwrap(),
            b"abcd"
        );
        let e = w
            .read_body(Framing::Length(11), 10, &mut pace())
            .unwrap_err();
        assert_eq!(e, Fail::Reject(BODY_TOO_LARGE));
        let mut w = wire(b"ab");
        assert_eq!(
            w.read_body(Framing::Length(4), 10, &mut pace())
                .unwrap_err(),
            Fail::Closed
        );
    }

    #[test]
    fn a_missed_deadline_or_rate_is_408() {
        let past = Pace::within(Duration::ZERO);
        assert_eq!(past.wait(), Err(TIMEOUT));
        let mut slow = Pace::rated(Duration::from_secs(60), 1_000_000, Duration::ZERO);
        slow.start -= Duration::from_secs(1);
        assert_eq!(slow.wait(), Err(TIMEOUT));
        slow.got = 2_000_000;
        assert!(slow.wait().is_ok());
    }
}
