//! The console's configuration editor in a real headless Chromium, in English and French, by
//! keyboard only (tests/browser/editor.py): an administrator sets ten keys of ten input types
//! through the editor's pages, each page checked as the console's are (axe-core, the policy,
//! 320 px). The saved configuration is read back here over the REST configuration server: the
//! French values are in force, each save was by the administrator with an audit line, and no
//! page of the editor drew a secret.
use crate::common::sessions::openssl;
use crate::common::{Portal, TempDir};
use crate::python;
use serde_json::{json, Value};

fn editor_portal() -> Portal {
    Portal::builder()
        .portal_url_matches()
        .ini("managerHost = manager.example.com")
        .conf("restConfigServer", json!(1))
        .conf(
            "locationRules",
            json!({"manager.example.com": {"default": "$uid eq \"dwho\""}}),
        )
        .start()
}

/// A fresh EC P-256 key pair, as PEM (PKCS#8 private key, SPKI public key).
fn ec_pair() -> Value {
    let private = openssl(
        &[
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
        ],
        b"",
    );
    let public = openssl(&["pkey", "-pubout"], &private);
    let text = |b: Vec<u8>| {
        String::from_utf8(b)
            .expect("PEM is text")
            .trim()
            .to_string()
    };
    json!({"private": text(private), "public": text(public)})
}

#[test]
fn ten_keys_set_through_the_editor_by_keyboard_in_both_languages() {
    let p = editor_portal();
    let dir = TempDir::new("editor-keys");
    let pems = json!({"en": ec_pair(), "fr": ec_pair()});
    let file = dir.path().join("pems.json");
    std::fs::write(&file, pems.to_string()).expect("write the key pairs");
    let out = std::process::Command::new(python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/editor.py"
        ))
        .arg(p.url(""))
        .arg(super::axe())
        .arg(&file)
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    println!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "editor pages failed:\n{}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        p.log()
    );
    let doc = p.client().get_json("/config/latest?full=1").json();
    assert_eq!(doc["totp2fLabel"], "Code FR", "{doc}");
    assert_eq!(doc["restAuthUrl"], "https://rest-fr.example.com/auth");
    assert_eq!(doc["dbiAuthPassword"], "Pw-fr-secret-1");
    assert_eq!(doc["oidcServiceEcPublicKeySig"], pems["fr"]["public"]);
    assert_eq!(doc["macros"]["editor_en"], "$uid");
    assert_eq!(doc["cfgAuthor"], "dwho");
    let log = p.log();
    let saves = log
        .lines()
        .filter(|l| {
            l.contains("audit event=manager_conf_save admin=dwho address=127.0.0.1 action=editor")
        })
        .count();
    assert_eq!(saves, 10, "five groups saved in each language: {log}");
    assert!(
        !log.contains("Pw-en-secret-1") && !log.contains("Pw-fr-secret-1"),
        "a secret logged"
    );
}
