//! How a relying party authenticates at the token and introspection endpoints, and the public
//! keys it signs its client assertions with: `oidcRPMetaDataOptionsAuthMethod` and
//! `oidcRPMetaDataOptionsJwks`, under the names later LemonLDAP::NG versions (2.17+) give
//! them, read strictly (an unknown method or a key set that does not read disables the RP).
//! `settings` assembles the RP; `assertion` verifies with the keys. No HTTP here.
use crate::oidc::keys::{Alg, KeyKind, PublicJwk};
use serde_json::Value;

/// Client authentication methods (OpenID Connect Core 9; RFC 7591 2 `token_endpoint_auth_method`).
/// The serialized form is the registry's name, which is also the option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// `Authorization: Basic` with the secret (RFC 6749 2.3.1).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form (RFC 6749 2.3.1).
    ClientSecretPost,
    /// A JWT signed with HMAC keyed by the secret (RFC 7523 2.2, OIDC Core 9).
    ClientSecretJwt,
    /// A JWT signed with the RP's private key (RFC 7523 2.2, OIDC Core 9).
    PrivateKeyJwt,
}

impl AuthMethod {
    /// Every method, in the order discovery lists them.
    pub const ALL: [AuthMethod; 4] = [
        AuthMethod::ClientSecretBasic,
        AuthMethod::ClientSecretPost,
        AuthMethod::ClientSecretJwt,
        AuthMethod::PrivateKeyJwt,
    ];

    /// The registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::ClientSecretBasic => "client_secret_basic",
            AuthMethod::ClientSecretPost => "client_secret_post",
            AuthMethod::ClientSecretJwt => "client_secret_jwt",
            AuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// The method a name stands for (exact spelling).
    pub fn parse(s: &str) -> Option<AuthMethod> {
        AuthMethod::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The algorithms a client assertion of this method may be signed with (`none` never):
    /// HMAC for `client_secret_jwt`, the asymmetric ones Limette verifies for `private_key_jwt`.
    pub fn algorithms(self) -> &'static [Alg] {
        match self {
            AuthMethod::ClientSecretJwt => &[Alg::HS256, Alg::HS384, Alg::HS512],
            AuthMethod::PrivateKeyJwt => {
                &[Alg::RS256, Alg::RS384, Alg::RS512, Alg::ES256, Alg::EdDSA]
            }
            AuthMethod::ClientSecretBasic | AuthMethod::ClientSecretPost => &[],
        }
    }
}

/// One public key of a relying party, with the algorithm its JWK pins (`alg`), if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpKey {
    /// The key (its `kid` may be empty: then it is tried for every token of its family).
    pub jwk: PublicJwk,
    /// The JWK's `alg`: when present, the only algorithm this key verifies.
    pub alg: Option<Alg>,
}

impl RpKey {
    /// Whether this key may verify a token signed with `alg` and naming `kid`.
    pub fn fits(&self, alg: Alg, kid: Option<&str>) -> bool {
        let family = alg.key_kind() == Some(self.jwk.kind());
        let pinned = self.alg.map_or(true, |a| a == alg);
        let named = kid.map_or(true, |k| k == self.jwk.kid);
        family && pinned && named
    }
}

/// Reads `oidcRPMetaDataOptionsJwks`: a JWK Set (RFC 7517 5) as JSON text or object. Every
/// signing key must be RSA (2048 bits or more, checked when verifying), EC P-256 or Ed25519;
/// keys marked `use: enc` are skipped (they never verify). `Err` says what is wrong.
pub fn parse_jwks(v: &Value) -> Result<Vec<RpKey>, String> {
    let doc = match v {
        Value::Null => return Ok(Vec::new()),
        Value::String(s) if s.trim().is_empty() => return Ok(Vec::new()),
        Value::String(s) => {
            serde_json::from_str::<Value>(s).map_err(|e| format!("not JSON: {e}"))?
        }
        other => other.clone(),
    };
    let Some(keys) = doc.get("keys").and_then(Value::as_array) else {
        return Err("a JWK Set is an object with a \"keys\" array".into());
    };
    let mut out = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        if k.get("use").and_then(Value::as_str) == Some("enc") {
            continue;
        }
        out.push(parse_key(k).map_err(|e| format!("key {i}: {e}"))?);
    }
    if out.is_empty() {
        return Err("no signing key".into());
    }
    Ok(out)
}

fn parse_key(k: &Value) -> Result<RpKey, String> {
    let jwk = PublicJwk::parse(k)?;
    let alg = match k.get("alg").and_then(Value::as_str) {
        None => None,
        Some(name) => match Alg::parse(name) {
            Some(a) if a.key_kind() == Some(jwk.kind()) => Some(a),
            _ => {
                return Err(format!(
                    "alg {name} does not fit a {} key",
                    jwk.kind().name()
                ))
            }
        },
    };
    Ok(RpKey { jwk, alg })
}

/// The key families of a key set (for logs and tests).
pub fn families(keys: &[RpKey]) -> Vec<KeyKind> {
    keys.iter().map(|k| k.jwk.kind()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn methods_read_by_their_names() {
        for m in AuthMethod::ALL {
            assert_eq!(AuthMethod::parse(m.as_str()), Some(m));
        }
        assert_eq!(AuthMethod::parse("none"), None);
        assert_eq!(AuthMethod::parse("Private_Key_JWT"), None);
        assert!(!AuthMethod::PrivateKeyJwt.algorithms().contains(&Alg::None));
        assert!(!AuthMethod::ClientSecretJwt
            .algorithms()
            .contains(&Alg::RS256));
    }

    #[test]
    fn key_sets_read_strictly() {
        let ec = json!({"kty": "EC", "crv": "P-256", "x": "AQID", "y": "BAUG", "alg": "ES256"});
        let enc = json!({"kty": "RSA", "use": "enc", "n": "", "e": ""});
        let set = json!({"keys": [ec, enc]}).to_string();
        let keys = parse_jwks(&Value::String(set)).unwrap();
        assert_eq!(families(&keys), vec![KeyKind::Ec]);
        assert!(keys[0].fits(Alg::ES256, None) && !keys[0].fits(Alg::ES256, Some("x")));
        assert!(!keys[0].fits(Alg::RS256, None));
        assert!(parse_jwks(&json!("{nope"))
            .unwrap_err()
            .starts_with("not JSON"));
        assert!(parse_jwks(&json!({"keys": []})).is_err());
        assert!(parse_jwks(&json!([ec])).is_err());
        let p384 = json!({"keys": [{"kty": "EC", "crv": "P-384", "x": "AQ", "y": "AQ"}]});
        assert!(parse_jwks(&p384).unwrap_err().contains("P-384"));
        let wrong_alg =
            json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "AQ", "alg": "RS256"}]});
        assert!(parse_jwks(&wrong_alg).is_err());
        let none_alg =
            json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "AQ", "alg": "none"}]});
        assert!(parse_jwks(&none_alg).is_err());
        assert_eq!(parse_jwks(&json!("")), Ok(Vec::new()));
    }
}
