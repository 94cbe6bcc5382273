//! The request head as RFC 9112 frames it: the request line (§3), the header fields (§5) and
//! how the body is delimited (§6.3). Pure functions over the bytes the reading stage gathered;
//! anything ambiguous is refused, since an ambiguity between two parsers is what request
//! smuggling is built from.
//!
//! What this does not do: read from a socket (`conn`) or decide about addresses (`admit`).

/// Largest request line plus headers accepted (Apache allows 8 KiB a line, 100 lines).
pub const MAX_HEAD: usize = 64 * 1024;

/// A refusal: the status and the text of the `error` field (its wire form is the error
/// table's, `router::errors::refusal`).
pub use crate::error::Reject;

/// The head is larger than any request Limette serves (the text the tests and clients know).
pub const TOO_LARGE: Reject = Reject::bad("Request line and headers too large");
/// The body is larger than `maxBodySize`.
pub const BODY_TOO_LARGE: Reject = Reject {
    status: 413,
    msg: "Request body too large",
};
/// Too slow: the header block or the body missed its deadline or its rate.
pub const TIMEOUT: Reject = Reject {
    status: 408,
    msg: "Request timeout",
};

/// How the body is delimited (RFC 9112 §6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length` bytes (0 when neither field is present, §6.3 rule 7).
    Length(u64),
    /// `Transfer-Encoding: chunked` (§7.1).
    Chunked,
}

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The method token.
    pub method: String,
    /// The request target, as sent (visible ASCII only).
    pub target: String,
    /// True for HTTP/1.0.
    pub http10: bool,
    /// Header fields, names as sent, values without surrounding whitespace.
    pub headers: Vec<(String, String)>,
    /// The body's framing.
    pub framing: Framing,
}

impl Head {
    /// The first value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether a comma-separated header holds `token` (case-insensitive).
    pub fn has_token(&self, name: &str, token: &str) -> bool {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .flat_map(|(_, v)| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    }

    /// Whether the client wants the connection kept after this request (RFC 9112 §9.3).
    pub fn keep_alive(&self) -> bool {
        if self.has_token("connection", "close") {
            return false;
        }
        !self.http10 || self.has_token("connection", "keep-alive")
    }
}

/// Most header fields in one request (Apache's default is 100); 400 above.
const MAX_FIELDS: usize = 128;

/// Parses a head block (the request line, the fields, the empty line that ends them; no
/// empty lines before it). `httparse` tokenizes it, two to three times faster than the
/// line-by-line parser below (`examples/head_parsers.rs`), and Limette's own rules are
/// applied on top: a target and field values of visible ASCII (httparse lets obs-text
/// through), one `Host`, and the framing of RFC 9112 §6.3. A head that either refuses goes to
/// the line-by-line parser, which says why in the words the clients and tests know: nothing
/// is accepted that both do not accept.
pub fn parse_head(block: &[u8]) -> Result<Head, Reject> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_FIELDS];
    let mut req = httparse::Request::new(&mut fields);
    match req.parse(block) {
        Ok(httparse::Status::Complete(_)) => {}
        Err(httparse::Error::TooManyHeaders) => return Err(TOO_LARGE),
        _ => return explain(block),
    }
    let (Some(method), Some(target), Some(version)) = (req.method, req.path, req.version) else {
        return explain(block);
    };
    if target.is_empty() || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return explain(block);
    }
    let mut headers = Vec::with_capacity(req.headers.len());
    for h in req.headers.iter() {
        let visible = h
            .value
            .iter()
            .all(|&b| b.is_ascii_graphic() || b == b' ' || b == b'\t');
        let Some(value) = std::str::from_utf8(h.value).ok().filter(|_| visible) else {
            return explain(block);
        };
        let value = value.trim_matches([' ', '\t']);
        headers.push((h.name.to_string(), value.to_string()));
    }
    let http10 = version == 0;
    host(&headers, http10)?;
    let framing = framing(&headers, http10)?;
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        http10,
        headers,
        framing,
    })
}

