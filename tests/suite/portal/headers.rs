//! The security headers as a browser receives them, from LemonLDAP::NG's keys: the
//! Content-Security-Policy of every page (login form, landing page, logout page, error pages),
//! its directives following `csp*`, `portalAntiFrame` and `cspFrameAncestors`, the origin a
//! login form leads to in `form-action`; `nosniff`, `Referrer-Policy` and `no-store` on pages,
//! JSON and redirects; `Strict-Transport-Security` only with an https portal URL, and behind
//! a trusted proxy only when it says the client came over https.
use super::{form_token, post_login, JSON};
use crate::common::{Portal, Resp};
use serde_json::json;

/// LemonLDAP::NG 2.16's policy with its default keys.
const DEFAULT_CSP: &str = "default-src 'self';img-src 'self' data:;style-src 'self';\
font-src 'self';connect-src 'self';script-src 'self';form-action *;frame-ancestors 'none';";

fn csp(r: &Resp) -> &str {
    r.header("content-security-policy")
        .unwrap_or_else(|| panic!("no CSP: {:?}", r.headers))
}

/// The headers every answer carries, page or not.
fn assert_common(what: &str, r: &Resp) {
    assert_eq!(
        r.header("x-content-type-options"),
        Some("nosniff"),
        "{what}: {:?}",
        r.headers
    );
    assert_eq!(
        r.header("referrer-policy"),
        Some("same-origin"),
        "{what}: {:?}",
        r.headers
    );
    let cache = r.header("cache-control").unwrap_or_default();
    assert!(cache.contains("no-store"), "{what}: {:?}", r.headers);
}

#[test]
fn every_page_carries_the_default_policy() {
    let p = Portal::start();
    let c = p.client();
    let sid = p.login("dwho");
    let cookie = format!("lemonldap={sid}");
    let pages = [
        ("login form", c.get("/", &[])),
        ("landing page", c.get("/", &[("Cookie", &cookie)])),
        ("wrong token", post_login(&c, "dwho", "1.forged")),
        ("error page", c.get("/no/such/page", &[])),
        ("logout page", c.get("/?logout=1", &[("Cookie", &cookie)])),
    ];
    for (what, r) in &pages {
        assert!(
            r.header("content-type")
                .unwrap_or_default()
                .starts_with("text/html"),
            "{what}: {:?}",
            r.headers
        );
        assert_eq!(csp(r), DEFAULT_CSP, "{what}");
        assert_eq!(r.header("x-frame-options"), Some("DENY"), "{what}");
        assert_common(what, r);
        assert_eq!(r.header("strict-transport-security"), None, "{what}");
        assert_eq!(r.headers_named("content-security-policy").len(), 1);
        // The pages hold no inline script or style that the policy would block (a script is a
        // file of the portal's own: the time zone's).
        let html = r.text();
        for inline in ["<style", "style="] {
            assert!(!html.contains(inline), "{what}: {inline} in {html}");
        }
        for script in html.split("<script").skip(1) {
            assert!(
                script.starts_with(" src=\"/static/"),
                "{what}: inline script in {html}"
            );
        }
        assert!(!has_event_handler(&html), "{what}: {html}");
    }
}

