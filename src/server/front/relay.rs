//! The stage's private connection to tiny_http, kept open across the requests of one client
//! connection: a complete request goes in, the whole answer comes back and is re-framed for
//! the client (`Content-Length`, and a `Connection` field saying what the stage decided).
//!
//! One connection per busy client connection saves, on every request, a connect and an
//! accept on the private socket and a hand-over through tiny_http's accepting thread. It is
//! let go when its client connection falls idle (`release`), so idle keep-alive connections
//! hold no thread of tiny_http's.
//!
//! tiny_http is ours and trusted, but its answer is still read with bounds: a deadline
//! (`ANSWER_WAIT`) and a size (`MAX_ANSWER`).
use super::head;
use super::wire::{Fail, Pace, Timed, Wire};
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// Longest wait for tiny_http and a worker to answer a complete request (a handler's own
/// upstream timeouts are shorter; this only keeps a stuck answer from holding a thread).
const ANSWER_WAIT: Duration = Duration::from_secs(300);

/// Largest answer head and body the stage relays.
const MAX_ANSWER_HEAD: usize = 64 * 1024;
const MAX_ANSWER: u64 = 1 << 30;

impl Timed for UnixStream {
    fn set_timeout(&mut self, t: Duration) -> std::io::Result<()> {
        self.set_read_timeout(Some(t.max(Duration::from_millis(1))))
    }
}

/// One client connection's link to tiny_http.
#[derive(Default)]
pub struct Relay {
    link: Option<Wire<UnixStream>>,
}

/// An answer as the client gets it, and whether tiny_http's side ended the exchange.
pub struct Answer {
    /// Status line, headers and body, framed with `Content-Length`.
    pub bytes: Vec<u8>,
    /// The status, for the caller's log.
    pub status: u16,
}

impl Relay {
    /// Lets the private connection go (its tiny_http thread ends); the next exchange opens one.
    pub fn release(&mut self) {
        self.link = None;
    }

    /// Sends one complete request (`request`: head and body as tiny_http reads them) and
    /// returns the answer, its `Connection` field set to `keep`. `head_only`: the request was
    /// a HEAD, whose answer has no body whatever its `Content-Length` says.
    ///
    /// A connection kept from an earlier request may have been closed by tiny_http in the
    /// meantime; when sending fails, or it ends before a byte of answer, the request is sent
    /// again once on a fresh connection (tiny_http answers every request it reads, so one that
    /// got no byte back was never taken up).
    pub fn exchange(
        &mut self,
        inner: &Path,
        request: &[u8],
        head_only: bool,
        keep: bool,
    ) -> std::io::Result<Answer> {
        let reused = self.link.is_some();
        match self.try_exchange(inner, request, head_only, keep) {
            Err(Retry::Fresh) if reused => {
                self.link = None;
                self.try_exchange(inner, request, head_only, keep)
            }
            other => other,
        }
        .map_err(|e| {
            self.link = None;
            match e {
                Retry::Fresh => std::io::Error::other("no answer"),
                Retry::Failed(e) => e,
            }
        })
    }

    fn try_exchange(
        &mut self,
        inner: &Path,
        request: &[u8],
        head_only: bool,
        keep: bool,
    ) -> Result<Answer, Retry> {
        let link = match &mut self.link {
            Some(link) => link,
            None => self.link.insert(Wire::new(UnixStream::connect(inner)?)),
        };
        if link.stream.write_all(request).is_err() {
            return Err(Retry::Fresh);
        }
        let lines = match link.read_head(ANSWER_WAIT, MAX_ANSWER_HEAD) {
            Ok(lines) => lines,
            Err(Fail::Closed) if !link.has_pending() => return Err(Retry::Fresh),
            Err(_) => return Err(Retry::failed("unreadable answer head")),
        };
        let mut parsed = parse_answer(&lines).ok_or_else(|| Retry::failed("malformed answer"))?;
        let mut pace = Pace::within(ANSWER_WAIT);
        let bodiless = head_only || parsed.status < 200 || matches!(parsed.status, 204 | 304);
        let body = match parsed.framing {
            _ if bodiless => Vec::new(),
            Some(framing) => link
                .read_body(framing, MAX_ANSWER, &mut pace)
                .map_err(|_| Retry::failed("answer cut short"))?,
            None => {
                // Delimited by the end of the connection (RFC 9112 §6.3 rule 8).
                parsed.close_after = true;
                link.read_to_end(MAX_ANSWER, &mut pace)
                    .map_err(|_| Retry::failed("answer too large"))?
            }
        };
        if parsed.close_after {
            self.link = None;
        }
        Ok(Answer {
            bytes: reframe(&lines, &body, head_only.then_some(parsed.length), keep),
            status: parsed.status,
        })
    }
}

