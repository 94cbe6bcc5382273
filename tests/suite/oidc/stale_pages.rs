//! A consent or a logout confirmation left open longer than `formTimeout` is not refused as a
//! forgery nor re-shown without a word: the page says it was open too long and asks again, in
//! the user's language, and its fresh form works.
use crate::common::oidc::*;
use crate::common::{clock, Portal};
use serde_json::json;

fn portal() -> Portal {
    builder(&[("ask", rp("ask", json!({"BypassConsent": 0})))])
        .test_hooks()
        .start()
}

fn token_of(html: &str) -> String {
    let start = html.find("name=\"token\" value=\"").expect("a token") + 20;
    html[start..].split('"').next().unwrap().to_string()
}

fn consent_fields(token: &str) -> Vec<(&'static str, String)> {
    vec![
        ("response_type", "code".into()),
        ("client_id", "ask".into()),
        ("scope", "openid profile email".into()),
        ("redirect_uri", CB.into()),
        ("state", "st1".into()),
        ("token", token.into()),
        ("confirm", "1".into()),
    ]
}

#[test]
fn a_consent_left_open_too_long_says_so_and_asks_again() {
    let p = portal();
    let sid = p.login("dwho");
    let cookie = format!("lemonldap={sid}");
    let page = authorize(&p, Some(&sid), &query("ask", ""), &[]).text();
    clock::advance(&p, 600);
    let send = |t: &str, lang: &str| {
        let f = consent_fields(t);
        let f: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
        p.client().post_form(
            "/oauth2/authorize",
            &f,
            &[("Cookie", &cookie), ("Accept-Language", lang)],
        )
    };
    let late = send(&token_of(&page), "fr");
    assert_eq!(late.status, 200, "{}", late.text());
    let html = late.text();
    assert!(html.contains("id=\"stale\""), "{html}");
    assert!(html.contains("restée ouverte trop longtemps"), "{html}");
    // A forged token gets the page again without that notice.
    let forged = send("1.0123456789abcdef.00", "en").text();
    assert!(!forged.contains("id=\"stale\""), "{forged}");
    // The fresh form of the notice's page works.
    let ok = send(&token_of(&html), "en");
    assert_eq!(ok.status, 302, "{}", ok.text());
    assert!(ok.header("location").unwrap_or_default().starts_with(CB));
}

#[test]
fn a_logout_confirmation_left_open_too_long_says_so_and_asks_again() {
    let p = portal();
    let sid = p.login("dwho");
    let cookie = format!("lemonldap={sid}");
    let c = p.client();
    let page = c.get("/oauth2/logout", &[("Cookie", &cookie)]).text();
    clock::advance(&p, 600);
    let post = |t: &str| {
        c.post_form(
            "/oauth2/logout",
            &[("confirm", "1"), ("token", t)],
            &[("Cookie", &cookie)],
        )
    };
    let late = post(&token_of(&page));
    assert_eq!(late.status, 200, "not a forgery: {}", late.text());
    let html = late.text();
    assert!(html.contains("id=\"stale\""), "{html}");
    assert!(html.contains("open too long"), "{html}");
    assert!(html.contains("id=\"logout-confirm\""), "{html}");
    let me = c.get("/", &[("Cookie", &cookie), ("Accept", "application/json")]);
    assert_eq!(me.status, 200, "still signed in");
    let done = post(&token_of(&html));
    assert!(done.text().contains("id=\"loggedout\""), "{}", done.text());
    let me = c.get("/", &[("Cookie", &cookie), ("Accept", "application/json")]);
    assert_eq!(me.status, 401, "signed out");
}
