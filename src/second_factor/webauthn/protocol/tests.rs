//! The checks against vectors made by an independent implementation of the authenticator
//! (`tests/fixtures/webauthn/make_vectors.py`: keys and signatures from Python's
//! `cryptography`; its ES256 and RS256 vectors also pass LemonLDAP::NG's own verifier,
//! Authen::WebAuthn 0.001) and by Chromium (`chromium.json`), then each refusal on a vector
//! changed in one place.
use super::*;
use base64::Engine;
use serde_json::Value;

const VECTORS: &str = include_str!("../../../../tests/fixtures/webauthn/vectors.json");

fn vectors() -> Value {
    serde_json::from_str(VECTORS).unwrap()
}

fn rp(v: &Value) -> RelyingParty {
    RelyingParty {
        id: v["rp_id"].as_str().unwrap().into(),
        origin: v["origin"].as_str().unwrap().into(),
    }
}

fn exp<'a>(rp: &'a RelyingParty, challenge: &'a str, uv: UserVerification) -> Expected<'a> {
    Expected {
        rp,
        challenge,
        user_verification: uv,
    }
}

fn reg(c: &Value, which: &str) -> RegistrationResponse {
    RegistrationResponse::from_json(&c[which].to_string()).unwrap()
}

fn get(c: &Value, which: &str) -> AssertionResponse {
    AssertionResponse::from_json(&c[which].to_string()).unwrap()
}

#[test]
fn registrations_of_each_algorithm_and_format_give_the_key_as_kept() {
    let v = vectors();
    let rp = rp(&v);
    for c in v["cases"].as_array().unwrap() {
        let ch = c["registration_challenge"].as_str().unwrap();
        for (which, fmt) in [
            ("registration_none", "none"),
            ("registration_packed", "packed"),
        ] {
            let r = verify_registration(&exp(&rp, ch, UserVerification::Required), &reg(c, which))
                .unwrap_or_else(|e| panic!("{} {which}: {e}", c["alg"]));
            assert_eq!(
                B64.encode(&r.credential_id),
                c["credential_id"].as_str().unwrap()
            );
            assert_eq!(B64.encode(&r.public_key), c["public_key"].as_str().unwrap());
            assert_eq!(
                (r.sign_count, r.user_verified, r.attestation),
                (0, true, fmt)
            );
        }
    }
}

#[test]
fn assertions_of_each_algorithm_verify_and_move_the_counter() {
    let v = vectors();
    let rp = rp(&v);
    for c in v["cases"].as_array().unwrap() {
        let ch = c["assertion_challenge"].as_str().unwrap();
        let key = B64.decode(c["public_key"].as_str().unwrap()).unwrap();
        let stored = Stored {
            public_key: &key,
            sign_count: 3,
        };
        let e = exp(&rp, ch, UserVerification::Required);
        let a = verify_assertion(&e, &stored, &get(c, "assertion_uv")).unwrap();
        assert_eq!((a.sign_count, a.user_verified), (7, true), "{}", c["alg"]);
        let resp = get(c, "assertion_uv");
        assert_eq!(resp.user_handle.as_deref(), v["user_handle"].as_str());
        // Without user verification: refused when required, accepted when preferred.
        let up = get(c, "assertion_up");
        let zero = Stored {
            public_key: &key,
            sign_count: 0,
        };
        assert_eq!(
            verify_assertion(&e, &zero, &up),
            Err(Refused::UserNotVerified)
        );
        let pref = exp(&rp, ch, UserVerification::Preferred);
        let a = verify_assertion(&pref, &zero, &up).unwrap();
        assert_eq!((a.sign_count, a.user_verified), (0, false));
    }
}

#[test]
fn a_counter_that_does_not_move_forward_is_a_possible_clone() {
    let v = vectors();
    let rp = rp(&v);
    let c = &v["cases"][0];
    let key = B64.decode(c["public_key"].as_str().unwrap()).unwrap();
    let e = exp(
        &rp,
        c["assertion_challenge"].as_str().unwrap(),
        UserVerification::Preferred,
    );
    for stored in [7, 9] {
        let s = Stored {
            public_key: &key,
            sign_count: stored,
        };
        let got = verify_assertion(&e, &s, &get(c, "assertion_uv"));
        assert_eq!(
            got,
            Err(Refused::Counter {
                stored,
                received: 7
            })
        );
        assert!(got.unwrap_err().to_string().contains("possible cloned"));
    }
    // A counter of 0 against a stored 5: gone backwards too.
    let s = Stored {
        public_key: &key,
        sign_count: 5,
    };
    let got = verify_assertion(&e, &s, &get(c, "assertion_up"));
    assert_eq!(
        got,
        Err(Refused::Counter {
            stored: 5,
            received: 0
        })
    );
}

