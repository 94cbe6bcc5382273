//! `maxBodySize` holds on every endpoint that takes a body: a body over it is answered 413
//! (before any handler sees it, so even endpoints that take no body or refuse the method
//! answer 413), a body under it reaches the handler. The endpoints are those of `router.rs`
//! and its areas that read a body.
use crate::common::{Portal, Resp};
use serde_json::json;

const LIMIT: usize = 1024;
const SID: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const FORM: &str = "application/x-www-form-urlencoded";
const JSON_TYPE: &str = "application/json";

/// Method, path, content type and an extra header of a request with a body.
type Endpoint = (
    &'static str,
    &'static str,
    &'static str,
    Option<(&'static str, &'static str)>,
);

/// Every endpoint that reads a body.
const ENDPOINTS: [Endpoint; 17] = [
    ("POST", "/", FORM, None),
    ("POST", "/?logout=1", FORM, None),
    ("POST", "/oauth2/", FORM, None),
    ("POST", "/oauth2/authorize", FORM, None),
    ("POST", "/oauth2/token", FORM, None),
    ("POST", "/oauth2/introspect", FORM, None),
    ("POST", "/oauth2/userinfo", FORM, None),
    ("POST", "/oauth2/logout", FORM, None),
    ("POST", "/notifications", JSON_TYPE, None),
    (
        "POST",
        "/notifications",
        "text/xml",
        Some(("SOAPAction", "\"urn:x#newEntry\"")),
    ),
    ("POST", "/sessions/global", JSON_TYPE, None),
    (
        "PUT",
        "/sessions/global/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        JSON_TYPE,
        None,
    ),
    ("POST", "/notifback", FORM, None),
    ("POST", "/mynotifications", FORM, None),
    ("POST", "/session/my/global", JSON_TYPE, None),
    ("POST", "/config", JSON_TYPE, None),
    ("PUT", "/config/latest", JSON_TYPE, None),
];

fn portal() -> Portal {
    Portal::builder()
        .ini(&format!("maxBodySize = {LIMIT}"))
        .conf("restSessionServer", json!(1))
        .conf("restConfigServer", json!(1))
        .conf("notification", json!(1))
        .conf("notificationServer", json!(1))
        .start()
}

fn send(p: &Portal, endpoint: Endpoint, body: &[u8]) -> Resp {
    let (method, path, content_type, extra) = endpoint;
    let cookie = format!("lemonldap={SID}");
    let mut headers = vec![
        ("Content-Type", content_type),
        ("Accept", "application/json"),
        ("Cookie", cookie.as_str()),
    ];
    headers.extend(extra);
    p.client().send(method, path, &headers, body)
}

#[test]
fn a_body_over_max_body_size_is_413_everywhere() {
    let p = portal();
    // A form field, JSON or XML made long: what each endpoint would parse if it were smaller.
    let over = format!("user={}", "x".repeat(LIMIT));
    for endpoint in ENDPOINTS {
        let r = send(&p, endpoint, over.as_bytes());
        assert_eq!(r.status, 413, "{endpoint:?}: {}", r.text());
    }
    // The server keeps serving after each refusal.
    let sid = p.login("dwho");
    assert_eq!(sid.len(), 64);
}

#[test]
fn a_body_within_max_body_size_reaches_the_handler() {
    let p = portal();
    let under = format!("user={}", "x".repeat(LIMIT - 10));
    for endpoint in ENDPOINTS {
        let r = send(&p, endpoint, under.as_bytes());
        assert_ne!(r.status, 413, "{endpoint:?}: {}", r.text());
        assert!(
            r.status >= 200 && r.status < 500,
            "{endpoint:?}: {}",
            r.text()
        );
    }
    // Exactly at the limit is still accepted.
    let head = "user=dwho&password=dwho&pad=";
    let exact = format!("{head}{}", "x".repeat(LIMIT - head.len()));
    assert_eq!(exact.len(), LIMIT);
    let r = send(&p, ENDPOINTS[0], exact.as_bytes());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"], 1);
}