/// Why a head httparse or Limette's rules refused is refused: the line-by-line parser's
/// answer, or a plain 400 when only httparse objected.
fn explain(block: &[u8]) -> Result<Head, Reject> {
    let lines_end = head_end(block).map_or(block.len(), |(l, _)| l);
    match parse(&lines(&block[..lines_end])) {
        Err(r) => Err(r),
        Ok(_) => Err(Reject::bad("Malformed request")),
    }
}

/// Parses a head line by line: the lines before the empty line, each without its line
/// ending. The strict reference `parse_head` defers to for its refusals.
pub fn parse(lines: &[&[u8]]) -> Result<Head, Reject> {
    let (first, fields) = lines
        .split_first()
        .ok_or(Reject::bad("Malformed request line"))?;
    let (method, target, http10) = request_line(first)?;
    let mut headers = Vec::with_capacity(fields.len());
    for line in fields {
        headers.push(field(line)?);
    }
    host(&headers, http10)?;
    let framing = framing(&headers, http10)?;
    Ok(Head {
        method,
        target,
        http10,
        headers,
        framing,
    })
}

/// RFC 9112 §3: `method SP request-target SP HTTP-version`, nothing else. A byte outside
/// visible ASCII (a raw `\xff`, a space too many) is a 400, not a closed connection.
fn request_line(line: &[u8]) -> Result<(String, String, bool), Reject> {
    let bad = Reject::bad("Malformed request line");
    let text = std::str::from_utf8(line).map_err(|_| bad.clone())?;
    let mut parts = text.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad);
    };
    if method.is_empty() || !method.bytes().all(is_tchar) {
        return Err(bad);
    }
    if target.is_empty() || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad);
    }
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        v if v.starts_with("HTTP/") && v.len() == 8 => {
            return Err(Reject {
                status: 505,
                msg: "HTTP version not supported",
            })
        }
        _ => return Err(bad),
    };
    Ok((method.to_string(), target.to_string(), http10))
}

/// RFC 9112 §5: `name ":" OWS value OWS`. No whitespace before the colon (§5.1), no line
/// folding (§5.2), and values of visible ASCII, space and tab only.
fn field(line: &[u8]) -> Result<(String, String), Reject> {
    let bad = Reject::bad("Malformed header field");
    let colon = line.iter().position(|&b| b == b':').ok_or(bad.clone())?;
    let (name, value) = (&line[..colon], &line[colon + 1..]); // colon < len: found just above
    if name.is_empty() || !name.iter().copied().all(is_tchar) {
        return Err(bad);
    }
    if !value
        .iter()
        .all(|&b| b.is_ascii_graphic() || b == b' ' || b == b'\t')
    {
        return Err(bad);
    }
    let name = String::from_utf8_lossy(name).into_owned();
    let value = String::from_utf8_lossy(value)
        .trim_matches([' ', '\t'])
        .to_string();
    Ok((name, value))
}

/// RFC 9112 §3.2: an HTTP/1.1 request without `Host`, any request with more than one, or
/// one whose value is not a single authority, is a 400.
fn host(headers: &[(String, String)], http10: bool) -> Result<(), Reject> {
    let mut hosts = headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("host"));
    match (hosts.next(), hosts.next()) {
        (None, _) if http10 => Ok(()),
        (None, _) => Err(Reject::bad("Missing Host header")),
        (Some(_), Some(_)) => Err(Reject::bad("More than one Host header")),
        (Some((_, v)), None) if v.bytes().any(|b| b == b',' || b == b' ' || b == b'\t') => {
            Err(Reject::bad("Malformed Host header"))
        }
        (Some(_), None) => Ok(()),
    }
}

/// Where the header block ends in `buf` (which starts at the request line): (bytes of its
/// lines, bytes including the empty line). Lines may end in CRLF or a bare LF (RFC 9112 §2.2).
pub fn head_end(buf: &[u8]) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(i) = buf[from..].iter().position(|&b| b == b'\n') {
        let i = from + i; // a position found in buf[from..]
        match (buf.get(i + 1), buf.get(i + 2)) {
            (Some(b'\n'), _) => return Some((i, i + 2)),
            (Some(b'\r'), Some(b'\n')) => return Some((i, i + 3)),
            _ => {}
        }
        from = i + 1;
    }
    None
}