#[test]
fn json_redirects_and_assets_get_the_common_headers() {
    let p = Portal::builder()
        .portal_url_matches()
        .conf("locationRules", json!({"app.example.com": {}}))
        .start();
    let c = p.client();
    let json = c.post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert_eq!(json.status, 200, "{}", json.text());
    assert_common("JSON login", &json);
    assert_eq!(json.header("content-security-policy"), None);
    let back = b64("http://app.example.com/");
    let token = form_token(&p);
    let redirect = c.post_form(
        "/",
        &[
            ("user", "dwho"),
            ("password", "dwho"),
            ("token", &token),
            ("url", &back),
        ],
        &[],
    );
    assert_eq!(redirect.status, 302, "{}", redirect.text());
    assert_common("redirect after login", &redirect);
    let css = c.get("/static/limette.css", &[]);
    assert_eq!(css.status, 200);
    assert_eq!(css.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(css.header("cache-control"), Some("public, max-age=3600"));
}

#[test]
fn the_keys_change_the_policy() {
    let p = Portal::builder()
        .conf("cspScript", json!("'self' https://cdn.example.com"))
        .conf("cspFont", json!(""))
        .conf("cspFormAction", json!("'self'"))
        .start();
    let page = p.client().get("/", &[]);
    let policy = csp(&page);
    assert!(
        policy.contains(";script-src 'self' https://cdn.example.com;"),
        "{policy}"
    );
    assert!(!policy.contains("font-src"), "{policy}");
    assert!(policy.contains(";form-action 'self';"), "{policy}");

    let framed = Portal::builder().conf("portalAntiFrame", json!(0)).start();
    let page = framed.client().get("/", &[]);
    assert!(!csp(&page).contains("frame-ancestors"), "{}", csp(&page));
    assert_eq!(page.header("x-frame-options"), None);

    let ancestors = Portal::builder()
        .conf("cspFrameAncestors", json!("https://intranet.example.com"))
        .start();
    let page = ancestors.client().get("/", &[]);
    assert!(
        csp(&page).ends_with(";frame-ancestors https://intranet.example.com;"),
        "{}",
        csp(&page)
    );
    assert_eq!(page.header("x-frame-options"), None);
}

/// As LemonLDAP::NG adds its `urldc`: the origin the login form leads to joins `form-action`,
/// so that a restrictive `cspFormAction` still lets the form's redirect through; an origin
/// that is not an allowed target never does.
#[test]
fn the_form_target_joins_form_action() {
    let p = Portal::builder()
        .conf("cspFormAction", json!("'self'"))
        .conf("locationRules", json!({"app.example.com:8443": {}}))
        .start();
    let c = p.client();
    let url = b64("https://app.example.com:8443/inbox");
    let page = c.get(&format!("/?url={}", enc(&url)), &[]);
    assert!(
        csp(&page).contains(";form-action 'self' https://app.example.com:8443;"),
        "{}",
        csp(&page)
    );
    let evil = b64("https://evil.example.com/");
    let page = c.get(&format!("/?url={}", enc(&evil)), &[]);
    assert!(
        csp(&page).contains(";form-action 'self';"),
        "{}",
        csp(&page)
    );
}

#[test]
fn hsts_only_with_an_https_portal() {
    let age = json!("31536000");
    let http = Portal::builder()
        .conf("strictTransportSecurityMax_Age", age.clone())
        .start();
    let r = http.client().get("/", &[]);
    assert_eq!(r.header("strict-transport-security"), None);

    let https = Portal::builder()
        .conf("portal", json!("https://auth.example.com/"))
        .conf("strictTransportSecurityMax_Age", age.clone())
        .start();
    for r in [
        https.client().get("/", &[]),
        https.client().get("/", &[JSON]),
    ] {
        assert_eq!(
            r.header("strict-transport-security"),
            Some("max-age=31536000"),
            "{:?}",
            r.headers
        );
    }
    // Not from a trusted proxy: its X-Forwarded-Proto is the client's word, ignored.
    let r = https.client().get("/", &[("X-Forwarded-Proto", "http")]);
    assert_eq!(
        r.header("strict-transport-security"),
        Some("max-age=31536000")
    );

    let unset = Portal::builder()
        .conf("portal", json!("https://auth.example.com/"))
        .start();
    let r = unset.client().get("/", &[]);
    assert_eq!(r.header("strict-transport-security"), None);
}

/// Behind a trusted proxy, the header follows what the proxy says of the client's scheme: a
/// plain http request it forwards gets none (RFC 6797 §7.2).
#[test]
fn a_trusted_proxy_says_which_requests_came_over_https() {
    let p = Portal::builder()
        .conf("portal", json!("https://auth.example.com/"))
        .conf("strictTransportSecurityMax_Age", json!(600))
        .ini("trustedProxies = 127.0.0.1")
        .start();
    let c = p.client();
    let hsts = |proto: &str| {
        // A proxy names the client too (without it, the request is refused: 400).
        c.get(
            "/",
            &[
                ("X-Forwarded-Proto", proto),
                ("X-Forwarded-For", "192.0.2.7"),
            ],
        )
        .header("strict-transport-security")
        .map(str::to_string)
    };
    assert_eq!(hsts("https").as_deref(), Some("max-age=600"));
    assert_eq!(hsts("http"), None);
    assert_eq!(
        hsts("https, http"),
        None,
        "the proxy's own value is the last"
    );
}

/// An inline event handler attribute (` onclick=`, ` onload=` ...).
fn has_event_handler(html: &str) -> bool {
    html.match_indices(" on").any(|(i, _)| {
        let rest = &html[i + 3..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        !name.is_empty() && rest[name.len()..].starts_with('=')
    })
}

fn b64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn enc(s: &str) -> String {
    crate::common::http::enc(s)
}
