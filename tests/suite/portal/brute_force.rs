//! Brute-force protection as an attacker meets it: after `bruteForceProtectionMaxFailed` wrong
//! passwords the right one is refused with portal error 86 and the seconds left, until the
//! lock ends on the portal's clock; another user logs in meanwhile; the incremental lock grows
//! step by step; the login history stays within its configured lengths.
use super::{form_token, post_login, shown_error, JSON};
use crate::common::{clock, Client, Portal, Resp};
use serde_json::{json, Value};

/// md5("dwho"): dwho's persistent session.
const DWHO_PSESSION: &str = "5efe8af397fc3577e05b483aca964f1b";

fn start(extra: &[(&str, Value)]) -> Portal {
    let mut b = Portal::builder()
        .conf("bruteForceProtection", json!(1))
        .conf("loginHistoryEnabled", json!(1))
        .conf("restSessionServer", json!(1))
        .test_hooks();
    for (k, v) in extra {
        b = b.conf(k, v.clone());
    }
    b.start()
}

/// A JSON login with that password.
fn login(c: &Client, user: &str, password: &str) -> Resp {
    c.post_form("/", &[("user", user), ("password", password)], &[JSON])
}

/// Locked with `seconds` left: the portal's clock is the real one plus the test offset, so a
/// second may tick between the failure and this request (one less is accepted, never more).
fn assert_locked(r: &Resp, seconds: i64) {
    assert_eq!(r.status, 401, "{}", r.text());
    let j = r.json();
    assert_eq!(j["result"], 0, "{j}");
    assert_eq!(j["error"], "86", "{j}");
    let left = j["lockTime"].as_i64().unwrap_or(-1);
    assert!(
        (seconds - 1..=seconds).contains(&left),
        "{seconds} s left expected: {j}"
    );
    assert_eq!(r.header("retry-after"), Some(left.to_string().as_str()));
    assert!(r.cookie("lemonldap").is_none(), "no session while locked");
}

