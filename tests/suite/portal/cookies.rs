//! The SSO cookie's attributes as a browser reads them: `Secure` only with `securedCookie`,
//! `Domain` only with `domain` (its value as configured, no dot added: LemonLDAP::NG's
//! `cookie()` writes `domain=$conf->{domain}`), `HttpOnly` with `httpOnly`, `SameSite` from
//! `sameSite` (empty: Lax), on the cookie set at login and on the one that clears it at
//! logout.
use super::{form_token, post_login, JSON};
use crate::common::{Portal, Resp};
use serde_json::json;

/// The attributes (lowercased names, values as sent) of the `lemonldap` Set-Cookie.
fn attributes(r: &Resp) -> Vec<(String, String)> {
    attributes_of(r, "lemonldap")
}

/// The attributes of the Set-Cookie of cookie `name`.
fn attributes_of(r: &Resp, name: &str) -> Vec<(String, String)> {
    let prefix = format!("{name}=");
    let line = r
        .headers_named("set-cookie")
        .into_iter()
        .find(|c| c.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {name} cookie: {:?}", r.headers));
    line.split(';')
        .skip(1)
        .map(|a| match a.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim().to_string()),
            None => (a.trim().to_ascii_lowercase(), String::new()),
        })
        .collect()
}

fn has(attrs: &[(String, String)], name: &str) -> bool {
    attrs.iter().any(|(k, _)| k == name)
}

fn domain(attrs: &[(String, String)]) -> Option<&str> {
    value(attrs, "domain")
}

fn value<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The cookies a user meets: JSON login, HTML login, logout.
fn cookies_seen(p: &Portal) -> Vec<(&'static str, Vec<(String, String)>)> {
    let c = p.client();
    let json_login = c.post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert_eq!(json_login.status, 200, "{}", json_login.text());
    let html_login = post_login(&c, "rtyler", &form_token(p));
    let sid = json_login.json()["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let logout = c.get(
        "/?logout=1",
        &[JSON, ("Cookie", &format!("lemonldap={sid}"))],
    );
    vec![
        ("JSON login", attributes(&json_login)),
        ("HTML login", attributes(&html_login)),
        ("logout", attributes(&logout)),
    ]
}

/// The browser-state cookie of session management (`lemonldapopbs`) is the SSO cookie's twin
/// at login and logout, but never `HttpOnly`: the check-session page's script reads it.
#[test]
fn the_browser_state_cookie_follows_the_sso_cookie_but_scripts_read_it() {
    let plain = Portal::start();
    let site = Portal::builder()
        .conf("domain", json!("example.com"))
        .conf("sameSite", json!("None"))
        .conf("securedCookie", json!(1))
        .start();
    for p in [&plain, &site] {
        let c = p.client();
        let login = c.post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
        let sid = login.json()["id"].as_str().unwrap_or_default().to_string();
        let logout = c.get(
            "/?logout=1",
            &[JSON, ("Cookie", &format!("lemonldap={sid}"))],
        );
        for (what, r) in [("login", &login), ("logout", &logout)] {
            let sso = attributes(r);
            let state = attributes_of(r, "lemonldapopbs");
            let without = |a: &[(String, String)]| -> Vec<(String, String)> {
                a.iter().filter(|(k, _)| k != "httponly").cloned().collect()
            };
            assert!(has(&sso, "httponly"), "{what}: {sso:?}");
            assert!(!has(&state, "httponly"), "{what}: {state:?}");
            assert_eq!(without(&sso), without(&state), "{what}");
        }
    }
}

#[test]
fn by_default_the_cookie_is_host_only_and_not_secure() {
    let p = Portal::start();
    for (what, attrs) in cookies_seen(&p) {
        assert!(!has(&attrs, "secure"), "{what}: {attrs:?}");
        assert_eq!(domain(&attrs), None, "{what}: {attrs:?}");
        assert!(has(&attrs, "httponly"), "{what}: {attrs:?}");
        assert_eq!(value(&attrs, "samesite"), Some("Lax"), "{what}: {attrs:?}");
    }
}

#[test]
fn http_only_off_lets_scripts_read_the_cookie() {
    let p = Portal::builder().conf("httpOnly", json!(0)).start();
    for (what, attrs) in cookies_seen(&p) {
        assert!(!has(&attrs, "httponly"), "{what}: {attrs:?}");
    }
}

#[test]
fn same_site_follows_the_setting() {
    for (setting, secured, sent) in [
        ("", 0, "Lax"),
        ("Strict", 0, "Strict"),
        ("Lax", 1, "Lax"),
        ("None", 1, "None"),
    ] {
        let p = Portal::builder()
            .conf("sameSite", json!(setting))
            .conf("securedCookie", json!(secured))
            .start();
        for (what, attrs) in cookies_seen(&p) {
            assert_eq!(
                value(&attrs, "samesite"),
                Some(sent),
                "{setting}: {what}: {attrs:?}"
            );
            assert_eq!(has(&attrs, "secure"), secured == 1, "{what}: {attrs:?}");
            assert!(has(&attrs, "httponly"), "{what}: {attrs:?}");
        }
    }
}

#[test]
fn secured_cookie_adds_secure() {
    let p = Portal::builder().conf("securedCookie", json!(1)).start();
    for (what, attrs) in cookies_seen(&p) {
        assert!(has(&attrs, "secure"), "{what}: {attrs:?}");
        assert_eq!(domain(&attrs), None, "{what}: {attrs:?}");
    }
}

#[test]
fn domain_is_sent_as_configured() {
    for configured in ["example.com", ".example.com"] {
        let p = Portal::builder().conf("domain", json!(configured)).start();
        for (what, attrs) in cookies_seen(&p) {
            assert_eq!(domain(&attrs), Some(configured), "{what}: {attrs:?}");
            assert!(!has(&attrs, "secure"), "{what}: {attrs:?}");
        }
    }
}

#[test]
fn both_together() {
    let p = Portal::builder()
        .conf("securedCookie", json!(1))
        .conf("domain", json!("example.com"))
        .start();
    for (what, attrs) in cookies_seen(&p) {
        assert!(has(&attrs, "secure"), "{what}: {attrs:?}");
        assert_eq!(domain(&attrs), Some("example.com"), "{what}: {attrs:?}");
    }
}