/// Rewrites a base64url member of a response's JSON.
fn with_member(c: &Value, which: &str, member: &str, f: impl Fn(&mut Vec<u8>)) -> String {
    let mut j = c[which].clone();
    let mut raw = B64.decode(j["response"][member].as_str().unwrap()).unwrap();
    f(&mut raw);
    j["response"][member] = Value::String(B64.encode(raw));
    j.to_string()
}

#[test]
fn client_data_type_challenge_and_origin_are_checked() {
    let v = vectors();
    let c = &v["cases"][0];
    let ch = c["registration_challenge"].as_str().unwrap();
    let good = rp(&v);
    let r = reg(c, "registration_none");
    let wrong_challenge = exp(&good, "AAAA", UserVerification::Preferred);
    assert_eq!(
        verify_registration(&wrong_challenge, &r),
        Err(Refused::Challenge)
    );
    let other = RelyingParty {
        id: good.id.clone(),
        origin: "https://auth.example.com:8443".into(),
    };
    let e = exp(&other, ch, UserVerification::Preferred);
    assert_eq!(
        verify_registration(&e, &r),
        Err(Refused::Origin("https://auth.example.com".into()))
    );
    // An assertion's client data posted to a registration.
    let a = get(c, "assertion_uv");
    let swapped = RegistrationResponse {
        id: r.id.clone(),
        client_data_json: a.client_data_json,
        attestation_object: r.attestation_object.clone(),
    };
    let e = exp(
        &good,
        c["assertion_challenge"].as_str().unwrap(),
        UserVerification::Preferred,
    );
    assert_eq!(
        verify_registration(&e, &swapped),
        Err(Refused::Type("webauthn.get".into()))
    );
}

#[test]
fn the_relying_party_id_and_user_presence_are_checked() {
    let v = vectors();
    let c = &v["cases"][0];
    let good = rp(&v);
    let other = RelyingParty {
        id: "example.com".into(),
        origin: good.origin.clone(),
    };
    let ch = c["assertion_challenge"].as_str().unwrap();
    let key = B64.decode(c["public_key"].as_str().unwrap()).unwrap();
    let s = Stored {
        public_key: &key,
        sign_count: 0,
    };
    let e = exp(&other, ch, UserVerification::Preferred);
    assert_eq!(
        verify_assertion(&e, &s, &get(c, "assertion_up")),
        Err(Refused::RpIdHash)
    );
    // Flags cleared: refused for presence before the signature is looked at.
    let j = with_member(c, "assertion_up", "authenticatorData", |ad| ad[32] = 0);
    let resp = AssertionResponse::from_json(&j).unwrap();
    let e = exp(&good, ch, UserVerification::Preferred);
    assert_eq!(
        verify_assertion(&e, &s, &resp),
        Err(Refused::UserNotPresent)
    );
}

#[test]
fn a_changed_byte_breaks_the_signature_of_each_algorithm() {
    let v = vectors();
    let rp = rp(&v);
    for c in v["cases"].as_array().unwrap() {
        let key = B64.decode(c["public_key"].as_str().unwrap()).unwrap();
        let s = Stored {
            public_key: &key,
            sign_count: 0,
        };
        let e = exp(
            &rp,
            c["assertion_challenge"].as_str().unwrap(),
            UserVerification::Preferred,
        );
        // The counter raised by the client (byte 36) no longer matches the signature.
        let j = with_member(c, "assertion_uv", "authenticatorData", |ad| ad[36] ^= 0x40);
        let resp = AssertionResponse::from_json(&j).unwrap();
        assert_eq!(
            verify_assertion(&e, &s, &resp),
            Err(Refused::Signature),
            "{}",
            c["alg"]
        );
        let j = with_member(c, "assertion_uv", "signature", |sig| sig[10] ^= 1);
        let resp = AssertionResponse::from_json(&j).unwrap();
        assert_eq!(
            verify_assertion(&e, &s, &resp),
            Err(Refused::Signature),
            "{}",
            c["alg"]
        );
        // A self attestation whose signature is broken.
        let ch = c["registration_challenge"].as_str().unwrap();
        let r = reg(c, "registration_packed");
        let mut bad = r.attestation_object.clone();
        // The object's last byte is the COSE key's last (authData comes last): another key.
        if let Some(b) = bad.last_mut() {
            *b ^= 1;
        }
        let r = RegistrationResponse {
            attestation_object: bad,
            ..r
        };
        let e = exp(&rp, ch, UserVerification::Preferred);
        assert_eq!(
            verify_registration(&e, &r),
            Err(Refused::Signature),
            "{}",
            c["alg"]
        );
    }
}