fn history(p: &Portal) -> Value {
    let r = p
        .client()
        .get_json(&format!("/sessions/persistent/{DWHO_PSESSION}"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["_loginHistory"].clone()
}

#[test]
fn the_right_password_is_refused_while_locked_then_accepted() {
    let p = start(&[]);
    let c = p.client();
    for _ in 0..3 {
        let r = login(&c, "dwho", "wrong");
        assert_eq!(r.json()["error"], "5", "{}", r.text());
    }
    // Locked for Tempo (30 s) after the third failure: the right password is refused too.
    assert_locked(&login(&c, "dwho", "dwho"), 30);
    clock::advance(&p, 12);
    assert_locked(&login(&c, "dwho", "dwho"), 18);
    // Another user is not locked.
    assert_eq!(login(&c, "rtyler", "rtyler").status, 200);

    // The HTML page says it too, with the seconds, and has no form.
    let r = post_login(&c, "dwho", &form_token(&p));
    assert_eq!(r.status, 200);
    assert_eq!(shown_error(&r.text()), Some(86), "{}", r.text());
    assert!(
        ["17", "18"].iter().any(|s| r
            .text()
            .contains(&format!("<span id=\"locktime\">{s}</span>"))),
        "{}",
        r.text()
    );
    assert!(!r.text().contains("name=\"password\""), "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());

    // The lock ends 30 s after the last failure.
    clock::advance(&p, 18);
    let r = login(&c, "dwho", "dwho");
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.json()["id"].as_str().unwrap_or_default().to_string();
    assert_eq!(sid.len(), 64);
    let cookie = format!("lemonldap={sid}");
    let out = c.get("/?logout=1", &[JSON, ("Cookie", &cookie)]);
    assert_eq!(out.json()["error"], "47", "{}", out.text());
    let log = p.log();
    assert!(log.contains("audit event=logout user=dwho"), "{log}");
    assert!(
        ["29", "30"].iter().any(|s| log.contains(&format!(
            "audit event=lock user=dwho address=127.0.0.1 seconds={s}"
        ))),
        "{log}"
    );
    assert!(
        log.contains("audit event=login_failed user=dwho address=127.0.0.1 module=Demo"),
        "{log}"
    );
    assert!(
        log.contains("audit event=login user=dwho address=127.0.0.1 module=Demo"),
        "{log}"
    );

    // The failures were not forgotten by the success: one more failure locks again.
    assert_eq!(login(&c, "dwho", "wrong").json()["error"], "5");
    assert_locked(&login(&c, "dwho", "dwho"), 30);
}

#[test]
fn an_unknown_user_is_never_locked_and_never_recorded() {
    let p = start(&[]);
    let c = p.client();
    for _ in 0..5 {
        let r = login(&c, "nobody", "x");
        assert_eq!(r.json()["error"], "5", "{}", r.text());
    }
    assert!(!p.log().contains("event=lock"), "{}", p.log());
}

#[test]
fn the_incremental_lock_walks_its_steps() {
    let p = start(&[
        ("bruteForceProtectionIncrementalTempo", json!(1)),
        ("bruteForceProtectionLockTimes", json!("10, 40")),
        ("bruteForceProtectionMaxFailed", json!(2)),
        ("failedLoginNumber", json!(10)),
    ]);
    let c = p.client();
    // Steps: 0 (one failure is free), 10, 40.
    assert_eq!(login(&c, "dwho", "wrong").json()["error"], "5");
    assert_eq!(login(&c, "dwho", "wrong").json()["error"], "5");
    assert_locked(&login(&c, "dwho", "dwho"), 10);
    // That refused attempt counts as a failure (error 86 in the history): the next step.
    assert_locked(&login(&c, "dwho", "dwho"), 40);
    let failed = history(&p)["failedLogin"].clone();
    let errors: Vec<i64> = failed
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["error"].as_i64().unwrap())
        .collect();
    assert_eq!(errors, vec![86, 5, 5], "newest first: {failed}");
    // The last step is not recorded any more: waiting lowers the time left.
    clock::advance(&p, 15);
    assert_locked(&login(&c, "dwho", "dwho"), 25);
    clock::advance(&p, 25);
    assert_eq!(login(&c, "dwho", "dwho").status, 200);
}

#[test]
fn the_history_keeps_the_configured_number_of_logins() {
    let p = start(&[
        ("successLoginNumber", json!(2)),
        ("failedLoginNumber", json!(3)),
        ("bruteForceProtectionMaxFailed", json!(3)),
    ]);
    let c = p.client();
    for _ in 0..3 {
        assert_eq!(login(&c, "dwho", "dwho").status, 200);
    }
    for _ in 0..2 {
        assert_eq!(login(&c, "dwho", "wrong").json()["error"], "5");
        clock::advance(&p, 100);
    }
    clock::advance(&p, 2000);
    for _ in 0..2 {
        assert_eq!(login(&c, "dwho", "wrong").json()["error"], "5");
    }
    let h = history(&p);
    let ok = h["successLogin"].as_array().unwrap();
    let failed = h["failedLogin"].as_array().unwrap();
    assert_eq!(ok.len(), 2, "{h}");
    assert_eq!(failed.len(), 3, "{h}");
    for e in ok.iter().chain(failed) {
        assert_eq!(e["ipAddr"], "127.0.0.1", "{h}");
        assert!(e["_utime"].as_i64().is_some(), "{h}");
    }
    assert!(failed.iter().all(|f| f["error"] == 5), "{h}");
    assert!(ok.iter().all(|f| f.get("error").is_none()), "{h}");
    // Newest first.
    let t: Vec<i64> = failed
        .iter()
        .map(|f| f["_utime"].as_i64().unwrap())
        .collect();
    assert!(t[0] >= t[1] && t[1] > t[2], "{h}");
    // The SSO session carries the history too, as LemonLDAP::NG's does.
    let sid = p.login("dwho");
    let s = c.get_json(&format!("/sessions/global/{sid}"));
    assert_eq!(
        s.json()["_loginHistory"]["successLogin"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}
