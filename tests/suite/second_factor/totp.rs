//! TOTP end to end: registration from the portal (QR code and secret), a login held until a
//! code computed by pyotp is posted to `/totp2fcheck`, the code refused when used again, wrong
//! codes counted by the brute-force lock, the pending login ending with `sfLoginTimeout`, the
//! browser's pages, the device listed and removed on the command line.
use super::{check, field, held, login, next_step, pyotp, register, sso, start};
use crate::common::{clock, portal_command};
use serde_json::json;

#[test]
fn a_code_from_pyotp_passes_once_and_only_once() {
    let p = start(&[]);
    let c = p.client();
    // Without a device, the password is enough.
    let r = login(&c, "dwho");
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.json()["id"].as_str().unwrap().to_string();
    let secret = register(&p, &sid, "My phone", 0);
    let skew = next_step(&p);
    let token = held(&c, "dwho");
    let code = pyotp(&secret, skew);
    let r = check(&c, &token, &code);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"], 1, "{}", r.text());
    let new_sid = r.json()["id"].as_str().unwrap().to_string();
    assert_eq!(r.cookie("lemonldap").as_deref(), Some(new_sid.as_str()));
    // The token is spent.
    assert_eq!(check(&c, &token, &code).json()["error"], "82");
    // The same code again, on a new login within its window: refused (RFC 6238 5.2).
    let token = held(&c, "dwho");
    let r = check(&c, &token, &code);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["error"], "96", "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
    // The next step's code passes.
    let skew = next_step(&p);
    let token = held(&c, "dwho");
    assert_eq!(check(&c, &token, &pyotp(&secret, skew)).json()["result"], 1);
}

#[test]
fn wrong_codes_count_in_the_lock() {
    let p = start(&[]);
    let c = p.client();
    let sid = p.login("dwho");
    let secret = register(&p, &sid, "phone", 0);
    next_step(&p);
    for _ in 0..3 {
        let token = held(&c, "dwho");
        let r = check(&c, &token, "000000x");
        assert_eq!(r.json()["error"], "96", "{}", r.text());
    }
    // Locked now: the right code is refused with the lock's error, before any check.
    let r = login(&c, "dwho");
    assert_eq!(r.json()["error"], "86", "{}", r.text());
    // After the lock, a right code passes again.
    let skew = clock::advance(&p, 60);
    let token = held(&c, "dwho");
    let r = check(&c, &token, &pyotp(&secret, skew));
    assert_eq!(r.json()["result"], 1, "{}", r.text());
}

