//! The bodies of the fuzz targets, shared by the `cargo fuzz` crate (`fuzz/fuzz_targets/`) and
//! by `tests/fuzz_corpus.rs`, which replays the kept corpus and a bounded random walk in CI.
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
];
