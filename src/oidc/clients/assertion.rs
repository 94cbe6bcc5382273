//! Client assertions (RFC 7523 2.2 and 3; OpenID Connect Core 9): `client_secret_jwt` (HMAC
//! keyed by the client secret) and `private_key_jwt` (the RP's public keys,
//! `oidcRPMetaDataOptionsJwks`, or those fetched from its `JwksUri`: `rp_jwks`). `verify` takes plain values: the signature first, with an
//! algorithm the RP's method allows (`none` never), then the claims, numbered against RFC 7523
//! section 3. `remember` records the `jti` in the shared store until the assertion expires, with
//! the store's atomic create: of two requests with one assertion, exactly one passes.
//!
//! Choices: an assertion may live at most [`MAX_LIFETIME`] (an hour, the default lifetime of
//! Authlib's assertions; plus [`LEEWAY`]) from now, so a used `jti` is kept that long at most;
//! `iat` and `nbf` may be up to [`LEEWAY`] in the future (clocks drift); a past `exp` has no
//! leeway. The audience may be the token endpoint URL, the URL of
//! the endpoint called (introspection), or the issuer, as the OpenID Foundation's tests accept.
use crate::error::Result;
use crate::oidc::keys::jwt::{self, VerifyKey};
use crate::oidc::keys::Alg;
use crate::oidc::settings::rp_keys::AuthMethod;
use crate::oidc::settings::Rp;
use crate::storage::{Kind, Session, SessionStore};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// `client_assertion_type` of a JWT client assertion (RFC 7523 2.2).
pub const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// The longest an assertion may still live, seconds (plus [`LEEWAY`]): a later `exp` is refused.
pub const MAX_LIFETIME: i64 = 3600;
/// How far in the future `iat` and `nbf` may be, seconds.
pub const LEEWAY: i64 = 60;
/// Longest `jti` kept.
const MAX_JTI: usize = 256;

/// A verified assertion: whose it is, its `jti` and until when it counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// `iss` = `sub` = the client id.
    pub client_id: String,
    /// `jti`.
    pub jti: String,
    /// `exp`.
    pub exp: i64,
}

/// Why an assertion was refused (logged; the client only sees `invalid_client`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not a JWT.
    Malformed,
    /// `alg` is not one the RP's method allows, or no key of the RP fits it.
    Algorithm,
    /// The signature does not verify.
    Signature,
    /// RFC 7523 3 item 1: `iss` is not the client id.
    Issuer,
    /// Item 2: `sub` is not the client id.
    Subject,
    /// Item 3: `aud` does not name this server.
    Audience,
    /// Item 4: `exp` missing or past.
    Expired,
    /// Item 4: `exp` further than [`MAX_LIFETIME`].
    TooLong,
    /// Items 5, 6: `nbf` or `iat` in the future.
    NotYet,
    /// Item 7: no `jti`.
    NoJti,
    /// Item 7: the `jti` was seen already.
    Replayed,
}

impl Refusal {
    /// A short text for the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Malformed => "not a JWT",
            Refusal::Algorithm => "algorithm not allowed for its method, or no key fits it",
            Refusal::Signature => "signature does not verify",
            Refusal::Issuer => "iss is not the client id",
            Refusal::Subject => "sub is not the client id",
            Refusal::Audience => "aud does not name this server",
            Refusal::Expired => "expired or without exp",
            Refusal::TooLong => "exp is more than an hour away",
            Refusal::NotYet => "nbf or iat in the future",
            Refusal::NoJti => "no jti",
            Refusal::Replayed => "jti already used",
        }
    }
}

/// The client id an assertion claims (`iss`), unchecked: only to find the RP whose key verifies it.
pub fn claimed_client(token: &str) -> Option<String> {
    jwt::peek_claims(token)?
        .get("iss")?
        .as_str()
        .map(str::to_string)
}

