//! JSON Web Tokens (RFC 7519, RFC 7515): signing ID tokens, userinfo answers and access tokens
//! with the algorithm a relying party asks for, and verifying one read back (`id_token_hint`).
//! HMAC (HS256/384/512) is keyed by the client secret; RS*, ES256 and EdDSA use the provider's
//! keys (`keys`, through `ring`). No HTTP here. The algorithm is pinned by the caller: a token
//! whose header names another one is refused before any signature is computed, `none` never
//! verifies, and no claim is trusted before the signature has been checked (HMAC in constant
//! time).
pub use super::alg::Alg;
use super::{PrivateKey, PublicJwk};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256, Sha384, Sha512};

/// The key a token is signed with.
#[derive(Debug, Clone, Copy)]
pub enum SignKey<'a> {
    /// The client secret, for HS*.
    Secret(&'a [u8]),
    /// One of the provider's keys, for RS*, ES256, EdDSA.
    Private(&'a PrivateKey),
    /// No key: `none` only.
    Unsigned,
}

/// The key a token is verified with.
#[derive(Debug, Clone, Copy)]
pub enum VerifyKey<'a> {
    /// The client secret, for HS*.
    Secret(&'a [u8]),
    /// A published key, for RS*, ES256, EdDSA.
    Public(&'a PublicJwk),
}

/// Why a token was refused, or could not be made.
#[derive(Debug, PartialEq, Eq)]
pub enum JwtError {
    /// Not three base64url parts of JSON.
    Malformed,
    /// The header names another algorithm, or the key does not fit the algorithm.
    Algorithm,
    /// The signature does not match (or could not be made).
    Signature,
}

/// Signs claims with `alg`: `base64url(header).base64url(claims).base64url(signature)`. The
/// header is `{"alg","typ"}` (exactly LemonLDAP::NG's for HMAC) plus `kid` for a provider key.
pub fn sign(
    claims: &Map<String, Value>,
    alg: Alg,
    typ: &str,
    key: SignKey<'_>,
) -> Result<String, JwtError> {
    let mut header = json!({"alg": alg.as_str(), "typ": typ});
    if let (SignKey::Private(k), Value::Object(h)) = (key, &mut header) {
        if !k.kid().is_empty() {
            h.insert("kid".into(), json!(k.kid()));
        }
    }
    let input = format!(
        "{}.{}",
        B64.encode(header.to_string()),
        B64.encode(Value::Object(claims.clone()).to_string())
    );
    let sig = match (alg, key) {
        (Alg::None, SignKey::Unsigned) => Vec::new(),
        (Alg::HS256 | Alg::HS384 | Alg::HS512, SignKey::Secret(s)) => mac(alg, s, input.as_bytes()),
        (_, SignKey::Private(k)) => k.sign(alg, input.as_bytes()).ok_or(JwtError::Signature)?,
        _ => return Err(JwtError::Algorithm),
    };
    Ok(format!("{input}.{}", B64.encode(sig)))
}

/// Signs claims with HS256 (the tests' and the demo's algorithm).
pub fn sign_hs256(claims: &Map<String, Value>, key: &[u8]) -> String {
    sign(claims, Alg::HS256, "JWT", SignKey::Secret(key)).unwrap_or_default()
}

/// Verifies a token signed with `alg` and returns its claims (expiry is the caller's
/// business).
pub fn verify(token: &str, alg: Alg, key: VerifyKey<'_>) -> Result<Map<String, Value>, JwtError> {
    let mut parts = token.trim().split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    // RFC 7515 5.2 steps 1-3: the header is JSON; pin the algorithm (no "none", no confusion
    // between a public key and an HMAC secret).
    let header = decode_json(h)?;
    if alg == Alg::None || header.get("alg").and_then(Value::as_str) != Some(alg.as_str()) {
        return Err(JwtError::Algorithm);
    }
    // Step 6: the signature, before any claim is read.
    let sig = B64.decode(s).map_err(|_| JwtError::Malformed)?;
    let input = format!("{h}.{p}");
    let ok = match key {
        VerifyKey::Secret(k) if alg.key_kind().is_none() => {
            crate::util::ct_eq(&sig, &mac(alg, k, input.as_bytes()))
        }
        VerifyKey::Public(k) if alg.key_kind() == Some(k.kind()) => {
            k.verify(alg, input.as_bytes(), &sig)
        }
        _ => return Err(JwtError::Algorithm),
    };
    if !ok {
        return Err(JwtError::Signature);
    }
    decode_json(p)
}

/// Verifies an HS256 token and returns its claims.
pub fn verify_hs256(token: &str, key: &[u8]) -> Result<Map<String, Value>, JwtError> {
    verify(token, Alg::HS256, VerifyKey::Secret(key))
}

/// The claims of an unsigned token (`alg` `none`, RFC 7519 6: an empty signature), for the
/// callers that accept one where the relying party registered it (request objects only).
pub fn unsigned_claims(token: &str) -> Result<Map<String, Value>, JwtError> {
    let mut parts = token.trim().split('.');
    let (Some(h), Some(p), Some(""), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    if decode_json(h)?.get("alg").and_then(Value::as_str) != Some("none") {
        return Err(JwtError::Algorithm);
    }
    decode_json(p)
}

/// The header of a token without checking it: only to find which key to verify it with.
pub fn peek_header(token: &str) -> Option<Map<String, Value>> {
    decode_json(token.split('.').next()?).ok()
}

/// The claims of a token without checking it: only to find which key to verify it with.
pub fn peek_claims(token: &str) -> Option<Map<String, Value>> {
    decode_json(token.split('.').nth(1)?).ok()
}

/// OIDC Core 3.1.3.6: base64url of the left half of the hash of the access token, with the
/// hash of the ID token's algorithm (SHA-256 for HS256, RS256, ES256; SHA-512 for EdDSA, as
/// Ed25519 hashes with it).
pub fn at_hash_for(alg: Alg, access_token: &str) -> String {
    let d = match alg {
        Alg::HS384 | Alg::RS384 => Sha384::digest(access_token.as_bytes()).to_vec(),
        Alg::HS512 | Alg::RS512 | Alg::EdDSA => Sha512::digest(access_token.as_bytes()).to_vec(),
        _ => Sha256::digest(access_token.as_bytes()).to_vec(),
    };
    // Invariant: every digest above is at least 32 bytes long, so the left half exists.
    B64.encode(&d[..d.len() / 2])
}

/// `at_hash` for an HS256/RS256/ES256 token.
pub fn at_hash(access_token: &str) -> String {
    at_hash_for(Alg::HS256, access_token)
}

fn mac(alg: Alg, key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so new_from_slice cannot fail.
    fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
        match <M as Mac>::new_from_slice(key) {
            Ok(mut m) => {
                m.update(data);
                m.finalize().into_bytes().to_vec()
            }
            Err(_) => Vec::new(),
        }
    }
    match alg {
        Alg::HS384 => run::<Hmac<Sha384>>(key, data),
        Alg::HS512 => run::<Hmac<Sha512>>(key, data),
        _ => run::<Hmac<Sha256>>(key, data),
    }
}

fn decode_json(part: &str) -> Result<Map<String, Value>, JwtError> {
    let bytes = B64.decode(part).map_err(|_| JwtError::Malformed)?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(JwtError::Malformed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::keys::KeyKind;

    #[test]
    fn round_trip_and_tampering() {
        let mut c = Map::new();
        c.insert("sub".into(), json!("dwho"));
        let t = sign_hs256(&c, b"k");
        assert_eq!(verify_hs256(&t, b"k").unwrap()["sub"], "dwho");
        assert_eq!(verify_hs256(&t, b"other"), Err(JwtError::Signature));
        let parts: Vec<&str> = t.split('.').collect();
        let forged = format!(
            "{}.{}.{}",
            parts[0],
            B64.encode(r#"{"sub":"root"}"#),
            parts[2]
        );
        assert_eq!(verify_hs256(&forged, b"k"), Err(JwtError::Signature));
        let none = format!("{}.{}.", B64.encode(r#"{"alg":"none"}"#), parts[1]);
        assert_eq!(verify_hs256(&none, b"k"), Err(JwtError::Algorithm));
        assert_eq!(
            verify(&none, Alg::None, VerifyKey::Secret(b"")),
            Err(JwtError::Algorithm)
        );
        assert_eq!(verify_hs256("a.b", b"k"), Err(JwtError::Malformed));
        assert_eq!(unsigned_claims(&none).unwrap()["sub"], "dwho");
        assert_eq!(unsigned_claims(&t), Err(JwtError::Malformed));
        let forged_none = format!("{}.{}.", parts[0], parts[1]);
        assert_eq!(unsigned_claims(&forged_none), Err(JwtError::Algorithm));
        assert_eq!(peek_claims(&t).unwrap()["sub"], "dwho");
    }

    #[test]
    fn hmac_variants_are_pinned() {
        let c = Map::new();
        for alg in [Alg::HS384, Alg::HS512] {
            let t = sign(&c, alg, "JWT", SignKey::Secret(b"k")).unwrap();
            assert!(verify(&t, alg, VerifyKey::Secret(b"k")).is_ok());
            assert_eq!(verify_hs256(&t, b"k"), Err(JwtError::Algorithm));
        }
        let sig_len = |alg| {
            let t = sign(&c, alg, "JWT", SignKey::Secret(b"k")).unwrap();
            B64.decode(t.rsplit('.').next().unwrap()).unwrap().len()
        };
        assert_eq!((sig_len(Alg::HS384), sig_len(Alg::HS512)), (48, 64));
        assert_eq!(
            sign(&c, Alg::RS256, "JWT", SignKey::Secret(b"k")),
            Err(JwtError::Algorithm)
        );
    }

    #[test]
    fn a_public_key_is_never_an_hmac_secret() {
        let (pem, _) = super::super::keygen::generate(KeyKind::Ec).unwrap();
        let key = PrivateKey::from_pem(KeyKind::Ec, &pem, "kid1").unwrap();
        let t = sign(&Map::new(), Alg::ES256, "JWT", SignKey::Private(&key)).unwrap();
        assert_eq!(peek_header(&t).unwrap()["kid"], "kid1");
        assert!(verify(&t, Alg::ES256, VerifyKey::Public(key.public())).is_ok());
        assert_eq!(
            verify(&t, Alg::EdDSA, VerifyKey::Public(key.public())),
            Err(JwtError::Algorithm)
        );
        // The classic confusion: an HS256 token keyed with the public key's bytes.
        let fake = sign(&Map::new(), Alg::HS256, "JWT", SignKey::Secret(b"pub")).unwrap();
        assert_eq!(
            verify(&fake, Alg::HS256, VerifyKey::Public(key.public())),
            Err(JwtError::Algorithm)
        );
    }

    #[test]
    fn header_is_exactly_llng() {
        let t = sign_hs256(&Map::new(), b"k");
        let h = B64.decode(t.split('.').next().unwrap()).unwrap();
        assert_eq!(
            String::from_utf8(h).unwrap(),
            r#"{"alg":"HS256","typ":"JWT"}"#
        );
    }

    #[test]
    fn at_hash_known_value() {
        // base64url(left half of sha256("abc")) = ungWv48Bz-pBQUDeXa4iIw
        assert_eq!(at_hash("abc"), "ungWv48Bz-pBQUDeXa4iIw");
        assert_eq!(at_hash_for(Alg::EdDSA, "abc").len(), 43);
    }
}
