//! WebAuthn's keys at start-up: a LemonLDAP::NG configuration with every WebAuthn key set is
//! checked without a refusal, and a `webauthn2fUserVerification` Limette cannot honour stops
//! start-up (exit 2) naming the key and its value.
use crate::common::{self, default_conf, TempDir};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// The WebAuthn keys, each set (a rule, levels, names), plus `extra`.
fn conf(extra: &[(&str, Value)]) -> Map<String, Value> {
    let mut c = default_conf();
    for (k, v) in [
        (
            "webauthn2fActivation",
            json!("$uid ne 'msmith' and has2f('WebAuthn')"),
        ),
        ("webauthn2fSelfRegistration", json!(1)),
        ("webauthn2fAuthnLevel", json!(4)),
        ("webauthn2fLabel", json!("Security key")),
        ("webauthn2fLogo", json!("webauthn.png")),
        ("webauthn2fUserVerification", json!("required")),
        ("webauthn2fUserCanRemoveKey", json!(0)),
        ("webauthnRpName", json!("Example SSO")),
        ("webauthnDisplayNameAttr", json!("cn")),
    ]
    .into_iter()
    .chain(extra.iter().cloned())
    {
        c.insert(k.to_string(), v);
    }
    c
}

/// A data folder holding `conf` and an INI naming it.
fn setup(conf: &Map<String, Value>) -> (TempDir, PathBuf) {
    let dir = TempDir::new("webauthn-conf");
    let conf_dir = dir.path().join("conf");
    std::fs::create_dir_all(&conf_dir).unwrap();
    let text = serde_json::to_vec_pretty(&Value::Object(conf.clone())).unwrap();
    std::fs::write(conf_dir.join("lmConf-1.json"), text).unwrap();
    let ini = dir.path().join("limette.ini");
    let sessions = dir.path().join("sessions");
    std::fs::write(
        &ini,
        format!(
            "[configuration]\ntype = File\ndirName = {}\n[portal]\nlisten = 127.0.0.1:0\n\
             globalStorage = File\nglobalStorageOptions = {{\"Directory\": \"{}\"}}\n",
            conf_dir.display(),
            sessions.display()
        ),
    )
    .unwrap();
    (dir, ini)
}

#[test]
fn every_webauthn_key_is_honoured_and_a_bad_verification_value_refused() {
    let (dir, ini) = setup(&conf(&[]));
    let o = common::command(&ini, dir.path(), &["config", "check"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("error:"), "{out}");
    assert!(
        !out.contains("webauthn"),
        "no WebAuthn key is ignored or refused: {out}"
    );
    let (dir, ini) = setup(&conf(&[("webauthn2fUserVerification", json!("always"))]));
    let o = common::command(&ini, dir.path(), &[]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("webauthn2fUserVerification = always: discouraged, preferred or required"),
        "{err}"
    );
}
