//! The chunked transfer coding (RFC 9112 §7.1), decoded as bytes arrive: the reading loop
//! feeds whatever the socket gave, the decoder takes what it can and keeps its place, so a
//! body that trickles in is never parsed twice. Every line ends in CRLF (a bare LF is refused
//! here, where the head tolerates it: a chunk line is where parsers disagree), chunk sizes
//! are bounded hex, the decoded body is bounded by the route's limit, trailers are read and
//! dropped within `MAX_TRAILERS`.
use super::head::{self, Reject, BODY_TOO_LARGE, TOO_LARGE};

/// Largest chunk-size line (with extensions) and largest trailer section.
const MAX_CHUNK_LINE: usize = 1024;
const MAX_TRAILERS: usize = 8 * 1024;

/// Where the decoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Before a chunk-size line.
    Size,
    /// Inside a chunk's data, with this many bytes to go.
    Data(u64),
    /// After a chunk's data, before its CRLF.
    DataEnd,
    /// In the trailer section, with this many bytes of it read.
    Trailers(usize),
    /// The last chunk and the trailers are read.
    Done,
}

/// A chunked body being decoded.
#[derive(Debug)]
pub struct Chunked {
    at: At,
    max: u64,
    /// The decoded body so far.
    pub body: Vec<u8>,
}

impl Chunked {
    /// A decoder whose body may hold at most `max` bytes (413 above).
    pub fn new(max: u64) -> Chunked {
        Chunked {
            at: At::Size,
            max,
            body: Vec::new(),
        }
    }

    /// Whether the whole body has been read.
    pub fn done(&self) -> bool {
        self.at == At::Done
    }

    /// Decodes what it can of `input` and returns how many bytes it used; the rest (an
    /// unfinished line, or the next request once done) is left to the caller.
    pub fn feed(&mut self, input: &[u8]) -> Result<usize, Reject> {
        let mut used = 0;
        while used < input.len() && self.at != At::Done {
            let rest = &input[used..]; // used < len
            let step = match self.at {
                At::Size => self.size_line(rest)?,
                At::Data(left) => {
                    let n = (left.min(rest.len() as u64)) as usize;
                    self.body.extend_from_slice(&rest[..n]); // n <= rest.len()
                    self.at = match left - n as u64 {
                        0 => At::DataEnd,
                        more => At::Data(more),
                    };
                    Some(n)
                }
                At::DataEnd => match rest {
                    [b'\r', b'\n', ..] => {
                        self.at = At::Size;
                        Some(2)
                    }
                    [b'\r'] => None,
                    _ => return Err(Reject::bad("Malformed chunk")),
                },
                At::Trailers(seen) => self.trailer_line(rest, seen)?,
                At::Done => None,
            };
            match step {
                Some(n) => used += n,
                None => break,
            }
        }
        Ok(used)
    }

    /// A chunk-size line: the bytes it took, or None while it is unfinished.
    fn size_line(&mut self, rest: &[u8]) -> Result<Option<usize>, Reject> {
        let Some(line) = crlf_line(rest, MAX_CHUNK_LINE)? else {
            return Ok(None);
        };
        let size = head::chunk_size(line)?;
        if size == 0 {
            self.at = At::Trailers(0);
        } else {
            if self.body.len() as u64 + size > self.max {
                return Err(BODY_TOO_LARGE);
            }
            // The whole chunk is allowed: room for it at once (growing by steps, so that a
            // body of many one-byte chunks is not copied again for each).
            self.body.reserve(size as usize);
            self.at = At::Data(size);
        }
        Ok(Some(line.len() + 2))
    }

    /// A trailer line (dropped); the empty one ends the body.
    fn trailer_line(&mut self, rest: &[u8], seen: usize) -> Result<Option<usize>, Reject> {
        let Some(line) = crlf_line(rest, MAX_TRAILERS)? else {
            return Ok(None);
        };
        let seen = seen + line.len() + 2;
        if seen > MAX_TRAILERS {
            return Err(TOO_LARGE);
        }
        self.at = if line.is_empty() {
            At::Done
        } else {
            At::Trailers(seen)
        };
        Ok(Some(line.len() + 2))
    }
}

/// The line at the start of `rest` without its CRLF, None while unfinished, 400 for a bare
/// LF or a line longer than `max`.
fn crlf_line(rest: &[u8], max: usize) -> Result<Option<&[u8]>, Reject> {
    match rest.iter().position(|&b| b == b'\n') {
        Some(i) if i > 0 && rest[i - 1] == b'\r' && i - 1 <= max => Ok(Some(&rest[..i - 1])),
        Some(_) => Err(Reject::bad("Malformed chunk")),
        None if rest.len() > max + 1 => Err(Reject::bad("Malformed chunk")),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` in pieces of `step` bytes, keeping unused bytes as the reading loop does;
    /// returns the body and what is left once it is done.
    fn decode(input: &[u8], step: usize, max: u64) -> Result<(Vec<u8>, Vec<u8>), Reject> {
        let mut d = Chunked::new(max);
        let mut pending = Vec::new();
        for piece in input.chunks(step) {
            pending.extend_from_slice(piece);
            if !d.done() {
                let used = d.feed(&pending)?;
                pending.drain(..used);
            }
        }
        assert!(d.done());
        Ok((d.body, pending))
    }

    #[test]
    fn bodies_decode_whole_or_a_byte_at_a_time() {
        let input = b"4;x=y\r\nuser\r\n3\r\n=dw\r\n0\r\nTrailer: t\r\n\r\nNEXT";
        for step in [1, 2, 5, input.len()] {
            let (body, rest) = decode(input, step, 100).unwrap();
            assert_eq!(body, b"user=dw", "step {step}");
            assert_eq!(rest, b"NEXT", "step {step}");
        }
    }

    #[test]
    fn bare_lf_bad_sizes_and_oversized_chunks_are_refused() {
        let err = |input: &[u8]| {
            let mut d = Chunked::new(100);
            d.feed(input).map(|_| ()).unwrap_err()
        };
        assert_eq!(err(b"4\nuser\r\n"), Reject::bad("Malformed chunk"));
        assert_eq!(err(b"4\r\nuser\n0\r\n"), Reject::bad("Malformed chunk"));
        assert_eq!(err(b"2\r\nabc\r\n"), Reject::bad("Malformed chunk"));
        assert_eq!(err(b"400\r\n"), BODY_TOO_LARGE);
        assert_eq!(err(b"a3d 8\r\n").status, 400);
        assert_eq!(err(&[b'1'; 2000]).status, 400);
        assert_eq!(err(b"0\r\nX: y\n"), Reject::bad("Malformed chunk"));
        let mut long = b"0\r\n".to_vec();
        for _ in 0..2000 {
            long.extend_from_slice(b"X: y\r\n");
        }
        assert_eq!(err(&long), TOO_LARGE);
    }
}
