//! A WebAuthn device registered on a real LemonLDAP::NG 2.16 portal works on Limette, and one
//! registered on Limette works on the LemonLDAP::NG portal (tests/webauthn_llng_node.py): the
//! node of the bridge tests (its users in OpenLDAP, WebAuthn enabled), Limette reading the same
//! users through its REST authentication server and keeping its persistent sessions in the
//! node's store through its REST session server.
use crate::bridge::node::Llng;
use crate::common::Portal;
use serde_json::json;

const KEY: &str = "the key both portals share";

fn limette_on(node: &Llng) -> Portal {
    let store = json!({"baseUrl": node.url("/sessions/persistent"), "timeout": 5});
    Portal::builder()
        .portal_url_matches()
        .conf("key", json!(KEY))
        .conf("authentication", json!("REST"))
        .conf("userDB", json!("REST"))
        .conf("restAuthUrl", json!(node.url("/proxy/pwdConfirm")))
        .conf("restUserDBUrl", json!(node.url("/proxy/getUser")))
        .conf("webauthn2fActivation", json!(1))
        .conf("webauthn2fSelfRegistration", json!(1))
        .ini("persistentStorage = REST")
        .ini(&format!("persistentStorageOptions = {store}"))
        .start()
}

#[test]
fn a_webauthn_device_moves_between_lemonldap_ng_and_limette() {
    let node = Llng::start_with_ldap(json!({
        "key": KEY, "webauthn2fActivation": 1, "webauthn2fSelfRegistration": 1,
        "restSessionServer": 1, "restExportSecretKeys": 1, "requireToken": 0,
    }));
    let p = limette_on(&node);
    let out = std::process::Command::new(crate::python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/webauthn_llng_node.py"
        ))
        .arg(node.url(""))
        .arg(p.url(""))
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    println!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "{}\n{}\nLimette:\n{}\nLemonLDAP::NG:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        p.log(),
        node.logs()
    );
}
