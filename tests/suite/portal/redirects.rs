//! Where the portal sends a browser after login, as an attacker probes it: the `url` target
//! must name the portal or a protected host by scheme, host and port. A protected host
//! without a port is that host on its scheme's default port only, so the same host on
//! another port (another service, maybe the attacker's) is refused.
use super::form_token;
use crate::common::Portal;
use serde_json::json;

fn b64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// Logs in through the HTML form with `url`; the redirect target, if any.
fn login_to(p: &Portal, url: &str) -> Option<String> {
    let token = form_token(p);
    let r = p.client().post_form(
        "/",
        &[
            ("user", "dwho"),
            ("password", "dwho"),
            ("token", &token),
            ("url", &b64(url)),
        ],
        &[],
    );
    assert!(r.cookie("lemonldap").is_some(), "login: {}", r.text());
    // A refused target leaves the user on the portal's landing page (post/redirect/get: a
    // redirect too); `None` then.
    let portal = p.url("/");
    match r.status {
        302 => r
            .header("location")
            .filter(|l| *l != portal || url == portal)
            .map(str::to_string),
        s => panic!("unexpected {s}: {}", r.text()),
    }
}

#[test]
fn a_port_shifted_target_is_refused() {
    let p = Portal::builder()
        .portal_url_matches()
        .conf(
            "locationRules",
            json!({"127.0.0.1": {"default": "accept"}, "app.example.com:8443": {}}),
        )
        .start();
    for allowed in [
        "http://127.0.0.1/app",
        "https://127.0.0.1/app",
        "http://127.0.0.1:80/app",
        "https://app.example.com:8443/x",
        &p.url("/"),
    ] {
        assert_eq!(
            login_to(&p, allowed).as_deref(),
            Some(allowed),
            "{allowed} should be followed"
        );
    }
    for refused in [
        "http://127.0.0.1:4444/",
        "https://127.0.0.1:8443/",
        "http://127.0.0.1:443/",
        "https://app.example.com/x",
        "https://app.example.com:8444/x",
        &format!("https://127.0.0.1:{}/", p.port),
    ] {
        assert_eq!(
            login_to(&p, refused),
            None,
            "{refused} must not be followed"
        );
    }
    // A connected user's GET with a refused url stays on the portal too.
    let sid = p.login("dwho");
    let r = p.client().get(
        &format!("/?url={}", b64("http://127.0.0.1:4444/")),
        &[("Cookie", &format!("lemonldap={sid}"))],
    );
    assert_eq!(r.status, 200, "{:?}", r.headers);
}
