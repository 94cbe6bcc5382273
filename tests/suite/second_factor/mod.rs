//! Second factors as users meet them: TOTP registered from the portal and proven at login with
//! codes computed by an independent library (`pyotp`), a code refused twice, wrong codes in
//! the brute-force lock, the pending login's timeout, `sfRequired` sending a user without a
//! device to registration before any session exists, a malformed `_2fDevices`, the command
//! line and the console.
use crate::common::{clock, Builder, Client, Portal, Resp};
use serde_json::{json, Value};
use std::process::Command;

mod browser;
mod console;
mod llng;
mod llng_node;
mod oidc;
mod removed;
mod required;
mod totp;
mod webauthn_conf;
mod webauthn_llng;
mod webauthn_llng_node;

/// The header of a JSON client.
pub const JSON: (&str, &str) = ("Accept", "application/json");

/// A portal with TOTP enabled (and self-registration), the brute-force lock and test hooks,
/// plus `extra`.
pub fn start(extra: &[(&str, Value)]) -> Portal {
    builder(extra).start()
}

/// The builder of [`start`].
pub fn builder(extra: &[(&str, Value)]) -> Builder {
    let mut b = Portal::builder()
        .portal_url_matches()
        .conf("totp2fActivation", json!(1))
        .conf("totp2fSelfRegistration", json!(1))
        .conf("bruteForceProtection", json!(1))
        .conf("loginHistoryEnabled", json!(1))
        .test_hooks();
    for (k, v) in extra {
        b = b.conf(k, v.clone());
    }
    b
}

/// The TOTP code of `secret` at the portal's clock (the real one plus `skew`), computed by
/// pyotp in the tests' virtual environment.
pub fn pyotp(secret: &str, skew: i64) -> String {
    let out = Command::new(crate::python::python())
        .arg("-c")
        .arg("import pyotp, sys, time; print(pyotp.TOTP(sys.argv[1]).at(time.time() + int(sys.argv[2])))")
        .arg(secret)
        .arg(skew.to_string())
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "pyotp: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The value of a hidden field in a page.
pub fn field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    html.split(&marker)
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no field {name} in {html}"))
        .to_string()
}

/// The SSO cookie header of a session.
pub fn sso(sid: &str) -> String {
    format!("lemonldap={sid}")
}

/// A JSON login with password = user name.
pub fn login(c: &Client, user: &str) -> Resp {
    c.post_form("/", &[("user", user), ("password", user)], &[JSON])
}

/// Registers a TOTP device named `name` for the connected session `sid` through the
/// registration page, as a browser does; returns its secret (base32).
pub fn register(p: &Portal, sid: &str, name: &str, skew: i64) -> String {
    let c = p.client();
    let cookie = sso(sid);
    let page = c.get("/2fregisters/totp", &[("Cookie", &cookie)]);
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(html.contains("<svg"), "an inline SVG QR code: {html}");
    let secret: String = html
        .split("id=\"secret\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .expect("the secret as text")
        .split_whitespace()
        .collect();
    let (csrf, token) = (field(&html, "csrf"), field(&html, "token"));
    let code = pyotp(&secret, skew);
    let r = c.post_form(
        "/2fregisters/totp/verify",
        &[
            ("csrf", &csrf),
            ("token", &token),
            ("code", &code),
            ("TOTPName", name),
        ],
        &[("Cookie", &cookie)],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(
        r.header("location").unwrap_or("").ends_with("/2fregisters"),
        "{:?}",
        r.header("location")
    );
    secret
}

/// Logs in `user` with the JSON API and returns the pending login's token the factor asks for.
pub fn held(c: &Client, user: &str) -> String {
    let r = login(c, user);
    assert_eq!(r.status, 401, "{}", r.text());
    let j = r.json();
    assert_eq!(j["check"], "/totp2fcheck", "{j}");
    assert_eq!(j["factors"], json!(["totp"]), "{j}");
    assert!(
        r.cookie("lemonldap").is_none(),
        "no SSO cookie before the factor: {j}"
    );
    j["token"].as_str().expect("token").to_string()
}

/// Posts a TOTP code for a pending login (JSON).
pub fn check(c: &Client, token: &str, code: &str) -> Resp {
    c.post_form("/totp2fcheck", &[("token", token), ("code", code)], &[JSON])
}

/// Moves the portal's clock one TOTP step on; the total skew.
pub fn next_step(p: &Portal) -> i64 {
    clock::advance(p, 30)
}

/// `limette config check` on a configuration with LemonLDAP::NG's TOTP keys set says nothing
/// of them: every one is read and honoured.
#[test]
fn config_check_knows_every_totp_key() {
    let keys = [
        ("totp2fAuthnLevel", json!(5)),
        ("totp2fIssuer", json!("Example")),
        ("totp2fInterval", json!(30)),
        ("totp2fRange", json!(2)),
        ("totp2fDigits", json!(8)),
        ("totp2fUserCanRemoveKey", json!(0)),
        ("totp2fEncryptSecret", json!(1)),
        ("totp2fTTL", json!(86400)),
        ("totp2fLabel", json!("Phone")),
        ("totp2fLogo", json!("totp.png")),
        ("sfRequired", json!("$uid eq \"dwho\"")),
        ("sfOnlyUpgrade", json!(1)),
        ("sfManagerRule", json!("inGroup(\"timelords\")")),
        ("sfLoginTimeout", json!(300)),
        ("sfRegisterTimeout", json!(600)),
        ("max2FDevices", json!(3)),
        ("max2FDevicesNameLength", json!(30)),
        (
            "oidcServiceMetaDataAuthnContext",
            json!({"pwd": 1, "mfa": 5}),
        ),
    ];
    let p = start(&keys);
    let out = crate::common::config::cli(&p, &["check"]);
    for (k, _) in keys.iter().chain(&[
        ("totp2fActivation", json!(1)),
        ("totp2fSelfRegistration", json!(1)),
    ]) {
        assert!(
            !out.stdout.lines().any(|l| l.contains(&format!(" {k} "))),
            "{k}: {}{}",
            out.stdout,
            out.stderr
        );
    }
    assert!(!out.stdout.contains("error:"), "{}", out.stdout);
}
