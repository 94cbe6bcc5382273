//! LemonLDAP::NG's `__secret` protocol, and the cipher against openssl.
use super::common::sessions::{b64, builder, hex, openssl, unb64, KEY};
use super::now;
use limette::crypto::secret;
use serde_json::json;

/// LemonLDAP::NG's session client: PUT with `__secret` creates; bad secrets change nothing.
#[test]
fn put_with_secret_creates_like_llng_client() {
    let p = builder().start();
    let c = p.client();
    let id = "b".repeat(64);
    let path = format!("/sessions/global/{id}");
    let put = |secret: String| {
        c.send_json(
            "PUT",
            &path,
            &json!({"uid": "remote", "_utime": now(), "__secret": secret}),
        )
    };
    for (bad, why) in [
        (secret::fresh("another key", now()), "wrong key"),
        (secret::fresh(KEY, now() - 60), "stale"),
        (secret::encrypt(KEY, "not a number"), "not an epoch"),
        ("garbage".to_string(), "not base64"),
    ] {
        let r = put(bad);
        assert_eq!(
            (r.status, r.json()),
            (400, json!({"error": "Invalid secret"})),
            "{why}"
        );
        assert_eq!(c.get_json(&path).status, 404, "{why}: nothing created");
    }
    let r = put(secret::fresh(KEY, now()));
    assert_eq!((r.status, r.json()), (200, json!({"result": 1})));
    let s = c.get_json(&path).json();
    assert_eq!(
        (s["uid"].clone(), s["_session_id"].clone()),
        (json!("remote"), json!(id))
    );
    assert!(s.get("__secret").is_none(), "__secret is never stored");
    // Full-object update with a fresh secret.
    let r = c.send_json(
        "PUT",
        &path,
        &json!({"uid": "remote2", "__secret": secret::fresh(KEY, now())}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(c.get_json(&format!("{path}/uid")).json(), "remote2");
}

/// Test vectors against an independent AES implementation: openssl's command line.
#[test]
fn secret_cipher_matches_openssl() {
    let key_hex = hex(&openssl(&["dgst", "-sha256", "-binary"], KEY.as_bytes()));
    let iv = [0x42u8; 16];
    // Ours -> openssl.
    let ours = unb64(&secret::encrypt_with_iv(KEY, "1795313127", &iv));
    assert_eq!(&ours[..16], &iv);
    let args = [
        "enc",
        "-d",
        "-aes-256-cbc",
        "-nopad",
        "-K",
        &key_hex,
        "-iv",
        &hex(&iv),
    ];
    let plain = openssl(&args, &ours[16..]);
    let mut padded = b"1795313127".to_vec();
    padded.resize(16, 0);
    assert_eq!(&plain[32..], &padded[..]);
    assert_eq!(
        &plain[..32],
        &openssl(&["dgst", "-sha256", "-binary"], &padded)[..]
    );
    // openssl -> ours.
    let iv2 = [0x17u8; 16];
    let text = b"1795313999 and some more text";
    let mut pt = text.to_vec();
    pt.resize(32, 0);
    let mut data = openssl(&["dgst", "-sha256", "-binary"], &pt);
    data.extend_from_slice(&pt);
    let args = [
        "enc",
        "-e",
        "-aes-256-cbc",
        "-nopad",
        "-K",
        &key_hex,
        "-iv",
        &hex(&iv2),
    ];
    let mut blob = iv2.to_vec();
    blob.extend(openssl(&args, &data));
    assert_eq!(
        secret::decrypt(KEY, &b64(&blob)).unwrap(),
        String::from_utf8_lossy(text)
    );
    assert!(secret::decrypt("wrong", &b64(&blob)).is_err());
}
