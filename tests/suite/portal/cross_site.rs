//! The JSON login and the JSON logout carry no form token: a browser that says the request
//! comes from another site (an `Origin` that is not the portal's, `Sec-Fetch-Site: cross-site`
//! or `same-site` from a sibling subdomain) is refused, as a page elsewhere would send them with
//! `fetch` (the `Accept` header needs no preflight, and `sameSite = None` lets the cookie go);
//! scripts that send neither header (curl, LemonLDAP::NG's command-line login) still work.
use super::common::{Portal, Resp};
use serde_json::json;

const JSON: (&str, &str) = ("Accept", "application/json");

fn portal() -> Portal {
    Portal::builder()
        .portal_url_matches()
        .conf("sameSite", json!("None"))
        .conf("securedCookie", json!(1))
        .start()
}

fn login(p: &Portal, extra: &[(&str, &str)]) -> Resp {
    let mut h = vec![JSON];
    h.extend_from_slice(extra);
    p.client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &h)
}

fn logout(p: &Portal, sid: &str, extra: &[(&str, &str)]) -> Resp {
    let cookie = format!("lemonldap={sid}");
    let mut h = vec![JSON, ("Cookie", cookie.as_str())];
    h.extend_from_slice(extra);
    p.client().get("/?logout=1", &h)
}

/// Whether the session still opens the portal.
fn alive(p: &Portal, sid: &str) -> bool {
    let cookie = format!("lemonldap={sid}");
    let r = p.client().get("/", &[JSON, ("Cookie", &cookie)]);
    r.json()["result"] == 1
}

fn cross_site_headers(p: &Portal) -> Vec<Vec<(&'static str, String)>> {
    vec![
        vec![("Origin", "https://evil.example.org".into())],
        vec![("Origin", "null".into())],
        // The portal's host on another port is another origin.
        vec![("Origin", format!("http://127.0.0.1:{}", p.port + 1))],
        vec![("Sec-Fetch-Site", "cross-site".into())],
        vec![("Sec-Fetch-Site", "same-site".into())],
    ]
}

#[test]
fn a_cross_site_json_login_is_refused_and_a_script_s_is_not() {
    let p = portal();
    for h in cross_site_headers(&p) {
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = login(&p, &h);
        assert_eq!(r.status, 403, "{h:?}: {}", r.text());
        assert_eq!(r.json()["error"], "81", "{h:?}");
        assert!(r.headers_named("set-cookie").is_empty(), "{h:?}");
    }
    let own = p.url("");
    let own = own.trim_end_matches('/');
    for h in [
        vec![],
        vec![("Origin", own)],
        vec![("Sec-Fetch-Site", "same-origin"), ("Origin", own)],
        vec![("Sec-Fetch-Site", "none")],
    ] {
        let r = login(&p, &h);
        assert_eq!(r.status, 200, "{h:?}: {}", r.text());
        assert!(r.json()["id"].is_string(), "{h:?}");
    }
}

#[test]
fn a_cross_site_json_logout_is_refused_and_a_script_s_is_not() {
    let p = portal();
    let sid = p.login("dwho");
    for h in cross_site_headers(&p) {
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = logout(&p, &sid, &h);
        assert_eq!(r.status, 403, "{h:?}: {}", r.text());
        assert!(alive(&p, &sid), "{h:?} ended the session");
    }
    let r = logout(&p, &sid, &[("Sec-Fetch-Site", "same-origin")]);
    assert_eq!(r.json()["error"], "47", "{}", r.text());
    assert!(!alive(&p, &sid));
    // A script: no Origin, no Sec-Fetch-Site.
    let sid = p.login("dwho");
    assert_eq!(logout(&p, &sid, &[]).json()["error"], "47");
    assert!(!alive(&p, &sid));
}
