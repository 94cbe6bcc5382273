//! Devices LemonLDAP::NG 2.16 reads and writes, checked with its own code: its
//! `Lemonldap::NG::Common::TOTP` (what its `2F/TOTP.pm` and `2F/Register/TOTP.pm` call) makes a
//! secret and the `_secret` it stores, encrypted under the configuration's `key`
//! (`totp2fEncryptSecret`); the device, written as LemonLDAP::NG writes `_2fDevices`, works on
//! Limette with a pyotp code; and a device Limette registers is verified by LemonLDAP::NG's
//! code from the stored value.
use super::{check, held, next_step, pyotp, register, start};
use serde_json::json;
use std::process::Command;

const KEY: &str = "a shared configuration key";

/// Runs tests/llng_totp.pl; its output lines.
fn llng(args: &[&str]) -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/llng_totp.pl");
    let out = Command::new("perl")
        .arg(script)
        .args(args)
        .output()
        .expect("perl");
    assert!(
        out.status.success(),
        "LemonLDAP::NG's TOTP code (.ci/setup.d/llng-portal.sh installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_device_llng_wrote_works_here_and_back() {
    let p = start(&[("key", json!(KEY)), ("totp2fEncryptSecret", json!(1))]);
    // LemonLDAP::NG makes the secret and the stored form.
    let made = llng(&["new", KEY, "1"]);
    let (secret, stored) = (&made[0], &made[1]);
    assert!(stored.starts_with("{llngcrypt}"), "{stored}");
    p.login("dwho");
    let path = p
        .data()
        .join("psessions")
        .join(super::required::psession_id("dwho"));
    let mut ps: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let devices =
        json!([{"_secret": stored, "type": "TOTP", "name": "MyTOTP", "epoch": 1700000000}]);
    ps["_2fDevices"] = json!(devices.to_string());
    std::fs::write(&path, serde_json::to_vec(&ps).unwrap()).unwrap();
    let c = p.client();
    let token = held(&c, "dwho");
    let r = check(&c, &token, &pyotp(secret, 0));
    assert_eq!(r.json()["result"], 1, "{}", r.text());

    // And back: a device registered on Limette, verified by LemonLDAP::NG from what is stored.
    let p = start(&[("key", json!(KEY)), ("totp2fEncryptSecret", json!(1))]);
    let sid = p.login("rtyler");
    let secret = register(&p, &sid, "phone", 0);
    let path = p
        .data()
        .join("psessions")
        .join(super::required::psession_id("rtyler"));
    let ps: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let list: serde_json::Value = serde_json::from_str(ps["_2fDevices"].as_str().unwrap()).unwrap();
    let stored = list[0]["_secret"].as_str().unwrap();
    assert!(stored.starts_with("{llngcrypt}"), "{stored}");
    assert_eq!(list[0]["type"], "TOTP");
    assert_eq!(list[0]["name"], "phone");
    assert!(list[0]["epoch"].is_i64(), "{list}");
    let skew = next_step(&p);
    assert_eq!(llng(&["verify", KEY, stored, &pyotp(&secret, skew)]), ["1"]);
    assert_eq!(llng(&["verify", KEY, stored, "000000"]), ["0"]);
}
