//! HS256 JSON Web Tokens (RFC 7519, RFC 7515): signing the ID token with the client secret,
//! and verifying one read back (`id_token_hint`). No HTTP here. The algorithm is pinned: a
//! token whose header names anything but HS256 is refused before its MAC is even computed, and
//! no claim is trusted before the MAC has been checked in constant time.
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// Why a token was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum JwtError {
    /// Not three base64url parts of JSON.
    Malformed,
    /// The header names another algorithm.
    Algorithm,
    /// The MAC does not match.
    Signature,
}

/// Signs claims: `base64url(header).base64url(claims).base64url(HMAC-SHA256)`.
pub fn sign_hs256(claims: &Map<String, Value>, key: &[u8]) -> String {
    let header = json!({"alg": "HS256", "typ": "JWT"});
    let input = format!(
        "{}.{}",
        B64.encode(header.to_string()),
        B64.encode(Value::Object(claims.clone()).to_string())
    );
    let sig = B64.encode(mac(key, input.as_bytes()));
    format!("{input}.{sig}")
}

/// Verifies an HS256 token and returns its claims (expiry is the caller's business).
pub fn verify_hs256(token: &str, key: &[u8]) -> Result<Map<String, Value>, JwtError> {
    let mut parts = token.trim().split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    // RFC 7515 5.2 step 1-3: the header is JSON; pin the algorithm (no "none", no confusion).
    let header = decode_json(h)?;
    if header.get("alg").and_then(Value::as_str) != Some("HS256") {
        return Err(JwtError::Algorithm);
    }
    // Step 6: the MAC, compared in constant time, before any claim is read.
    let sig = B64.decode(s).map_err(|_| JwtError::Malformed)?;
    let expected = mac(key, format!("{h}.{p}").as_bytes());
    if !crate::util::ct_eq(&sig, &expected) {
        return Err(JwtError::Signature);
    }
    decode_json(p)
}

/// The claims of a token without checking it: only to find which key to verify it with.
pub fn peek_claims(token: &str) -> Option<Map<String, Value>> {
    decode_json(token.split('.').nth(1)?).ok()
}

/// OIDC Core 3.1.3.6: base64url of the left half of SHA-256 of the access token.
pub fn at_hash(access_token: &str) -> String {
    let d = Sha256::digest(access_token.as_bytes());
    // Invariant: a SHA-256 digest is 32 bytes, so the left half always exists.
    B64.encode(&d[..16])
}

fn mac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so this cannot fail.
    let Ok(mut m) = Hmac::<Sha256>::new_from_slice(key) else {
        return Vec::new();
    };
    m.update(data);
    m.finalize().into_bytes().to_vec()
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
        assert_eq!(verify_hs256("a.b", b"k"), Err(JwtError::Malformed));
        assert_eq!(peek_claims(&t).unwrap()["sub"], "dwho");
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
    }
}