enum Retry {
    /// Nothing came back: the request may be sent again on a fresh connection.
    Fresh,
    /// Anything else.
    Failed(std::io::Error),
}

impl Retry {
    fn failed(what: &str) -> Retry {
        Retry::Failed(std::io::Error::other(what.to_string()))
    }
}

impl From<std::io::Error> for Retry {
    fn from(e: std::io::Error) -> Retry {
        Retry::Failed(e)
    }
}

/// What the relay needs of an answer head.
struct Parsed {
    status: u16,
    /// The body's framing; `None` when the end of the connection ends it.
    framing: Option<head::Framing>,
    /// The `Content-Length` value as sent (kept on the answer to a HEAD).
    length: Option<String>,
    /// tiny_http's side closes after this answer.
    close_after: bool,
}

fn parse_answer(lines: &[Vec<u8>]) -> Option<Parsed> {
    let status_line = lines.first()?;
    let status = std::str::from_utf8(status_line.get(9..12)?)
        .ok()?
        .parse()
        .ok()?;
    let mut parsed = Parsed {
        status,
        framing: None,
        length: None,
        close_after: false,
    };
    for line in &lines[1..] {
        let line = std::str::from_utf8(line).ok()?;
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            parsed.framing = Some(head::Framing::Length(value.parse().ok()?));
            parsed.length = Some(value.to_string());
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            if !value.eq_ignore_ascii_case("chunked") {
                return None;
            }
            parsed.framing = Some(head::Framing::Chunked);
        } else if name.eq_ignore_ascii_case("connection") {
            parsed.close_after = value.to_ascii_lowercase().contains("close");
        }
    }
    Some(parsed)
}

/// Fields of tiny_http's answer the stage states itself.
const REFRAMED: &[&[u8]] = &[
    b"content-length",
    b"transfer-encoding",
    b"connection",
    b"keep-alive",
];

/// The answer as the client gets it: the status line and headers, minus framing and
/// connection fields, then `Content-Length` (the body's, or for a HEAD the one announced) and
/// `Connection`.
fn reframe(
    lines: &[Vec<u8>],
    body: &[u8],
    head_length: Option<Option<String>>,
    keep: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 512);
    for (i, line) in lines.iter().enumerate() {
        let name = line.split(|&b| b == b':').next().unwrap_or(&[]);
        if i > 0 && REFRAMED.iter().any(|r| name.eq_ignore_ascii_case(r)) {
            continue;
        }
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    let length = match head_length {
        Some(announced) => announced,
        None => Some(body.len().to_string()),
    };
    if let Some(length) = length {
        out.extend_from_slice(b"Content-Length: ");
        out.extend_from_slice(length.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(if keep {
        b"Connection: keep-alive\r\n\r\n"
    } else {
        b"Connection: close\r\n\r\n"
    });
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<Vec<u8>> {
        text.split("\r\n").map(|l| l.as_bytes().to_vec()).collect()
    }

    #[test]
    fn the_stage_decides_framing_and_connection() {
        let head = lines("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\nX-A: b");
        let p = parse_answer(&head).unwrap();
        assert_eq!(p.status, 200);
        assert_eq!(p.framing, Some(head::Framing::Length(2)));
        assert!(p.close_after);
        let out = reframe(&head, b"hi", None, true);
        assert_eq!(
            out,
            b"HTTP/1.1 200 OK\r\nX-A: b\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nhi"
        );
        let chunked = lines("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked");
        let out = reframe(&chunked, b"abc", None, false);
        assert_eq!(
            out,
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"
        );
    }

    #[test]
    fn a_head_answer_keeps_its_announced_length() {
        let head = lines("HTTP/1.1 200 OK\r\nContent-Length: 42");
        let out = reframe(&head, b"", Some(Some("42".into())), true);
        assert_eq!(
            out,
            b"HTTP/1.1 200 OK\r\nContent-Length: 42\r\nConnection: keep-alive\r\n\r\n"
        );
    }

    #[test]
    fn malformed_answers_are_refused() {
        assert!(parse_answer(&lines("HTTP/1.1 2x0 OK")).is_none());
        assert!(parse_answer(&lines("HTTP/1.1 200 OK\r\nContent-Length: x")).is_none());
        assert!(parse_answer(&lines("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip")).is_none());
        assert!(parse_answer(&lines("HTTP/1.1 200 OK\r\nbroken")).is_none());
    }
}