/// How many bytes of empty lines (CRLF or LF) precede a request line (RFC 9112 §2.2: they are
/// ignored). A lone CR is not an empty line: it stays, and the request line is malformed.
pub fn leading_empty_lines(buf: &[u8]) -> usize {
    let mut i = 0;
    loop {
        match (buf.get(i), buf.get(i + 1)) {
            (Some(b'\n'), _) => i += 1,
            (Some(b'\r'), Some(b'\n')) => i += 2,
            _ => return i,
        }
    }
}

/// Splits a header block (without its empty line) into lines without their line endings.
pub fn lines(block: &[u8]) -> Vec<&[u8]> {
    block
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect()
}

/// RFC 9110 §5.6.2 token characters.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// RFC 9112 §6.3: how the body ends, refusing every ambiguous case.
fn framing(headers: &[(String, String)], http10: bool) -> Result<Framing, Reject> {
    let values = |name: &str| -> Vec<String> {
        headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .flat_map(|(_, v)| v.split(',').map(|s| s.trim().to_ascii_lowercase()))
            .collect()
    };
    let te = values("transfer-encoding");
    let cl = values("content-length");
    if !te.is_empty() {
        // §6.3 rule 3: both fields is a smuggling attempt; answer 400 and close.
        if !cl.is_empty() {
            return Err(Reject::bad("Content-Length and Transfer-Encoding together"));
        }
        // §6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing.
        if http10 {
            return Err(Reject::bad("Transfer-Encoding in an HTTP/1.0 request"));
        }
        // §6.1 and RFC 9110 §15.6.2: chunked is the only coding understood; any other
        // (alone or before chunked) is 501.
        return match te.as_slice() {
            [only] if only == "chunked" => Ok(Framing::Chunked),
            _ => Err(Reject {
                status: 501,
                msg: "Transfer coding not implemented",
            }),
        };
    }
    // §6.3 rule 5: every value (a list or repeated fields) must be the same decimal number.
    let mut length = None;
    for v in &cl {
        if v.is_empty() || v.len() > 19 || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Reject::bad("Malformed Content-Length"));
        }
        let n: u64 = v
            .parse()
            .map_err(|_| Reject::bad("Malformed Content-Length"))?;
        if length.is_some_and(|l| l != n) {
            return Err(Reject::bad("Differing Content-Length values"));
        }
        length = Some(n);
    }
    Ok(Framing::Length(length.unwrap_or(0)))
}

