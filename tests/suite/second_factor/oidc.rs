//! A relying party that needs a higher level than a password gives (its `AuthnLevel`), with
//! `sfOnlyUpgrade`: the portal asks for the TOTP code instead of portal error 102, and the ID
//! token's `acr` and `amr` say what was used, checked by Authlib (tests/oidc_rp_2f.py).
use super::{next_step, register, start};
use crate::common::default_conf;
use serde_json::json;

#[test]
fn a_relying_party_needing_a_higher_level_gets_the_factor() {
    let mut rps = default_conf()["oidcRPMetaDataOptions"].clone();
    rps["demo"]["oidcRPMetaDataOptionsAuthnLevel"] = json!(3);
    let p = start(&[
        ("sfOnlyUpgrade", json!(1)),
        ("totp2fAuthnLevel", json!(5)),
        ("oidcRPMetaDataOptions", rps),
    ]);
    let sid = p.login("dwho");
    let secret = register(&p, &sid, "phone", 0);
    let skew = next_step(&p);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oidc_rp_2f.py");
    let out = std::process::Command::new(crate::python::python())
        .arg(script)
        .arg(p.url("/"))
        .args([
            "demo",
            "demosecret",
            "http://127.0.0.1:9999/cb",
            &secret,
            &skew.to_string(),
        ])
        .output()
        .expect("the tests' python3 starts");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "{stdout}\n{stderr}\nserver log:\n{}",
        p.log()
    );
    assert!(stdout.contains("RP 2F OK loa-5 pwd,otp,mfa"), "{stdout}");
}