#[test]
fn other_attestation_formats_and_algorithms_are_refused_by_name() {
    // An attestation object of format fido-u2f, with an empty authData: the format is named.
    let obj = [
        &[0xa3, 0x63][..],
        b"fmt",
        &[0x68],
        b"fido-u2f",
        &[0x67],
        b"attStmt",
        &[0xa0, 0x68],
        b"authData",
        &[0x40],
    ]
    .concat();
    let o = attestation::Object::parse(&obj).unwrap();
    let key = CoseKey::parse(
        &B64.decode(vectors()["cases"][0]["public_key"].as_str().unwrap())
            .unwrap(),
    )
    .unwrap();
    let got = o.verify(&[], &[], &key);
    assert_eq!(got, Err(Refused::AttestationFormat("fido-u2f".into())));
    // A COSE key of ES384 (kty 2, alg -35, crv 2).
    let es384 = [0xa3, 0x01, 0x02, 0x03, 0x38, 0x22, 0x20, 0x02];
    assert!(matches!(CoseKey::parse(&es384), Err(Refused::Algorithm(_))));
}

#[test]
fn garbage_is_refused_as_malformed_never_a_panic() {
    let v = vectors();
    let rp = rp(&v);
    let c = &v["cases"][0];
    let e = exp(
        &rp,
        c["registration_challenge"].as_str().unwrap(),
        UserVerification::Preferred,
    );
    let good = reg(c, "registration_none");
    for cut in 0..good.attestation_object.len() {
        let r = RegistrationResponse {
            id: good.id.clone(),
            client_data_json: good.client_data_json.clone(),
            attestation_object: good.attestation_object[..cut].to_vec(),
        };
        assert!(verify_registration(&e, &r).is_err(), "cut at {cut}");
    }
    for junk in [
        "",
        "{}",
        "[]",
        r#"{"id":"","response":{}}"#,
        r#"{"id":"%%","response":{"clientDataJSON":"e30"}}"#,
    ] {
        assert!(RegistrationResponse::from_json(junk).is_err());
        assert!(AssertionResponse::from_json(junk).is_err());
    }
    assert!(CoseKey::parse(&[]).is_err());
    assert!(CoseKey::parse(&[0xbf, 0xff]).is_err());
    assert!(auth_data::AuthData::parse(&[0; 36]).is_err());
    // Trailing bytes after authenticator data without the ED flag.
    let mut ad = B64
        .decode(
            c["assertion_up"]["response"]["authenticatorData"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
    ad.push(0);
    assert!(auth_data::AuthData::parse(&ad).is_err());
}

#[test]
fn the_relying_party_comes_from_the_portal_url() {
    let rp = RelyingParty::from_portal("https://Auth.Example.com:8443/portal/").unwrap();
    assert_eq!(rp.id, "auth.example.com");
    assert_eq!(rp.origin, "https://auth.example.com:8443");
    let rp = RelyingParty::from_portal("https://auth.example.com:443").unwrap();
    assert_eq!(rp.origin, "https://auth.example.com");
    assert_eq!(
        RelyingParty::from_portal("http://localhost:1234/").unwrap(),
        RelyingParty {
            id: "localhost".into(),
            origin: "http://localhost:1234".into()
        }
    );
    for bad in [
        "auth.example.com",
        "ftp://x/",
        "https://u@x/",
        "https://x:port/",
        "https:///",
    ] {
        assert_eq!(RelyingParty::from_portal(bad), None, "{bad}");
    }
}

#[test]
fn a_registration_from_chromium_reads_as_kept() {
    // Made by Chromium's virtual authenticator through static/webauthn.js
    // (tests/fixtures/webauthn/chromium.json): ES256, format none, UV set, counter 1.
    let v: Value = serde_json::from_str(include_str!(
        "../../../../tests/fixtures/webauthn/chromium.json"
    ))
    .unwrap();
    let rp = rp(&v);
    let e = exp(
        &rp,
        v["challenge"].as_str().unwrap(),
        UserVerification::Required,
    );
    let r = RegistrationResponse::from_json(&v["registration"].to_string()).unwrap();
    let got = verify_registration(&e, &r).unwrap();
    assert_eq!(
        (got.alg, got.attestation, got.sign_count),
        (Alg::Es256, "none", 1)
    );
    assert_eq!(
        B64.encode(&got.credential_id),
        v["registration"]["id"].as_str().unwrap()
    );
    let wrong = exp(&rp, "AAAAAAAAAAAAAAAAAAAAAB", UserVerification::Required);
    assert_eq!(verify_registration(&wrong, &r), Err(Refused::Challenge));
}
