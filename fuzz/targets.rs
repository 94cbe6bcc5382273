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

/// Form and query decoding: never more pairs than `&`-separated pieces.
pub fn urlencoded(data: &[u8]) {
    let s = text(data);
    let pairs = limette::util::parse_urlencoded(&s);
    assert!(pairs.len() <= s.split('&').count());
}

/// Cookie header: a found value never holds a `;`.
pub fn cookie(data: &[u8]) {
    let s = text(data);
    let (name, header) = s.split_once('\n').unwrap_or(("lemonldap", s.as_str()));
    let req = Request::new(Method::Get, "/").with_header("cookie", header);
    if let Some(v) = req.cookie(name) {
        assert!(!v.contains(';'), "{v:?}");
    }
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
