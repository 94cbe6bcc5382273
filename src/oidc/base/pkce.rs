//! PKCE (RFC 7636): the challenge methods Limette accepts and the verifier check.
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use sha2::{Digest, Sha256};

/// RFC 7636 4.2: `plain` or `S256`; absent means `plain`.
pub fn method_ok(method: Option<&str>) -> bool {
    matches!(method, None | Some("plain") | Some("S256"))
}

/// RFC 7636 4.6: does the verifier match the stored challenge?
pub fn verify(challenge: &str, method: &str, verifier: &str) -> bool {
    // 4.1: 43 to 128 characters of the unreserved set.
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    if !well_formed {
        return false;
    }
    let computed = match method {
        "S256" => B64.encode(Sha256::digest(verifier.as_bytes())),
        _ => verifier.to_string(),
    };
    crate::util::ct_eq(computed.as_bytes(), challenge.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        let v = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert!(verify(
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            "S256",
            v
        ));
        assert!(!verify(
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cX",
            "S256",
            v
        ));
        assert!(verify(v, "plain", v));
        assert!(!verify("short", "plain", "short"));
        assert!(method_ok(None) && method_ok(Some("S256")) && !method_ok(Some("S512")));
    }
}