/// Verifies an assertion of `rp`, registered for `method`, at `now`; `audiences` are the
/// values `aud` may hold.
pub fn verify(
    rp: &Rp,
    method: AuthMethod,
    token: &str,
    audiences: &[String],
    now: i64,
) -> Result<Verified, Refusal> {
    // RFC 7523 3 item 9, RFC 7515 5.2: the algorithm is pinned by the method (never `none`),
    // the signature checked before any claim is read.
    let header = jwt::peek_header(token).ok_or(Refusal::Malformed)?;
    let alg = header
        .get("alg")
        .and_then(Value::as_str)
        .and_then(Alg::parse)
        .filter(|a| method.algorithms().contains(a))
        .ok_or(Refusal::Algorithm)?;
    let kid = header.get("kid").and_then(Value::as_str);
    let claims = match method {
        AuthMethod::ClientSecretJwt if !rp.secret.expose().is_empty() => {
            jwt::verify(token, alg, VerifyKey::Secret(rp.secret.expose())).map_err(refusal)?
        }
        AuthMethod::PrivateKeyJwt => {
            let keys = super::rp_jwks::keys(rp);
            let mut fitting = keys.iter().filter(|k| k.fits(alg, kid)).peekable();
            if fitting.peek().is_none() {
                return Err(Refusal::Algorithm);
            }
            fitting
                .find_map(|k| jwt::verify(token, alg, VerifyKey::Public(&k.jwk)).ok())
                .ok_or(Refusal::Signature)?
        }
        _ => return Err(Refusal::Algorithm),
    };
    let text = |k: &str| claims.get(k).and_then(Value::as_str);
    let number = |k: &str| claims.get(k).and_then(Value::as_i64);
    // Item 1: the issuer is the client. Item 2: so is the subject (OIDC Core 9).
    if text("iss") != Some(rp.client_id.as_str()) {
        return Err(Refusal::Issuer);
    }
    if text("sub") != Some(rp.client_id.as_str()) {
        return Err(Refusal::Subject);
    }
    // Item 3: the audience names this server.
    let aud_ok = match claims.get("aud") {
        Some(Value::String(a)) => audiences.contains(a),
        Some(Value::Array(all)) => all
            .iter()
            .filter_map(Value::as_str)
            .any(|a| audiences.iter().any(|x| x == a)),
        _ => false,
    };
    if !aud_ok {
        return Err(Refusal::Audience);
    }
    // Item 4: not expired, and not living longer than we keep its jti.
    let exp = number("exp").ok_or(Refusal::Expired)?;
    if exp <= now {
        return Err(Refusal::Expired);
    }
    if exp > now + MAX_LIFETIME + LEEWAY {
        return Err(Refusal::TooLong);
    }
    // Items 5 and 6: not before its time.
    for k in ["nbf", "iat"] {
        match claims.get(k) {
            None => {}
            Some(v) => match v.as_i64() {
                Some(t) if t <= now + LEEWAY => {}
                _ => return Err(Refusal::NotYet),
            },
        }
    }
    // Item 7: a jti, whose replay `remember` refuses.
    let jti = text("jti")
        .filter(|j| !j.is_empty() && j.len() <= MAX_JTI)
        .ok_or(Refusal::NoJti)?;
    Ok(Verified {
        client_id: rp.client_id.clone(),
        jti: jti.to_string(),
        exp,
    })
}

/// Records a verified assertion's `jti` until it expires; `false` when it was already there
/// (a replay). The record id is the SHA-256 of the client id and the `jti` (any text is
/// safe then); the purge removes it after `exp`.
pub fn remember(store: &dyn SessionStore, v: &Verified) -> Result<bool> {
    let id = crate::util::hex(&Sha256::digest(format!("{}\n{}", v.client_id, v.jti)));
    let mut rec = Session::new();
    rec.insert("_type".into(), json!("client_assertion"));
    rec.insert("client_id".into(), json!(v.client_id));
    rec.insert("_exp".into(), json!(v.exp));
    store.create(Kind::Oidc, &id, &rec)
}

