//! Lifetimes of the OpenID Connect grants on the portal's clock (moved forward by the test
//! hooks): a refresh token past `oidcServiceOfflineSessionExpiration` gets `invalid_grant`
//! while the SSO session lives on; a code or a refresh token whose SSO session was logged
//! out gets `invalid_grant` too.
use super::oauth_err;
use crate::common::clock;
use crate::common::oidc::{builder, code, redeem, rp, token, SECRET};
use crate::common::Portal;
use serde_json::{json, Value};

/// A portal whose `rp1` has refresh tokens living `refresh_ttl` seconds.
fn portal(refresh_ttl: i64) -> Portal {
    builder(&[("rp1", rp("rp1", json!({"RefreshToken": 1})))])
        .conf("oidcServiceOfflineSessionExpiration", json!(refresh_ttl))
        .test_hooks()
        .start()
}

/// The refresh grant of `rp1`.
fn refresh(p: &Portal, refresh_token: &str) -> crate::common::Resp {
    let f = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
    ];
    token(p, Some(("rp1", SECRET)), &f)
}

/// A refresh token of `rp1` for the session `sid`.
fn refresh_token(p: &Portal, sid: &str) -> String {
    let r = redeem(p, "rp1", &code(p, sid, "rp1", ""));
    assert_eq!(r.status, 200, "{}", r.text());
    let t: Value = r.json();
    t["refresh_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no refresh token: {t}"))
        .to_string()
}

fn session_lives(p: &Portal, sid: &str) -> bool {
    let cookie = format!("lemonldap={sid}");
    let r = p
        .client()
        .get("/", &[("Accept", "application/json"), ("Cookie", &cookie)]);
    r.status == 200
}

#[test]
fn a_refresh_token_past_its_lifetime_gets_invalid_grant() {
    let p = portal(3600);
    let sid = p.login("dwho");
    let rt = refresh_token(&p, &sid);
    clock::advance(&p, 3500);
    let r = refresh(&p, &rt);
    assert_eq!(r.status, 200, "within its lifetime: {}", r.text());
    assert!(r.json()["access_token"].is_string());

    clock::advance(&p, 101);
    let r = refresh(&p, &rt);
    assert_eq!(oauth_err(&r), (400, "invalid_grant".into(), None));
    assert!(
        session_lives(&p, &sid),
        "the SSO session outlives the refresh token"
    );
    // A new code gives a new refresh token that works.
    let fresh = refresh_token(&p, &sid);
    assert_eq!(refresh(&p, &fresh).status, 200);
}

#[test]
fn a_code_or_refresh_token_of_a_logged_out_session_gets_invalid_grant() {
    let p = portal(3600);
    let sid = p.login("dwho");
    let rt = refresh_token(&p, &sid);
    let pending_code = code(&p, &sid, "rp1", "");
    assert_eq!(refresh(&p, &rt).status, 200, "before logout");

    let cookie = format!("lemonldap={sid}");
    let r = p.client().get(
        "/?logout=1",
        &[("Accept", "application/json"), ("Cookie", &cookie)],
    );
    assert_eq!(r.json()["error"], "47", "{}", r.text());
    assert!(!session_lives(&p, &sid));

    let r = redeem(&p, "rp1", &pending_code);
    assert_eq!(oauth_err(&r), (400, "invalid_grant".into(), None));
    let r = refresh(&p, &rt);
    assert_eq!(oauth_err(&r), (400, "invalid_grant".into(), None));
}

#[test]
fn a_code_or_refresh_token_of_an_expired_session_gets_invalid_grant() {
    let p = builder(&[("rp1", rp("rp1", json!({"RefreshToken": 1})))])
        .conf("timeout", json!(600))
        .conf("oidcServiceAuthorizationCodeExpiration", json!(3600))
        .test_hooks()
        .start();
    let sid = p.login("dwho");
    let rt = refresh_token(&p, &sid);
    let pending_code = code(&p, &sid, "rp1", "");
    clock::advance(&p, 601);
    let r = redeem(&p, "rp1", &pending_code);
    assert_eq!(oauth_err(&r), (400, "invalid_grant".into(), None));
    let r = refresh(&p, &rt);
    assert_eq!(oauth_err(&r), (400, "invalid_grant".into(), None));
}