#[test]
fn the_pending_login_ends_with_sf_login_timeout() {
    let p = start(&[("sfLoginTimeout", json!(60))]);
    let c = p.client();
    let sid = p.login("dwho");
    let secret = register(&p, &sid, "phone", 0);
    let token = held(&c, "dwho");
    let skew = clock::advance(&p, 61);
    let r = check(&c, &token, &pyotp(&secret, skew));
    assert_eq!(r.json()["error"], "82", "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
}

#[test]
fn a_browser_gets_the_form_then_its_session() {
    let p = start(&[]);
    let c = p.client();
    let sid = p.login("dwho");
    let secret = register(&p, &sid, "phone", 0);
    let skew = next_step(&p);
    let page = c.get("/", &[]);
    let token = field(&page.text(), "token");
    let r = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho"), ("token", &token)],
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    assert!(html.contains("action=\"/totp2fcheck\""), "{html}");
    assert!(
        r.cookie("lemonldap").is_none(),
        "no SSO cookie before the factor"
    );
    let pending = field(&html, "token");
    let r = c.post_form(
        "/totp2fcheck",
        &[("token", &pending), ("code", &pyotp(&secret, skew))],
        &[],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let new_sid = r
        .cookie("lemonldap")
        .expect("the SSO cookie once the code passed");
    let menu = c.get("/", &[("Cookie", &sso(&new_sid))]);
    assert_eq!(menu.status, 200);
    assert!(
        menu.text().contains("2fregisters\""),
        "the manager's link: {}",
        menu.text()
    );
    // French: the form's words.
    let token = field(&c.get("/", &[]).text(), "token");
    let r = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho"), ("token", &token)],
        &[("Accept-Language", "fr")],
    );
    assert!(r.text().contains("Entrez le code TOTP"), "{}", r.text());
}

#[test]
fn devices_are_listed_and_removed_on_the_command_line_and_the_page() {
    let p = start(&[]);
    let sid = p.login("dwho");
    register(&p, &sid, "phone", 0);
    let out = portal_command(&p, &["users", "2f", "list", "dwho"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .next()
        .unwrap_or_else(|| panic!("no device listed: {text}"));
    let cols: Vec<&str> = line.split('\t').collect();
    assert_eq!(&cols[..2], ["TOTP", "phone"], "{line}");
    assert!(!text.to_lowercase().contains("secret"), "{text}");
    // The page lists it with a removal form; the CLI removes it.
    let page = p.client().get("/2fregisters", &[("Cookie", &sso(&sid))]);
    assert!(
        page.text().contains("phone") && page.text().contains("/2fregisters/totp/delete"),
        "{}",
        page.text()
    );
    let out = portal_command(&p, &["users", "2f", "remove", "dwho", "TOTP", cols[2]])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed TOTP phone"));
    // No device any more: the password is enough again.
    assert_eq!(login(&p.client(), "dwho").status, 200);
    let out = portal_command(&p, &["users", "2f", "remove", "dwho", "TOTP", cols[2]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn llng_script_actions_answer_json() {
    let p = start(&[("restSessionServer", json!(1))]);
    let c = p.client();
    let sid = p.login("dwho");
    let cookie = sso(&sid);
    let script = [
        ("Cookie", cookie.as_str()),
        ("X-CSRF-Check", "1"),
        ("Accept", "application/json"),
    ];
    // Without LemonLDAP::NG's header (or the page's token), nothing is made.
    let r = c.post_form("/2fregisters/totp/getkey", &[], &[("Cookie", &cookie)]);
    assert_eq!(r.status, 400, "{}", r.text());
    let r = c.post_form("/2fregisters/totp/getkey", &[], &script);
    assert_eq!(r.status, 200, "{}", r.text());
    let k = r.json();
    assert_eq!(
        (
            k["user"].clone(),
            k["digits"].clone(),
            k["interval"].clone()
        ),
        (json!("dwho"), json!(6), json!(30)),
        "{k}"
    );
    let secret = k["secret"].as_str().unwrap();
    let token = k["token"].as_str().unwrap();
    let bad = c.post_form(
        "/2fregisters/totp/verify",
        &[("token", token), ("code", "123")],
        &script,
    );
    assert_eq!(bad.json()["error"], "badCode", "{}", bad.text());
    let fields = [
        ("token", token),
        ("code", &pyotp(secret, 0)),
        ("TOTPName", "app"),
    ];
    let r = c.post_form("/2fregisters/totp/verify", &fields, &script);
    assert_eq!(r.json(), json!({"result": 1}), "{}", r.text());
    let again = c.post_form("/2fregisters/totp/getkey", &[], &script);
    assert_eq!(again.json()["error"], "totpExistingKey", "{}", again.text());
    // The REST session server hides the devices (hiddenAttributes), as LemonLDAP::NG does.
    let id = super::required::psession_id("dwho");
    let ps = c.get_json(&format!("/sessions/persistent/{id}")).json();
    assert!(
        ps.get("_loginHistory").is_some() && ps.get("_2fDevices").is_none(),
        "{ps}"
    );
}

#[test]
fn the_level_after_the_factor_is_its_authn_level_and_macros_see_it() {
    let p = start(&[
        ("restSessionServer", json!(1)),
        ("totp2fAuthnLevel", json!(5)),
        ("macros", json!({"level_seen": "$authenticationLevel"})),
        ("groups", json!({"strong": "$authenticationLevel >= 5"})),
    ]);
    let c = p.client();
    let sid = p.login("dwho");
    let before = c.get_json(&format!("/sessions/global/{sid}")).json();
    assert_eq!(before["level_seen"], "1", "{before}");
    let secret = register(&p, &sid, "phone", 0);
    let skew = next_step(&p);
    let token = held(&c, "dwho");
    let r = check(&c, &token, &pyotp(&secret, skew));
    let id = r.json()["id"].as_str().unwrap().to_string();
    let s = c.get_json(&format!("/sessions/global/{id}")).json();
    assert_eq!(s["authenticationLevel"], 5, "{s}");
    assert_eq!(s["_2f"], "totp", "{s}");
    assert_eq!(s["level_seen"], "5", "{s}");
    let groups = s["groups"].as_str().unwrap_or_default();
    assert_eq!(groups.matches("strong").count(), 1, "{s}");
}

#[test]
fn an_expired_device_is_removed_and_the_user_told() {
    let p = start(&[
        ("totp2fTTL", json!(3600)),
        ("notification", json!(1)),
        ("sfRemovedMsgRule", json!(1)),
        ("sfRemovedUseNotif", json!(1)),
    ]);
    let c = p.client();
    let sid = p.login("dwho");
    register(&p, &sid, "old phone", 0);
    held(&c, "dwho");
    clock::advance(&p, 3700);
    // The device is gone: no code asked; the notification holds the login instead.
    let r = login(&c, "dwho");
    assert_eq!(r.json()["error"], "36", "{}", r.text());
    let token = field(&c.get("/", &[]).text(), "token");
    let r = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho"), ("token", &token)],
        &[],
    );
    assert!(
        r.text()
            .contains("1 expired second factor(s) has/have been removed (old phone)!"),
        "{}",
        r.text()
    );
    let out = portal_command(&p, &["users", "2f", "list", "dwho"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).trim().is_empty());
}
