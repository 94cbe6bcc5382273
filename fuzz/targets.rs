//! The bodies of the fuzz targets, shared by the `cargo fuzz` crate (`fuzz/fuzz_targets/`) and
//! by `tests/suite/fuzz_corpus.rs`, which replays the kept corpus and a bounded random walk in CI.
//! Each takes arbitrary bytes, feeds one hand-written parser, and checks what must hold for
//! any input: no panic, and the few properties stated beside each.
#![allow(dead_code)]
use limette::http::{Method, Request};

/// Lossy text of the bytes (the parsers take `&str` where the server gives them text).
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// INI: any text parses or fails with a line-numbered message.
pub fn ini(data: &[u8]) {
    if let Err(e) = limette::config::ini::parse(&text(data)) {
        assert!(e.starts_with("line "), "{e}");
    }
}

/// Form and query decoding: pairs taken from the input, encoded here as the WHATWG URL
/// standard serialises a form, decode back to the very same pairs (a round trip through an
/// encoder independent of the parser).
pub fn urlencoded(data: &[u8]) {
    let s = text(data);
    let pairs: Vec<(String, String)> = s
        .split('\n')
        .map(|line| {
            let (k, v) = line.split_once('\t').unwrap_or((line, ""));
            (format!("k{k}"), v.to_string())
        })
        .collect();
    let lower = data.first().is_some_and(|b| b & 1 == 1);
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}={}", form_encode(k, lower), form_encode(v, lower)))
        .collect();
    let decoded = limette::util::parse_urlencoded(&body.join("&"));
    assert_eq!(decoded, pairs);
}

