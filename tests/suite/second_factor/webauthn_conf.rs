//! WebAuthn's keys at start-up: a LemonLDAP::NG configuration with every WebAuthn key set is
//! checked without a refusal, and a `webauthn2fUserVerification` Limette cannot honour stops
//! start-up (exit 2) naming the key and its value; a WebAuthn device that does not read is
//! logged and is no device (with `sfRequired`, the user registers again).
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

/// A portal with WebAuthn asked of users who have a key, and `extra`.
fn portal(extra: &[(&str, Value)]) -> common::Portal {
    let mut b = common::Portal::builder()
        .conf("webauthn2fActivation", json!(1))
        .conf("webauthn2fSelfRegistration", json!(1));
    for (k, v) in extra {
        b = b.conf(k, v.clone());
    }
    b.start()
}

/// Writes dwho's persistent session with a WebAuthn device whose key is not a COSE key.
fn broken_device(p: &common::Portal) {
    let device = json!([{"type": "WebAuthn", "name": "broken", "epoch": 1_700_000_000,
        "_credentialId": "AAAA", "_credentialPublicKey": "bm90IGEga2V5", "_signCount": 0}]);
    let id = "5efe8af397fc3577e05b483aca964f1b"; // MD5 of "dwho"
    let ps = json!({"_session_id": id, "_session_kind": "Persistent", "_session_uid": "dwho",
        "_2fDevices": device.to_string()});
    let dir = p.data().join("psessions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(id), ps.to_string()).unwrap();
}

#[test]
fn a_device_that_does_not_read_is_no_device_and_sf_required_registers_again() {
    let json = ("Accept", "application/json");
    let p = portal(&[]);
    broken_device(&p);
    let r = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[json]);
    assert_eq!(
        r.status,
        200,
        "no usable device, no factor asked: {}",
        r.text()
    );
    assert!(
        p.log()
            .contains("webauthn2f: device \"broken\" is not usable"),
        "{}",
        p.log()
    );
    let p = portal(&[("sfRequired", json!(1))]);
    broken_device(&p);
    let r = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[json]);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["register"], "/2fregisters", "{}", r.text());
    assert!(
        r.cookie("lemonldap").is_none(),
        "no SSO session before a device"
    );
}
