//! Request objects (OpenID Connect Core 6; RFC 9101): the authorization request's parameters
//! in a JWT, passed by value (`request`) or by reference (`request_uri`, fetched only when it
//! matches one of the RP's `oidcRPMetaDataOptionsRequestUris`, where `*` is a wildcard, as
//! LemonLDAP::NG matches them). The JWT is signed with the RP's client secret (HS256, HS384,
//! HS512: what LemonLDAP::NG 2.16 verifies) or its own keys (RS256/384/512, ES256, EdDSA, with
//! its `Jwks` or the keys at its `JwksUri`), or unsigned (`none`) only when the RP's
//! `RequestObjectSignAlg` says `none` (OpenID Connect Discovery 3 lists `none` for request
//! objects; an unsigned object is no stronger than the query it replaces, but a client that
//! signs must not be impersonated by one that does not); a set `RequestObjectSignAlg` is the
//! only algorithm accepted. Its parameters replace the query's, except that `client_id` and
//! `response_type`, when both carry them, must agree (6.1), `iss` is the client and `aud`, when
//! present, names this provider (RFC 9101 §6.3), and its `exp`, `nbf` and `iat` hold (RFC 7519
//! 4.1.4, 4.1.5, 4.1.6: `nbf` and `iat` may be up to [`LEEWAY`] in the future, as a client
//! assertion's; a past `exp` has no leeway). The fetch is the caller's (a function given in,
//! run off the worker pool), so this file stays free of the network.
use crate::error::OAuthCode;
use crate::oidc::base::Params;
use crate::oidc::clients;
use crate::oidc::clients::assertion::LEEWAY;
use crate::oidc::keys::jwt::{self, VerifyKey};
use crate::oidc::keys::Alg;
use crate::oidc::settings::Rp;
use serde_json::Value;

/// The largest request object accepted, by value or fetched (bytes).
pub const MAX_REQUEST_OBJECT: usize = 16 * 1024;

/// The URL to fetch when the request carries its object by reference at a `request_uri` the
/// RP registered (without its fragment, which is never sent: RFC 3986 3.5); `None` when there
/// is nothing to fetch (no `request_uri`, or one `expand` refuses without fetching).
pub fn reference(rp: &Rp, p: &Params) -> Option<String> {
    match (p.get("request"), p.get("request_uri")) {
        (None, Some(uri)) if registered(rp, uri) => Some(bare(uri)),
        _ => None,
    }
}

/// The parameters of the request, with its request object applied; the query's unchanged when
/// it has none. `fetch` gets the body at a registered `request_uri`; `now` is the time, seconds.
pub fn expand(
    rp: &Rp,
    issuer: &str,
    p: &Params,
    now: i64,
    fetch: impl FnOnce(&str) -> Result<String, String>,
) -> Result<Params, OAuthCode> {
    let jwt = match (p.get("request"), p.get("request_uri")) {
        (None, None) => return Ok(p.clone()),
        // One of the two (6.1, 6.2).
        (Some(_), Some(_)) => return Err(OAuthCode::InvalidRequest),
        (Some(v), None) => v.to_string(),
        (None, Some(uri)) => {
            if !registered(rp, uri) {
                crate::log::notice(&format!(
                    "relying party {}: request_uri not registered",
                    rp.name
                ));
                return Err(OAuthCode::InvalidRequestUri);
            }
            let body = fetch(&bare(uri)).map_err(|e| {
                crate::log::warn(&format!("relying party {}: request_uri: {e}", rp.name));
                OAuthCode::InvalidRequestUri
            })?;
            body.trim().to_string()
        }
    };
    if jwt.len() > MAX_REQUEST_OBJECT {
        return Err(OAuthCode::InvalidRequestObject);
    }
    let claims = verify(rp, &jwt).ok_or(OAuthCode::InvalidRequestObject)?;
    if !in_time(&claims, now) {
        crate::log::notice(&format!(
            "relying party {}: request object expired or not yet valid",
            rp.name
        ));
        return Err(OAuthCode::InvalidRequestObject);
    }
    apply(rp, issuer, p, &claims)
}

/// Whether `uri` matches one of the RP's `RequestUris`, both compared without fragments: the
/// fragment is a hash of the contents (OpenID Connect Dynamic Registration 2), which may
/// change from one request to the next.
fn registered(rp: &Rp, uri: &str) -> bool {
    rp.request_uris
        .iter()
        .any(|pattern| wildcard(&bare(pattern), &bare(uri)))
}

