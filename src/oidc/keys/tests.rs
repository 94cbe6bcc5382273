//! Unit tests of the provider's keys: reading PEM, signing and verifying with each family, the keyring's choice of signer and its published set.
use super::*;

#[test]
fn each_family_signs_and_verifies_with_its_public_half() {
    for (kind, alg) in [
        (KeyKind::Ec, Alg::ES256),
        (KeyKind::Ed, Alg::EdDSA),
        (KeyKind::Rsa, Alg::RS384),
    ] {
        let (private, _public) = super::keygen::generate(kind).unwrap();
        let key = PrivateKey::from_pem(kind, &private, "k1").unwrap();
        let sig = key.sign(alg, b"msg").unwrap();
        assert!(key.public().verify(alg, b"msg", &sig), "{kind:?}");
        assert!(!key.public().verify(alg, b"other", &sig), "{kind:?}");
        assert!(key.sign(Alg::HS256, b"msg").is_none());
        let jwk = key.public().to_json();
        assert_eq!(PublicJwk::from_json(&jwk).as_ref(), Some(key.public()));
        assert_eq!(jwk["use"], "sig");
        assert!(jwk.get("d").is_none() && jwk.get("p").is_none());
        assert!(format!("{key:?}").ends_with("kid k1, ***)"));
    }
}

/// A JWK whose coordinate lost its leading zero byte (as Authlib writes it) still stands
/// for its key; a coordinate too long is refused.
#[test]
fn a_short_ec_coordinate_is_the_same_number() {
    let (key, short) = std::iter::repeat_with(|| {
        let (pem, _) = super::keygen::generate(KeyKind::Ec).unwrap();
        PrivateKey::from_pem(KeyKind::Ec, &pem, "k").unwrap()
    })
    .take(10_000)
    .find_map(|key| {
        let mut jwk = key.public().to_json();
        for c in ["x", "y"] {
            let bytes = B64.decode(jwk[c].as_str().unwrap()).unwrap();
            if bytes[0] == 0 {
                jwk[c] = json!(B64.encode(&bytes[1..]));
                return Some((key, jwk));
            }
        }
        None
    })
    .unwrap();
    let parsed = PublicJwk::parse(&short).unwrap();
    assert_eq!(&parsed, key.public());
    let sig = key.sign(Alg::ES256, b"msg").unwrap();
    assert!(parsed.verify(Alg::ES256, b"msg", &sig));
    let mut long = key.public().to_json();
    long["x"] = json!(B64.encode([1u8; 33]));
    assert!(PublicJwk::parse(&long).unwrap_err().contains("longer"));
}

#[test]
fn a_wrong_family_or_envelope_is_refused() {
    let (ec, _) = super::keygen::generate(KeyKind::Ec).unwrap();
    assert!(PrivateKey::from_pem(KeyKind::Ed, &ec, "k").is_err());
    assert!(PrivateKey::from_pem(KeyKind::Rsa, &ec, "k").is_err());
    let e = PrivateKey::from_pem(
        KeyKind::Ec,
        "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
        "k",
    );
    assert!(e.is_err());
    // A PEM body that is not base64, or an envelope without its end line.
    let bad = "-----BEGIN RSA PRIVATE KEY-----\n%%%\n-----END RSA PRIVATE KEY-----\n";
    assert!(PrivateKey::from_pem(KeyKind::Rsa, bad, "k").is_err());
    let open = "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n";
    assert!(PrivateKey::from_pem(KeyKind::Rsa, open, "k").is_err());
}

#[test]
fn an_rsa_key_reads_in_pkcs1_and_pkcs8_and_signs_the_same() {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs8::{EncodePrivateKey, LineEnding};
    let (pkcs1, _) = super::keygen::generate(KeyKind::Rsa).unwrap();
    let pkcs8 = rsa::RsaPrivateKey::from_pkcs1_pem(&pkcs1)
        .unwrap()
        .to_pkcs8_pem(LineEnding::CRLF)
        .unwrap();
    let a = PrivateKey::from_pem(KeyKind::Rsa, &pkcs1, "k").unwrap();
    let b = PrivateKey::from_pem(KeyKind::Rsa, &pkcs8, "k").unwrap();
    assert_eq!(a.public().to_json(), b.public().to_json());
}

#[test]
fn retired_keys_leave_at_their_time() {
    let mut raw = Map::new();
    let (ec, _) = super::keygen::generate(KeyKind::Ec).unwrap();
    raw.insert("oidcServiceEcPrivateKeySig".into(), json!(ec));
    raw.insert("oidcServiceEcKeyIdSig".into(), json!("new"));
    let old = PublicJwk {
        kid: "old".into(),
        params: Params::Okp { x: vec![1; 32] },
    };
    let mut j = old.to_json();
    j["until"] = json!(100);
    raw.insert(RETIRED.into(), json!([j]));
    let (ring, errors) = Keyring::from_conf(&raw);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(ring.find("old", 99).is_some() && ring.find("new", 99).is_some());
    assert!(ring.find("old", 100).is_none());
    let kids = |now| {
        ring.jwks(now)["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["kid"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(kids(50), vec!["new", "old"]);
    assert_eq!(kids(150), vec!["new"]);
}
