//! The embedded demo relying party end to end, and an external relying-party library
//! completing the flow.
use crate::common::oidc::*;
use crate::common::Portal;
use limette::oidc::jwt;

use crate::python;

#[test]
fn demo_rp_walkthrough() {
    // The README's curl steps against the embedded default configuration.
    let p = Portal::builder().portal_url_matches().start();
    let sid = p.login("dwho");
    let q = format!("response_type=code&client_id=demo&scope=openid%20profile%20email&redirect_uri={}&state=xyz&nonce=abc", enc("http://127.0.0.1:9999/cb"));
    let r = authorize(&p, Some(&sid), &q, &[]);
    let loc = r.header("location").unwrap();
    assert!(loc.starts_with("http://127.0.0.1:9999/cb?"));
    let c = param(loc, "code").unwrap();
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", "http://127.0.0.1:9999/cb"),
    ];
    let t = token(&p, Some(("demo", "demosecret")), &f).json();
    assert!(jwt::verify_hs256(t["id_token"].as_str().unwrap(), b"demosecret").is_ok());
    let r = p.client().get(
        "/oauth2/userinfo",
        &[(
            "Authorization",
            &format!("Bearer {}", t["access_token"].as_str().unwrap()),
        )],
    );
    assert_eq!(r.json()["email"], "dwho@badwolf.org");
}

#[test]
fn external_rp_library_completes_the_flow() {
    // Authlib (in the tests' virtual environment, .ci/setup.d/python-venv.sh) validates signature, iss, aud, exp, nonce,
    // at_hash. A missing library or interpreter makes this test fail, never skip.
    let p = Portal::builder().portal_url_matches().start();
    run_authlib_rp(&p, &["demo", "demosecret", "http://127.0.0.1:9999/cb"]);
}

/// Runs the Authlib relying party (tests/oidc_rp.py) against `p` with `args` after the portal
/// URL (client, secret, redirect URI, and how to check keys); its standard output. A failure
/// of the script fails the test, with the server's log.
pub fn run_authlib_rp(p: &Portal, args: &[&str]) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oidc_rp.py");
    let out = std::process::Command::new(python::python())
        .arg(script)
        .arg(p.url("/"))
        .args(args)
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "RP {args:?} failed:\n{stdout}\n{stderr}\nserver log:\n{}",
        p.log()
    );
    assert!(stdout.contains("RP OK"), "{stdout}");
    stdout.into_owned()
}
