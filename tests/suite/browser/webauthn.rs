//! WebAuthn in a real headless Chromium (tests/browser/webauthn.py): its virtual authenticator
//! (CTAP2, through Selenium's `add_virtual_authenticator`) registers a key on
//! `/2fregisters/webauthn` and signs in with it, in English and French, as a non-resident then
//! a resident credential, with and without user verification; a counter set back is refused
//! and logged as a possible clone. axe-core checks the registration and check pages. The
//! portal is named `localhost`: a browser takes no IP address as a relying party id.
use super::axe;
use crate::common::{self, Portal};
use crate::python;
use serde_json::json;

/// A portal on `http://localhost:<port>/` with WebAuthn on and self-registration open.
fn portal(uv: &str) -> Portal {
    let port = common::free_port();
    Portal::builder()
        .port(port)
        .conf("portal", json!(format!("http://localhost:{port}/")))
        .conf("webauthn2fActivation", json!(1))
        .conf("webauthn2fSelfRegistration", json!(1))
        .conf("webauthn2fUserVerification", json!(uv))
        .conf("webauthnRpName", json!("Limette tests"))
        .start()
}

fn run(uv: &str) {
    let p = portal(uv);
    let base = p.url("").replace("127.0.0.1", "localhost");
    let out = std::process::Command::new(python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/webauthn.py"
        ))
        .arg(base.trim_end_matches('/'))
        .arg(axe())
        .arg(uv)
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    println!("{}", String::from_utf8_lossy(&out.stdout));
    let log = p.log();
    assert!(
        out.status.success(),
        "webauthn in the browser failed:\n{}\n{}\nserver log:\n{log}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    // The counter set back was logged as a possible clone, once per language.
    let clones = log.matches("possible cloned authenticator").count();
    assert_eq!(clones, 2, "{log}");
}

#[test]
fn a_key_that_verifies_the_user_registers_and_signs_in() {
    run("required");
}

#[test]
fn a_key_without_user_verification_registers_and_signs_in() {
    run("discouraged");
}