/// A URI without its fragment.
fn bare(u: &str) -> String {
    u.split('#').next().unwrap_or_default().to_string()
}

/// RFC 7519 4.1.4-4.1.6: `exp`, when present, is still ahead; `nbf` and `iat`, when present,
/// are no more than [`LEEWAY`] ahead (clocks drift). A present claim that is not a number of
/// seconds is refused.
fn in_time(claims: &serde_json::Map<String, Value>, now: i64) -> bool {
    let number = |k: &str| claims.get(k).map(|v| v.as_i64());
    let exp_ok = match number("exp") {
        None => true,
        Some(Some(exp)) => exp > now,
        Some(None) => false,
    };
    let started = |k: &str| match number(k) {
        None => true,
        Some(Some(t)) => t <= now + LEEWAY,
        Some(None) => false,
    };
    exp_ok && started("nbf") && started("iat")
}

/// The claims of a request object whose algorithm the RP may use and whose signature holds:
/// the RP's `RequestObjectSignAlg` alone when set (OpenID Connect Dynamic Registration 2:
/// `request_object_signing_alg`), `none` included; unset, any signing algorithm (never
/// `none`). HS* is keyed by the client secret (never an empty one), RS*, ES256 and EdDSA by the
/// RP's keys (`rp_jwks`: inline, or fetched from its `jwks_uri` before this runs).
fn verify(rp: &Rp, jwt: &str) -> Option<serde_json::Map<String, Value>> {
    let header = jwt::peek_header(jwt)?;
    let alg = Alg::parse(header.get("alg")?.as_str()?)?;
    let allowed = match rp.request_object_alg {
        Some(only) => alg == only,
        None => alg != Alg::None,
    };
    if !allowed {
        crate::log::notice(&format!(
            "relying party {}: request object signed with {}, not allowed",
            rp.name,
            alg.as_str()
        ));
        return None;
    }
    if alg == Alg::None {
        return jwt::unsigned_claims(jwt).ok();
    }
    if alg.key_kind().is_none() {
        let secret = rp.secret.expose();
        return match secret.is_empty() {
            true => None,
            false => jwt::verify(jwt, alg, VerifyKey::Secret(secret)).ok(),
        };
    }
    let kid = header.get("kid").and_then(Value::as_str);
    clients::rp_jwks::keys(rp)
        .iter()
        .filter(|k| k.fits(alg, kid))
        .find_map(|k| jwt::verify(jwt, alg, VerifyKey::Public(&k.jwk)).ok())
}

/// The query's parameters with the object's in their place (6.3.3), after its own checks.
fn apply(
    rp: &Rp,
    issuer: &str,
    p: &Params,
    claims: &serde_json::Map<String, Value>,
) -> Result<Params, OAuthCode> {
    let bad = OAuthCode::InvalidRequestObject;
    // RFC 9101 6.3: issued by the client, for this provider.
    if claims
        .get("iss")
        .is_some_and(|i| i.as_str() != Some(&rp.client_id))
    {
        return Err(bad);
    }
    if let Some(aud) = claims.get("aud") {
        let names_us = |v: &Value| v.as_str().is_some_and(|a| same_issuer(a, issuer));
        let ok = match aud {
            Value::Array(a) => a.iter().any(names_us),
            v => names_us(v),
        };
        if !ok {
            return Err(bad);
        }
    }
    // 6.1: client_id and response_type in both must agree.
    for k in ["client_id", "response_type"] {
        if let (Some(q), Some(o)) = (p.get(k), claims.get(k)) {
            if o.as_str() != Some(q) {
                return Err(bad);
            }
        }
    }
    let mut out: Vec<(String, String)> =
        p.0.iter()
            .filter(|(k, _)| k != "request" && k != "request_uri" && !claims.contains_key(k))
            .cloned()
            .collect();
    for (k, v) in claims {
        if matches!(k.as_str(), "iss" | "aud" | "exp" | "iat" | "nbf" | "jti") {
            continue;
        }
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => continue,
            other => other.to_string(),
        };
        out.push((k.clone(), text));
    }
    let out = Params(out);
    if out.oversized() {
        return Err(OAuthCode::InvalidRequest);
    }
    Ok(out)
}