fn refusal(e: jwt::JwtError) -> Refusal {
    match e {
        jwt::JwtError::Malformed => Refusal::Malformed,
        jwt::JwtError::Algorithm => Refusal::Algorithm,
        jwt::JwtError::Signature => Refusal::Signature,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::keys::{KeyKind, PrivateKey};
    use crate::oidc::settings::rp_keys::RpKey;
    use crate::oidc::settings::Secret;
    use serde_json::Map;

    const NOW: i64 = 1_000_000;

    fn rp() -> Rp {
        Rp {
            client_id: "c".into(),
            secret: Secret::new("s3cret"),
            ..Rp::default()
        }
    }

    fn claims(extra: Value) -> Map<String, Value> {
        let mut m = json!({"iss": "c", "sub": "c", "aud": "https://op/oauth2/token",
            "exp": NOW + 60, "jti": "j1"})
        .as_object()
        .cloned()
        .unwrap();
        for (k, v) in extra.as_object().cloned().unwrap() {
            if v.is_null() {
                m.remove(&k);
            } else {
                m.insert(k, v);
            }
        }
        m
    }

    fn hs(extra: Value, alg: Alg) -> String {
        jwt::sign(&claims(extra), alg, "JWT", jwt::SignKey::Secret(b"s3cret")).unwrap()
    }

    fn check(token: &str, method: AuthMethod, rp: &Rp) -> Result<Verified, Refusal> {
        let aud = vec![
            "https://op/".to_string(),
            "https://op/oauth2/token".to_string(),
        ];
        verify(rp, method, token, &aud, NOW)
    }

    #[test]
    fn client_secret_jwt_every_check() {
        let m = AuthMethod::ClientSecretJwt;
        let ok = check(&hs(json!({}), Alg::HS256), m, &rp()).unwrap();
        assert_eq!((ok.jti.as_str(), ok.exp), ("j1", NOW + 60));
        assert!(check(
            &hs(json!({"aud": ["x", "https://op/"]}), Alg::HS512),
            m,
            &rp()
        )
        .is_ok());
        let case = |extra: Value| check(&hs(extra, Alg::HS256), m, &rp()).unwrap_err();
        assert_eq!(case(json!({"iss": "d"})), Refusal::Issuer);
        assert_eq!(case(json!({"sub": null})), Refusal::Subject);
        assert_eq!(
            case(json!({"aud": "https://elsewhere/token"})),
            Refusal::Audience
        );
        assert_eq!(case(json!({"exp": NOW})), Refusal::Expired);
        assert_eq!(case(json!({"exp": null})), Refusal::Expired);
        assert_eq!(case(json!({"exp": NOW + 3661})), Refusal::TooLong);
        assert!(check(&hs(json!({"exp": NOW + 3660}), Alg::HS256), m, &rp()).is_ok());
        assert_eq!(case(json!({"iat": NOW + 61})), Refusal::NotYet);
        assert_eq!(case(json!({"nbf": "soon"})), Refusal::NotYet);
        assert_eq!(case(json!({"jti": ""})), Refusal::NoJti);
        let other = jwt::sign(
            &claims(json!({})),
            Alg::HS256,
            "JWT",
            jwt::SignKey::Secret(b"x"),
        );
        assert_eq!(check(&other.unwrap(), m, &rp()), Err(Refusal::Signature));
        let none = jwt::sign(&claims(json!({})), Alg::None, "JWT", jwt::SignKey::Unsigned);
        assert_eq!(check(&none.unwrap(), m, &rp()), Err(Refusal::Algorithm));
        // An HMAC assertion is no private_key_jwt, whatever the secret.
        let hs = hs(json!({}), Alg::HS256);
        assert_eq!(
            check(&hs, AuthMethod::PrivateKeyJwt, &rp()),
            Err(Refusal::Algorithm)
        );
        assert_eq!(check("x.y", m, &rp()), Err(Refusal::Malformed));
    }

    #[test]
    fn private_key_jwt_with_the_rps_keys() {
        let (pem, _) = crate::oidc::keys::keygen::generate(KeyKind::Ec).unwrap();
        let key = PrivateKey::from_pem(KeyKind::Ec, &pem, "rp-1").unwrap();
        let mut r = rp();
        r.jwks = vec![RpKey {
            jwk: key.public().clone(),
            alg: None,
        }];
        let t = jwt::sign(
            &claims(json!({})),
            Alg::ES256,
            "JWT",
            jwt::SignKey::Private(&key),
        );
        let t = t.unwrap();
        let m = AuthMethod::PrivateKeyJwt;
        assert!(check(&t, m, &r).is_ok());
        // Another key of the same family, unknown to the RP.
        let (pem2, _) = crate::oidc::keys::keygen::generate(KeyKind::Ec).unwrap();
        let stranger = PrivateKey::from_pem(KeyKind::Ec, &pem2, "").unwrap();
        let t2 = jwt::sign(
            &claims(json!({})),
            Alg::ES256,
            "JWT",
            jwt::SignKey::Private(&stranger),
        );
        assert_eq!(check(&t2.unwrap(), m, &r), Err(Refusal::Signature));
        // A key pinned to another algorithm, or a kid the RP does not have.
        r.jwks[0].alg = Some(Alg::EdDSA);
        assert_eq!(check(&t, m, &r), Err(Refusal::Algorithm));
        r.jwks[0].alg = None;
        r.jwks[0].jwk.kid = "rp-2".into();
        assert_eq!(check(&t, m, &r), Err(Refusal::Algorithm));
        // The client secret never verifies a private_key_jwt method's HS assertion.
        assert_eq!(
            check(&hs(json!({}), Alg::HS256), m, &r),
            Err(Refusal::Algorithm)
        );
    }

    #[test]
    fn a_jti_is_used_once() {
        let store = crate::storage::memory::MemorySessions::new();
        let v = Verified {
            client_id: "c".into(),
            jti: "../../etc".into(),
            exp: NOW,
        };
        assert!(remember(&store, &v).unwrap());
        assert!(!remember(&store, &v).unwrap());
        let other = Verified {
            client_id: "d".into(),
            ..v
        };
        assert!(remember(&store, &other).unwrap());
    }
}
