//! WebAuthn devices shared with LemonLDAP::NG 2.16 (tests/webauthn_llng.py): a registration
//! validated by LemonLDAP::NG's own verifier (Authen::WebAuthn, as its portal calls it) and
//! stored as its portal stores it signs in on Limette; a device Limette registered validates
//! in that verifier. The persistent sessions are the File store a node would share; the
//! authenticator is the test vectors' (Python `cryptography`). Scripted clients use the JSON
//! answers of the login, `/2fchoice`, `/webauthn2fcheck` and `/2fregisters/webauthn/*`.
use crate::common::{self, Portal};
use crate::python;
use serde_json::json;

#[test]
fn devices_cross_between_lemonldap_ng_and_limette() {
    let port = common::free_port();
    let p = Portal::builder()
        .port(port)
        .conf("portal", json!(format!("http://localhost:{port}/")))
        .conf("webauthn2fActivation", json!(1))
        .conf("webauthn2fSelfRegistration", json!(1))
        .start();
    let out = std::process::Command::new(python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/webauthn_llng.py"
        ))
        .arg(format!("http://localhost:{port}"))
        .arg(p.data().join("psessions"))
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    println!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "webauthn across LemonLDAP::NG and Limette failed:\n{}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        p.log()
    );
}
