//! `sfRequired`: a user without a usable device is sent to registration before any SSO
//! session exists, and the login is released once a device is registered (its code is the
//! proof); a `_2fDevices` that does not parse counts as no device (never a bypass: the user
//! registers again), and is logged.
use super::{field, pyotp, start, JSON};
use crate::common::{Client, Portal, Resp};
use serde_json::json;

/// The browser's login form posted for `user`.
fn form_login(c: &Client, user: &str) -> Resp {
    let token = field(&c.get("/", &[]).text(), "token");
    c.post_form(
        "/",
        &[("user", user), ("password", user), ("token", &token)],
        &[],
    )
}

/// Registers from the registration page the held login's cookie opens; the final answer.
fn register_held(p: &Portal, cookie: &str) -> Resp {
    let c = p.client();
    let list = c.get("/2fregisters", &[("Cookie", cookie)]);
    assert_eq!(list.status, 200, "{}", list.text());
    assert!(list.text().contains("/2fregisters/totp"), "{}", list.text());
    let page = c.get("/2fregisters/totp", &[("Cookie", cookie)]);
    let html = page.text();
    let secret: String = html
        .split("id=\"secret\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .unwrap_or_else(|| panic!("no secret in {html}"))
        .split_whitespace()
        .collect();
    let fields = [
        ("csrf", field(&html, "csrf")),
        ("token", field(&html, "token")),
        ("code", pyotp(&secret, 0)),
        ("TOTPName", "laptop".to_string()),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    c.post_form("/2fregisters/totp/verify", &fields, &[("Cookie", cookie)])
}

#[test]
fn a_user_without_a_device_registers_before_the_session_exists() {
    let p = start(&[("sfRequired", json!(1))]);
    let c = p.client();
    let r = form_login(&c, "rtyler");
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(r.header("location").unwrap_or("").ends_with("/2fregisters"));
    assert!(
        r.cookie("lemonldap").is_none(),
        "no SSO cookie before a device"
    );
    let held = r
        .cookie("lemonldap2fregister")
        .expect("the held login's cookie");
    // JSON clients are told where to go, and get no session either.
    let j = c.post_form("/", &[("user", "rtyler"), ("password", "rtyler")], &[JSON]);
    assert_eq!(j.status, 401);
    assert_eq!(j.json()["register"], "/2fregisters", "{}", j.text());
    // Without the cookie, the registration pages are not open.
    assert_eq!(c.get("/2fregisters/totp", &[]).status, 302);
    let cookie = format!("lemonldap2fregister={held}");
    let r = register_held(&p, &cookie);
    assert_eq!(r.status, 302, "{}", r.text());
    let sid = r
        .cookie("lemonldap")
        .expect("the login released once a device is registered");
    assert_eq!(
        c.get("/", &[("Cookie", &format!("lemonldap={sid}"))])
            .status,
        200
    );
    // The pending login is spent.
    let again = c.get("/2fregisters", &[("Cookie", &cookie)]);
    assert_eq!(again.status, 302);
}

#[test]
fn a_malformed_device_list_is_no_device() {
    let p = start(&[("sfRequired", json!(1))]);
    // Write a persistent session whose _2fDevices does not parse.
    let dir = p.data().join("psessions");
    std::fs::create_dir_all(&dir).unwrap();
    let id = psession_id("rtyler");
    let doc = json!({"_session_id": id, "_session_kind": "Persistent", "_session_uid": "rtyler",
        "_utime": 1, "_2fDevices": "[{\"type\":\"TOTP\",\"epoch\":1,\"_secret\":\"!!\"}, garbage"});
    std::fs::write(dir.join(&id), serde_json::to_vec(&doc).unwrap()).unwrap();
    let r = form_login(&p.client(), "rtyler");
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(r.header("location").unwrap_or("").ends_with("/2fregisters"));
    assert!(r.cookie("lemonldap").is_none());
    assert!(
        p.log().contains("corrupted persistent session"),
        "{}",
        p.log()
    );
    // A device whose secret is not base32 is no device either.
    let doc = json!({"_session_id": id, "_session_kind": "Persistent", "_session_uid": "rtyler",
        "_utime": 1, "_2fDevices": "[{\"type\":\"TOTP\",\"name\":\"x\",\"epoch\":1,\"_secret\":\"!!\"}]"});
    std::fs::write(dir.join(&id), serde_json::to_vec(&doc).unwrap()).unwrap();
    let r = form_login(&p.client(), "rtyler");
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
}

/// The persistent session id of a user: md5 of the name, as LemonLDAP::NG computes it.
pub fn psession_id(user: &str) -> String {
    let out = std::process::Command::new("md5sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(user.as_bytes())?;
            child.wait_with_output()
        })
        .expect("md5sum");
    String::from_utf8_lossy(&out.stdout)[..32].to_string()
}
