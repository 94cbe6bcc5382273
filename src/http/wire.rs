//! Answers as bytes on the wire: the status line, the headers (none holding CR or LF), the
//! framing (`Content-Length`, always: every answer is built whole) and `Connection`, which the
//! server decides.
use crate::http::Response;
use std::io::Write;

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
    // Writing to a vector cannot fail.
    let _ = write!(out, "HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    for (k, v) in &resp.headers {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    let _ = write!(out, "Content-Length: {}\r\n", resp.body.len());
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