/// The issuer with or without its trailing slash.
fn same_issuer(a: &str, issuer: &str) -> bool {
    a.trim_end_matches('/') == issuer.trim_end_matches('/')
}

/// LemonLDAP::NG's `_wildcard_match`: the registered URI with `*` matching anything.
pub fn wildcard(pattern: &str, candidate: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = candidate.strip_prefix(first) else {
        return false;
    };
    let tail: Vec<&str> = parts.collect();
    let Some((last, middle)) = tail.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(i) => rest = &rest[i + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::keys::{KeyKind, PrivateKey};
    use serde_json::json;

    /// The time the tests run at.
    const NOW: i64 = 1_700_000_000;

    fn rp() -> Rp {
        Rp {
            name: "app".into(),
            client_id: "app".into(),
            secret: crate::oidc::settings::Secret::new("s3cret"),
            request_uris: vec!["https://rp.example/req/*".into()],
            ..Rp::default()
        }
    }

    fn signed(claims: Value, alg: Alg, key: &[u8]) -> String {
        let m = claims.as_object().cloned().unwrap_or_default();
        jwt::sign(&m, alg, "JWT", jwt::SignKey::Secret(key)).unwrap()
    }

    fn q(s: &str) -> Params {
        Params(crate::util::parse_urlencoded(s))
    }

    #[test]
    fn the_object_replaces_the_query() {
        let obj = signed(
            json!({"iss": "app", "aud": "http://p/", "client_id": "app", "scope": "openid email",
                "nonce": "n1", "max_age": 60}),
            Alg::HS256,
            b"s3cret",
        );
        let p = q(&format!("client_id=app&scope=openid&state=s&request={obj}"));
        let out = expand(&rp(), "http://p/", &p, NOW, |_| Err("no".into())).unwrap();
        assert_eq!(out.get("scope"), Some("openid email"));
        assert_eq!(out.get("nonce"), Some("n1"));
        assert_eq!(out.get("max_age"), Some("60"));
        assert_eq!(out.get("state"), Some("s"));
        assert_eq!(out.get("request"), None);
        assert_eq!(out.get("iss"), None);
    }

    #[test]
    fn signatures_issuers_and_mismatches_are_refused() {
        let run = |obj: String, extra: &str| {
            let p = q(&format!(
                "client_id=app&response_type=code{extra}&request={obj}"
            ));
            expand(&rp(), "http://p/", &p, NOW, |_| Err("no".into())).err()
        };
        let bad = Some(OAuthCode::InvalidRequestObject);
        assert_eq!(run(signed(json!({"a": 1}), Alg::HS256, b"wrong"), ""), bad);
        let none = jwt::sign(
            &serde_json::Map::new(),
            Alg::None,
            "JWT",
            jwt::SignKey::Unsigned,
        )
        .unwrap();
        assert_eq!(run(none, ""), bad);
        assert_eq!(
            run(signed(json!({"iss": "other"}), Alg::HS512, b"s3cret"), ""),
            bad
        );
        assert_eq!(
            run(
                signed(json!({"aud": "http://evil/"}), Alg::HS384, b"s3cret"),
                ""
            ),
            bad
        );
        let rt = signed(json!({"response_type": "id_token"}), Alg::HS256, b"s3cret");
        assert_eq!(run(rt, ""), bad);
        let both = signed(json!({}), Alg::HS256, b"s3cret");
        assert_eq!(run(both, "&request_uri=x"), Some(OAuthCode::InvalidRequest));
    }

    #[test]
    fn none_only_when_registered_and_the_registered_alg_only() {
        let unsigned = |claims: Value| {
            let m = claims.as_object().cloned().unwrap_or_default();
            jwt::sign(&m, Alg::None, "JWT", jwt::SignKey::Unsigned).unwrap()
        };
        let run = |rp: &Rp, obj: &str| {
            let p = q(&format!("client_id=app&request={obj}"));
            expand(rp, "http://p/", &p, NOW, |_| Err("no".into()))
        };
        let obj = unsigned(json!({"nonce": "u"}));
        assert!(run(&rp(), &obj).is_err());
        let mut open = rp();
        open.request_object_alg = Some(Alg::None);
        assert_eq!(run(&open, &obj).unwrap().get("nonce"), Some("u"));
        // Registered `none`: a signed object is not that algorithm.
        let hs = signed(json!({"nonce": "h"}), Alg::HS256, b"s3cret");
        assert!(run(&open, &hs).is_err());
        // An unsigned object with a signature part is no unsigned object.
        assert!(run(&open, &format!("{obj}AAAA")).is_err());
        // The client's own key: verified by its key set, only with the registered algorithm.
        let (pem, _) = crate::oidc::keys::keygen::generate(KeyKind::Ec).unwrap();
        let key = PrivateKey::from_pem(KeyKind::Ec, &pem, "k1").unwrap();
        let mut keyed = rp();
        keyed.jwks = vec![crate::oidc::settings::rp_keys::RpKey {
            jwk: key.public().clone(),
            alg: None,
        }];
        let m = json!({"nonce": "e"}).as_object().cloned().unwrap();
        let es = jwt::sign(&m, Alg::ES256, "JWT", jwt::SignKey::Private(&key)).unwrap();
        assert_eq!(run(&keyed, &es).unwrap().get("nonce"), Some("e"));
        assert!(run(&rp(), &es).is_err());
        keyed.request_object_alg = Some(Alg::RS256);
        assert!(run(&keyed, &es).is_err());
        keyed.request_object_alg = Some(Alg::ES256);
        assert!(run(&keyed, &es).is_ok());
        assert!(run(&keyed, &hs).is_err());
        // HS* never with an empty secret.
        let mut secretless = rp();
        secretless.secret = crate::oidc::settings::Secret::new("");
        assert!(run(&secretless, &signed(json!({}), Alg::HS256, b"")).is_err());
    }

    #[test]
    fn request_uris_must_be_registered() {
        let obj = signed(json!({"scope": "openid profile"}), Alg::HS256, b"s3cret");
        let fetched = |u: &str| -> Result<String, String> {
            assert!(u.starts_with("https://rp.example/req/"));
            Ok(obj.clone())
        };
        let p = q("client_id=app&request_uri=https%3A%2F%2Frp.example%2Freq%2F42");
        let out = expand(&rp(), "http://p/", &p, NOW, fetched).unwrap();
        assert_eq!(out.get("scope"), Some("openid profile"));
        let p = q("client_id=app&request_uri=https%3A%2F%2Fevil.example%2Freq%2F42");
        assert_eq!(
            expand(&rp(), "http://p/", &p, NOW, fetched).err(),
            Some(OAuthCode::InvalidRequestUri)
        );
        assert!(wildcard("https://a/*/x*", "https://a/b/c/xyz"));
        assert!(wildcard("https://a/r", "https://a/r") && !wildcard("https://a/r", "https://a/r2"));
        assert!(!wildcard("https://a/*", "https://b/a/"));
        let mut hashed = rp();
        hashed.request_uris = vec!["https://rp.example/req/1#aaaa".into()];
        let p = q("client_id=app&request_uri=https%3A%2F%2Frp.example%2Freq%2F1%23bbbb");
        assert!(expand(&hashed, "http://p/", &p, NOW, fetched).is_ok());
    }

    #[test]
    fn times_are_checked_with_the_leeway() {
        let run = |claims: Value| {
            let obj = signed(claims, Alg::HS256, b"s3cret");
            let p = q(&format!("client_id=app&request={obj}"));
            expand(&rp(), "http://p/", &p, NOW, |_| Err("no".into())).err()
        };
        let bad = Some(OAuthCode::InvalidRequestObject);
        // RFC 7519 4.1.4: expired, by a second or more; a past exp has no leeway.
        assert_eq!(run(json!({"exp": NOW})), bad);
        assert_eq!(run(json!({"exp": NOW - 3600})), bad);
        assert_eq!(run(json!({"exp": NOW + 1})), None);
        // 4.1.5: not yet valid beyond the leeway; within it, accepted.
        assert_eq!(run(json!({"nbf": NOW + LEEWAY + 1})), bad);
        assert_eq!(run(json!({"nbf": NOW + LEEWAY})), None);
        // 4.1.6: issued in the future beyond the leeway.
        assert_eq!(run(json!({"iat": NOW + LEEWAY + 1})), bad);
        assert_eq!(
            run(json!({"iat": NOW - 10, "nbf": NOW - 10, "exp": NOW + 60})),
            None
        );
        // Times that are not numbers of seconds.
        assert_eq!(run(json!({"exp": "tomorrow"})), bad);
        assert_eq!(run(json!({"iat": 1.5e9})), bad);
    }
}
