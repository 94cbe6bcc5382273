//! Sessions dying of age and of inactivity, on the portal's clock (moved forward by the test
//! hooks): `timeoutActivity` ends a session left unused longer than it (JSON `GET /` answers
//! 401, error 1, and clears the cookie) and spares one in use; `limette sessions purge` and
//! the server's janitor remove expired sessions and OIDC records and keep live ones.
use super::JSON;
use crate::common::config::poll;
use crate::common::oidc::{builder, code, redeem, rp};
use crate::common::{clock, Portal, Resp};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

fn whoami(p: &Portal, sid: &str) -> Resp {
    let cookie = format!("lemonldap={sid}");
    p.client().get("/", &[JSON, ("Cookie", &cookie)])
}

#[test]
fn a_session_unused_longer_than_timeout_activity_is_gone() {
    let p = Portal::builder()
        .conf("timeoutActivity", json!(600))
        .test_hooks()
        .start();
    let sid = p.login("dwho");
    // Used every 400 s: alive well past 600 s after login.
    for _ in 0..3 {
        clock::advance(&p, 400);
        let r = whoami(&p, &sid);
        assert_eq!(r.status, 200, "used within timeoutActivity: {}", r.text());
    }
    clock::advance(&p, 601);
    let r = whoami(&p, &sid);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "1"}))
    );
    assert_eq!(
        r.cookie("lemonldap").as_deref(),
        Some("0"),
        "cookie cleared"
    );
    assert!(!p.data().join("sessions").join(&sid).exists(), "deleted");
    // Its user logs in again.
    let again = p.login("dwho");
    assert_eq!(whoami(&p, &again).status, 200);
}

#[test]
fn without_timeout_activity_an_idle_session_lives_until_timeout() {
    let p = Portal::builder()
        .conf("timeout", json!(7200))
        .test_hooks()
        .start();
    let sid = p.login("dwho");
    clock::advance(&p, 7000);
    assert_eq!(whoami(&p, &sid).status, 200);
    clock::advance(&p, 201);
    assert_eq!(whoami(&p, &sid).status, 401);
}

/// What a portal holds for the purge tests: ids of records that must go and of those that
/// must stay, with the folders they live in.
struct Records {
    expired: Vec<PathBuf>,
    live: Vec<PathBuf>,
}

/// At t0: dwho's session (timeout 600 s), an access and a refresh token, an unredeemed code
/// (60 s). At t0 + 500: rtyler's session and a code (expires at t0 + 560). Returns the
/// files, with the portal's clock at t0 + 500.
fn fill(p: &Portal) -> Records {
    let sessions = p.data().join("sessions");
    let oidc = sessions.join("oidc");
    let old = p.login("dwho");
    let t = redeem(p, "rp1", &code(p, &old, "rp1", "")).json();
    let token = |k: &str| {
        t[k].as_str()
            .unwrap_or_else(|| panic!("{k}: {t}"))
            .to_string()
    };
    let (at, rt) = (token("access_token"), token("refresh_token"));
    let c1 = code(p, &old, "rp1", "");
    clock::advance(p, 500);
    let young = p.login("rtyler");
    let c2 = code(p, &young, "rp1", "");
    let r = Records {
        expired: vec![sessions.join(old), oidc.join(c1), oidc.join(c2)],
        live: vec![sessions.join(young), oidc.join(at), oidc.join(rt)],
    };
    for f in r.expired.iter().chain(&r.live) {
        assert!(f.is_file(), "{} stored", f.display());
    }
    r
}

fn purge_portal() -> Portal {
    builder(&[("rp1", rp("rp1", json!({"RefreshToken": 1})))])
        .conf("timeout", json!(600))
        .test_hooks()
        .start()
}

/// `limette sessions purge` on the portal's INI, with `env`; returns its stdout.
fn purge_cli(p: &Portal, env: &[(&str, &str)]) -> String {
    let mut cmd = crate::common::portal_command(p, &["sessions", "purge"]);
    cmd.env_remove("LIMETTE_TEST_HOOKS")
        .env_remove("LIMETTE_TEST_CLOCK_SKEW");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run limette sessions purge");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn sessions_purge_removes_expired_records_and_keeps_live_ones() {
    let p = purge_portal();
    let r = fill(&p);
    // Now (t0 + a moment), nothing has expired; the skew needs the test hooks.
    let out = purge_cli(&p, &[("LIMETTE_TEST_CLOCK_SKEW", "700")]);
    assert_eq!(out, "0 expired sessions removed\n");
    // At t0 + 700.
    let at_700 = [
        ("LIMETTE_TEST_HOOKS", "1"),
        ("LIMETTE_TEST_CLOCK_SKEW", "700"),
    ];
    assert_eq!(purge_cli(&p, &at_700), "3 expired sessions removed\n");
    for f in &r.expired {
        assert!(!f.exists(), "{} removed", f.display());
    }
    for f in &r.live {
        assert!(f.is_file(), "{} kept", f.display());
    }
    assert_eq!(purge_cli(&p, &at_700), "0 expired sessions removed\n");
}

#[test]
fn the_janitor_purges_on_its_own() {
    let p = purge_portal();
    let r = fill(&p);
    // Its period (600 s) has not passed at t0 + 500: nothing removed yet.
    assert!(r.expired.iter().all(|f| f.exists()));
    clock::advance(&p, 200);
    let gone = poll(Duration::from_secs(10), || {
        r.expired.iter().all(|f| !f.exists())
    });
    assert!(
        gone,
        "expired records still there: {:?}\n{}",
        r.expired,
        p.log()
    );
    for f in &r.live {
        assert!(f.is_file(), "{} kept", f.display());
    }
}