/// `application/x-www-form-urlencoded` serialisation: space as `+`, `*-._` and alphanumerics
/// as they are, every other UTF-8 byte as `%XX` (in either case of hex digits).
fn form_encode(s: &str, lower: bool) -> String {
    s.bytes()
        .map(|b| match b {
            b' ' => "+".to_string(),
            b if b.is_ascii_alphanumeric() || b"*-._".contains(&b) => (b as char).to_string(),
            b if lower => format!("%{b:02x}"),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// Cookie header: a header built from the input as RFC 6265 section 4.2.1 writes one (values
/// of cookie-octets, pairs joined by `; `) gives back each cookie's value by its name, and no
/// value for a name it does not hold.
pub fn cookie(data: &[u8]) {
    let values: Vec<String> = data
        .split(|b| *b == b'\n')
        .map(|piece| {
            let octets = piece.iter().filter(|b| is_cookie_octet(**b));
            format!("v{}", octets.map(|b| *b as char).collect::<String>())
        })
        .collect();
    let header: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("c{i}={v}"))
        .collect();
    let req = Request::new(Method::Get, "/").with_header("cookie", &header.join("; "));
    for (i, v) in values.iter().enumerate() {
        assert_eq!(req.cookie(&format!("c{i}")).as_deref(), Some(v.as_str()));
    }
    assert_eq!(req.cookie("absent"), None);
}

/// RFC 6265 section 4.1.1: `%x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E`.
fn is_cookie_octet(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E)
}

/// JWT: verification of arbitrary text never succeeds with a key it was not signed with,
/// and peeking never panics.
pub fn jwt(data: &[u8]) {
    let s = text(data);
    let _ = limette::oidc::jwt::peek_claims(&s);
    assert!(limette::oidc::jwt::verify_hs256(&s, b"fuzz-key-never-used-to-sign").is_err());
}

/// Access rules: parse, and evaluate what parses against a small session.
pub fn rules(data: &[u8]) {
    if let Ok(rule) = limette::rules::Rule::parse(&text(data)) {
        let mut attrs = serde_json::Map::new();
        attrs.insert("uid".into(), "dwho".into());
        attrs.insert("groups".into(), "timelords; users".into());
        let _ = rule.eval_at(&attrs, 1_700_000_000);
    }
}

/// Notification JSON (one object or an array).
pub fn notification_json(data: &[u8]) {
    let _ = limette::notifications::model::parse_json(data, "");
}

/// Notification XML (the old format), entity declarations refused.
pub fn notification_xml(data: &[u8]) {
    let _ = limette::notifications::model::parse_xml(&text(data));
}

/// SOAP envelope of the notification server.
pub fn soap(data: &[u8]) {
    let _ = limette::notifications::soap::decode(data);
}

/// A request head as the reading stage meets it: empty lines skipped, the end of the block
/// found, the block parsed (httparse, then Limette's rules), in agreement with the strict
/// line-by-line parser. What parses is well-formed (a method of token characters, a
/// target of visible ASCII, framing of one kind) and parses again to the same head once
/// written out with CRLF, so no reader of our output could frame it differently.
pub fn http_head(data: &[u8]) {
    use limette::server::head;
    let skip = head::leading_empty_lines(data);
    let rest = &data[skip..];
    let Some((lines_end, end)) = head::head_end(rest) else {
        return;
    };
    assert!(lines_end < end && end <= rest.len());
    let served = head::parse_head(&rest[..end]);
    let strict = head::parse(&head::lines(&rest[..lines_end]));
    // What the server runs (httparse, then Limette's rules) accepts only what the strict
    // line-by-line parser accepts, and reads it the same.
    let Ok(h) = served else {
        return;
    };
    assert_eq!(
        strict.as_ref(),
        Ok(&h),
        "httparse accepted what the strict parser refuses"
    );
    assert!(!h.method.is_empty() && !h.target.is_empty());
    assert!(h.target.bytes().all(|b| b.is_ascii_graphic()));
    let te = h.header("transfer-encoding").is_some();
    let cl = h.header("content-length").is_some();
    assert!(!(te && cl), "both framings accepted");
    let version = if h.http10 { "HTTP/1.0" } else { "HTTP/1.1" };
    let mut out = format!("{} {} {version}\r\n", h.method, h.target);
    for (k, v) in &h.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    let again = head::parse(&head::lines(out.trim_end_matches("\r\n").as_bytes()))
        .expect("a written head parses again");
    assert_eq!(again, h);
}

/// The chunked coding decoded as bytes arrive: fed in pieces cut where the input says, it
/// gives the same body, the same refusal and the same leftover as fed whole; a body it
/// accepts, coded again in chunks, decodes to itself.
pub fn chunked(data: &[u8]) {
    use limette::server::chunked::Chunked;
    let whole = decode_in(data, data.len().max(1));
    let step = 1 + data.first().map_or(0, |b| (*b % 7) as usize);
    assert_eq!(decode_in(data, step), whole, "step {step}");
    if let Ok((body, _)) = whole {
        let mut coded = Vec::new();
        for piece in body.chunks(step) {
            coded.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
            coded.extend_from_slice(piece);
            coded.extend_from_slice(b"\r\n");
        }
        coded.extend_from_slice(b"0\r\n\r\n");
        let mut d = Chunked::new(1 << 20);
        assert_eq!(d.feed(&coded), Ok(coded.len()));
        assert!(d.done());
        assert_eq!(d.body, body);
    }
}

/// Decodes `data` fed `step` bytes at a time as the reading loop does: the body and what
/// follows it once done, or the refusal (`Err(None)`: the input ended first).
fn decode_in(
    data: &[u8],
    step: usize,
) -> Result<(Vec<u8>, Vec<u8>), Option<limette::server::head::Reject>> {
    let mut d = limette::server::chunked::Chunked::new(4096);
    let mut pending = Vec::new();
    for piece in data.chunks(step) {
        pending.extend_from_slice(piece);
        if !d.done() {
            let used = d.feed(&pending).map_err(Some)?;
            pending.drain(..used);
        }
    }
    if d.done() {
        Ok((d.body, pending))
    } else {
        Err(None)
    }
}

/// Redirect targets (`url=`, `post_logout_redirect_uri` checks): an origin is found only in
/// an absolute http(s) URL without userinfo, backslash or control, its host lower-case of
/// the characters a host may hold; and the same URL with the default port written out names
/// the same origin.
pub fn redirect_target(data: &[u8]) {
    use limette::Origin;
    let url = text(data);
    let Some(o) = Origin::parse(&url) else {
        return;
    };
    let after_scheme = url.split_once("://").map_or("", |(_, r)| r);
    let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
    assert!(!authority.contains('@'), "userinfo accepted: {url}");
    assert!(!url.bytes().any(|b| b <= 0x20 || b == 0x7f || b == b'\\'));
    assert!(o.scheme == "http" || o.scheme == "https");
    assert!(o
        .host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._[]:".contains(&b)));
    assert_eq!(o.host, o.host.to_ascii_lowercase());
    if o.port.is_none() && !o.host.contains(':') {
        let default = if o.scheme == "https" { 443 } else { 80 };
        let explicit = format!("{}://{}:{default}/", o.scheme, o.host);
        assert_eq!(Origin::parse(&explicit), Some(o));
    }
}

/// A fuzz target: arbitrary bytes in, a panic when something that must hold does not.
pub type Target = fn(&[u8]);

/// Every target by name, for the corpus replay.
pub const ALL: &[(&str, Target)] = &[
    ("ini", ini),
    ("urlencoded", urlencoded),
    ("cookie", cookie),
    ("jwt", jwt),
    ("rules", rules),
    ("notification_json", notification_json),
    ("notification_xml", notification_xml),
    ("soap", soap),
    ("http_head", http_head),
    ("chunked", chunked),
    ("redirect_target", redirect_target),
];
