//! A login held back by notifications lives as a pending record: past its lifetime (at
//! least ten minutes, `formTimeout` when longer) accepting the notifications releases no
//! session; within it, it does.
use super::{field, form_token, post_login, shown_error};
use crate::common::{clock, Portal, Resp};
use serde_json::json;

/// A portal with notifications at login and one notification for dwho.
fn portal(form_timeout: i64) -> Portal {
    let p = Portal::builder()
        .conf("notification", json!(1))
        .conf("notificationServer", json!(1))
        .conf("formTimeout", json!(form_timeout))
        .test_hooks()
        .start();
    let note = json!({"uid": "dwho", "date": "2024-01-01", "reference": "R1", "check": "ok"});
    let r = p.client().send_json("POST", "/notifications", &note);
    assert_eq!(r.status, 200, "insert: {}", r.text());
    p
}

/// Logs dwho in through the form; returns the pending cookie and the notification form's
/// token (the session is held back).
fn held_login(p: &Portal) -> (String, String) {
    let r = post_login(&p.client(), "dwho", &form_token(p));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.cookie("lemonldap").is_none(), "held back: no SSO cookie");
    let pending = r.cookie("lemonldappending").expect("pending cookie");
    (pending, field(&r.text(), "token"))
}

/// Accepts the notification for the pending login.
fn accept(p: &Portal, pending: &str, token: &str) -> Resp {
    p.client().post_form(
        "/notifback",
        &[
            ("token", token),
            ("reference1x1", "R1"),
            ("check1x1x1", "accepted"),
        ],
        &[("Cookie", &format!("lemonldappending={pending}"))],
    )
}

#[test]
fn an_expired_pending_login_releases_no_session() {
    let p = portal(120);
    let (pending, token) = held_login(&p);
    clock::advance(&p, 601);
    let r = accept(&p, &pending, &token);
    assert_eq!(r.status, 401, "{}", r.text());
    assert!(r.cookie("lemonldap").is_none(), "expired: no SSO cookie");
    // The user logs in again and gets through.
    let (pending, token) = held_login(&p);
    let r = accept(&p, &pending, &token);
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(r.cookie("lemonldap").is_some());
}

#[test]
fn a_pending_login_within_its_lifetime_is_released() {
    let p = portal(120);
    let (pending, token) = held_login(&p);
    clock::advance(&p, 590);
    let r = accept(&p, &pending, &token);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(shown_error(&r.text()), None, "{}", r.text());
    let sid = r.cookie("lemonldap").expect("SSO cookie once accepted");
    let me = p
        .client()
        .get("/", &[super::JSON, ("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(me.status, 200, "{}", me.text());
}

#[test]
fn a_long_form_timeout_lengthens_the_pending_lifetime() {
    let p = portal(3600);
    // Two held logins of the same moment: one accepted in time, one too late.
    let (early, early_token) = held_login(&p);
    let (late, late_token) = held_login(&p);
    clock::advance(&p, 3000);
    let r = accept(&p, &early, &early_token);
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(r.cookie("lemonldap").is_some());

    clock::advance(&p, 601);
    let r = accept(&p, &late, &late_token);
    assert_eq!(r.status, 401, "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
}