/// Parses a chunk-size line (RFC 9112 §7.1): hex digits, then optional extensions, which are
/// ignored. At most 15 digits, so the size cannot overflow before the body limit applies.
pub fn chunk_size(line: &[u8]) -> Result<u64, Reject> {
    let bad = Reject::bad("Malformed chunk size");
    let digits = line
        .iter()
        .position(|b| !b.is_ascii_hexdigit())
        .unwrap_or(line.len());
    let rest = &line[digits..]; // digits <= len by construction
    if digits == 0 || digits > 15 {
        return Err(bad);
    }
    // chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ): after the digits,
    // optional whitespace and then a semicolon, or nothing at all (`a3d 8` is malformed).
    let ext = rest.iter().position(|&b| b != b' ' && b != b'\t');
    let ext_ok = rest.is_empty() || ext.is_some_and(|i| rest.get(i) == Some(&b';'));
    if !ext_ok
        || !rest
            .iter()
            .all(|&b| b.is_ascii_graphic() || b == b' ' || b == b'\t')
    {
        return Err(bad);
    }
    let hex = std::str::from_utf8(&line[..digits]).map_err(|_| bad.clone())?;
    u64::from_str_radix(hex, 16).map_err(|_| bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text`, with a `Host` field added after the request line unless it has one.
    fn head(text: &str) -> Result<Head, Reject> {
        let mut lines: Vec<&[u8]> = text.split("\r\n").map(str::as_bytes).collect();
        if !text.to_ascii_lowercase().contains("\r\nhost:") {
            lines.insert(1, b"Host: x");
        }
        parse(&lines)
    }

    /// A head both ways: the lines joined as on the wire, through `parse_head`; its verdict
    /// must be the line-by-line parser's.
    fn both(text: &[u8]) -> Result<Head, Reject> {
        let mut block = text.to_vec();
        block.extend_from_slice(b"\r\n\r\n");
        let fast = parse_head(&block);
        let slow = parse(&lines(text));
        match (&fast, &slow) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert!(a.status == b.status || *a == TOO_LARGE, "{a:?} {b:?}"),
            _ => panic!(
                "{:?}: {fast:?} against {slow:?}",
                String::from_utf8_lossy(text)
            ),
        }
        fast
    }

    #[test]
    fn httparse_and_the_line_parser_agree() {
        let ok: &[&[u8]] = &[
            b"GET / HTTP/1.1\r\nHost: x",
            b"POST /t?a=b HTTP/1.1\r\nHost: x\r\nContent-Length:  12 \r\nX-E:",
            b"GET * HTTP/1.0",
            b"OPTIONS http://a/b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked",
        ];
        for t in ok {
            assert!(both(t).is_ok(), "{:?}", String::from_utf8_lossy(t));
        }
        let refused: &[&[u8]] = &[
            b"GET / HTTP/1.1\r\nHost: x\r\nX: a\xffb",
            b"GET / HTTP/1.1\r\nHost: x\r\nX : a",
            b"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b",
            b"GET  / HTTP/1.1\r\nHost: x",
            b"GET /\xff HTTP/1.1\r\nHost: x",
            b"GET / HTTP/2.0",
            b"GET / FTP/1.0",
            b"G(T / HTTP/1.1\r\nHost: x",
            b"GET / HTTP/1.1",
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2",
        ];
        for t in refused {
            assert!(both(t).is_err(), "{:?}", String::from_utf8_lossy(t));
        }
        assert_eq!(both(b"GET / HTTP/2.0").unwrap_err().status, 505);
        let mut many = b"GET / HTTP/1.1\r\nHost: x".to_vec();
        for i in 0..200 {
            many.extend_from_slice(format!("\r\nX-{i}: y").as_bytes());
        }
        many.extend_from_slice(b"\r\n\r\n");
        assert_eq!(parse_head(&many), Err(TOO_LARGE));
    }

    #[test]
    fn host_is_required_once_in_http11() {
        let status = |t: &str| {
            let lines: Vec<&[u8]> = t.split("\r\n").map(str::as_bytes).collect();
            parse(&lines).map(|_| 200).unwrap_or_else(|r| r.status)
        };
        assert_eq!(status("GET / HTTP/1.1\r\nHost: a"), 200);
        assert_eq!(status("GET / HTTP/1.0"), 200);
        assert_eq!(status("GET / HTTP/1.1"), 400);
        assert_eq!(status("GET / HTTP/1.1\r\nHost: a\r\nhost: b"), 400);
        assert_eq!(status("GET / HTTP/1.0\r\nHost: a\r\nHost: a"), 400);
        assert_eq!(status("GET / HTTP/1.1\r\nHost: a, b"), 400);
    }

    #[test]
    fn only_whole_empty_lines_precede_a_request_line() {
        assert_eq!(leading_empty_lines(b"\r\n\nGET"), 3);
        assert_eq!(leading_empty_lines(b"\rGET"), 0);
        assert_eq!(head_end(b"a\r\nb\r"), None);
        assert_eq!(head_end(b"a\r\nb\r\n\r\n"), Some((5, 8)));
        assert_eq!(head_end(b"a\nb\n\nrest"), Some((3, 5)));
        assert_eq!(lines(b"a\r\nb"), vec![&b"a"[..], b"b"]);
    }

    #[test]
    fn a_plain_request_parses() {
        let h = head("POST /oauth2/token?a=b HTTP/1.1\r\nHost: x\r\nContent-Length:  12 ").unwrap();
        assert_eq!(
            (h.method.as_str(), h.target.as_str()),
            ("POST", "/oauth2/token?a=b")
        );
        assert_eq!(h.framing, Framing::Length(12));
        assert_eq!(h.header("content-length"), Some("12"));
        assert!(h.keep_alive());
        let h = head("GET / HTTP/1.0\r\nConnection: Keep-Alive").unwrap();
        assert!(h.http10 && h.keep_alive());
        assert!(!head("GET / HTTP/1.0").unwrap().keep_alive());
        assert!(!head("GET / HTTP/1.1\r\nConnection: close")
            .unwrap()
            .keep_alive());
        let h = head("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked").unwrap();
        assert_eq!(h.framing, Framing::Chunked);
        let same = head("POST / HTTP/1.1\r\nContent-Length: 4, 4\r\nContent-Length: 4").unwrap();
        assert_eq!(same.framing, Framing::Length(4));
    }

    #[test]
    fn smuggling_shapes_are_refused() {
        let status = |t: &str| head(t).map(|_| 200).unwrap_or_else(|r| r.status);
        assert_eq!(
            status("POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked"),
            400
        );
        assert_eq!(
            status("POST / HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 50"),
            400
        );
        assert_eq!(status("POST / HTTP/1.1\r\nContent-Length: 4, 5"), 400);
        for cl in ["+4", "-1", "0x10", "4 4", "", "99999999999999999999"] {
            assert_eq!(
                status(&format!("POST / HTTP/1.1\r\nContent-Length: {cl}")),
                400,
                "{cl}"
            );
        }
        assert_eq!(status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip"), 501);
        assert_eq!(
            status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked"),
            501
        );
        assert_eq!(
            status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked"),
            501
        );
        assert_eq!(status("POST / HTTP/1.0\r\nTransfer-Encoding: chunked"), 400);
        assert_eq!(status("GET / HTTP/1.1\r\nContent-Length : 4"), 400);
        assert_eq!(status("GET / HTTP/1.1\r\nX: a\r\n folded"), 400);
    }

    #[test]
    fn malformed_request_lines_are_400() {
        let status = |t: &[u8]| parse(&[t]).map(|_| 200).unwrap_or_else(|r| r.status);
        assert_eq!(status(b"GET /\xff\xfe HTTP/1.1"), 400);
        assert_eq!(status(b"GET  / HTTP/1.1"), 400);
        assert_eq!(status(b"GET / HTTP/1.1 x"), 400);
        assert_eq!(status(b"GET /"), 400);
        assert_eq!(status(b"G(T / HTTP/1.1"), 400);
        assert_eq!(status(b"GET / HTTP/2.0"), 505);
        assert_eq!(status(b"GET / FTP/1.0"), 400);
        assert_eq!(
            parse(&[b"GET / HTTP/1.1", b"Cookie: a=\xff"])
                .unwrap_err()
                .status,
            400
        );
        assert_eq!(parse(&[]).unwrap_err().status, 400);
    }

    #[test]
    fn chunk_sizes_are_bounded_hex() {
        assert_eq!(chunk_size(b"1b"), Ok(27));
        assert_eq!(chunk_size(b"0;ext=1"), Ok(0));
        assert_eq!(chunk_size(b"FFFFFFFFFFFFFFF"), Ok(0xFFF_FFFF_FFFF_FFFF));
        assert_eq!(chunk_size(b"1b ;a=b"), Ok(27));
        for bad in [
            &b""[..],
            b"x",
            b"-1",
            b"1x",
            b"FFFFFFFFFFFFFFFF",
            b"1;\xff",
            b"a3d 8",
            b"a3d ",
        ] {
            assert!(chunk_size(bad).is_err(), "{bad:?}");
        }
    }
}
