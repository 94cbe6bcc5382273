//! Client authentication at the token and introspection endpoints (RFC 6749 2.3.1, OpenID
//! Connect Core 9): `client_secret_basic`, `client_secret_post`, `client_secret_jwt` and
//! `private_key_jwt` (RFC 7523 2.2, checked by `assertion`), and public clients (client_id
//! alone) whose PKCE is then mandatory. An RP uses the one method its
//! `oidcRPMetaDataOptionsAuthMethod` names, or (unset) either secret method; any other is
//! `invalid_client`. The answers follow LemonLDAP::NG: 401 + `WWW-Authenticate: Basic` only
//! when Basic credentials were sent, 400 when no client authentication came at all.
//! Stricter than LemonLDAP::NG: two methods in one request (Basic and a `client_secret` field,
//! or a secret and an assertion) are `invalid_request` (RFC 6749 2.3: one method per request),
//! and a public client that sends a secret is `invalid_client` (it has none: a secret it sends
//! is a mistake or a guess, never to be ignored). `request` is the one function here that
//! reads the HTTP request; `authenticate` decides on plain values.
use super::assertion::{self, Verified, ASSERTION_TYPE};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, OAuthCode, Result};
use crate::http::Request;
use crate::oidc::base::{self, Params};
use crate::oidc::discovery;
use crate::oidc::settings::rp_keys::AuthMethod;
use crate::oidc::settings::{Rp, Settings};
use crate::storage::Kind;

/// What the client sent to identify itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// `Authorization: Basic` (client_secret_basic).
    Basic(String, String),
    /// `client_id` + `client_secret` form fields (client_secret_post).
    Post(String, String),
    /// `client_assertion` of type jwt-bearer (client_secret_jwt, private_key_jwt), with the
    /// `client_id` field if sent (RFC 7523 3: then it must be the assertion's).
    Assertion(Option<String>, String),
    /// `client_assertion_type` other than jwt-bearer, or one without its assertion.
    BadAssertion,
    /// `client_id` alone (public client).
    Public(String),
    /// Two methods in one request (RFC 6749 2.3).
    Several,
    /// Nothing.
    None,
}

impl Credentials {
    /// Reads credentials from the Basic header (if any) and the parameters.
    pub fn from_parts(basic: Option<(String, String)>, p: &Params) -> Credentials {
        let has = |k: &str| p.0.iter().any(|(n, _)| n == k);
        let asserted = has("client_assertion") || has("client_assertion_type");
        if let Some((u, s)) = basic {
            if has("client_secret") || asserted {
                return Credentials::Several;
            }
            return Credentials::Basic(u, s);
        }
        if asserted {
            if has("client_secret") {
                return Credentials::Several;
            }
            return match (p.get("client_assertion_type"), p.get("client_assertion")) {
                (Some(ASSERTION_TYPE), Some(jwt)) => {
                    Credentials::Assertion(p.get("client_id").map(str::to_string), jwt.into())
                }
                _ => Credentials::BadAssertion,
            };
        }
        match (p.get("client_id"), p.get("client_secret")) {
            (Some(id), Some(s)) => Credentials::Post(id.into(), s.into()),
            (Some(id), None) => Credentials::Public(id.into()),
            _ => Credentials::None,
        }
    }
}

/// What an assertion is checked against: the `aud` values that name this server, the time,
/// and the replay check (`true`: the `jti` is new, and is now recorded).
pub struct AssertionCheck<'a> {
    /// The issuer, the token endpoint URL, the URL of the endpoint called.
    pub audiences: Vec<String>,
    /// Now, epoch seconds.
    pub now: i64,
    /// Records a verified assertion; `false` when its `jti` was seen already.
    pub fresh: &'a dyn Fn(&Verified) -> Result<bool>,
}

/// The authenticated relying party of a request to the endpoint `endpoint` (`token`,
/// `introspect`): the credentials read from it, used `jti`s kept in the shared store.
pub fn request<'a>(
    app: &App,
    conf: &Conf,
    oidc: &'a Settings,
    req: &Request,
    p: &Params,
    endpoint: &str,
) -> Result<&'a Rp> {
    let store = app.sessions(Kind::Oidc);
    let fresh = |v: &Verified| assertion::remember(store, v);
    let mut audiences = vec![base::issuer(conf), discovery::endpoint(conf, "token")];
    audiences.push(discovery::endpoint(conf, endpoint));
    let check = AssertionCheck {
        audiences,
        now: crate::util::now(),
        fresh: &fresh,
    };
    authenticate(oidc, &Credentials::from_parts(req.basic_auth(), p), &check)
}

/// The authenticated relying party.
pub fn authenticate<'a>(
    settings: &'a Settings,
    creds: &Credentials,
    check: &AssertionCheck<'_>,
) -> Result<&'a Rp> {
    let refuse = |basic: bool| Error::OAuth {
        code: OAuthCode::InvalidClient,
        status: 401,
        basic,
    };
    // The methods an RP may use: the one it is registered for, else the secret ones.
    let allowed = |rp: &Rp, used: AuthMethod| match rp.auth_method {
        Some(m) => m == used,
        None => matches!(
            used,
            AuthMethod::ClientSecretBasic | AuthMethod::ClientSecretPost
        ),
    };
    match creds {
        Credentials::Basic(id, secret) | Credentials::Post(id, secret) => {
            let (basic, used) = match creds {
                Credentials::Basic(..) => (true, AuthMethod::ClientSecretBasic),
                _ => (false, AuthMethod::ClientSecretPost),
            };
            match settings.rp(id) {
                Some(rp) if !rp.public && rp.secret.matches(secret) && allowed(rp, used) => Ok(rp),
                // Some libraries send Basic with an empty secret for a public client.
                Some(rp) if rp.public && secret.is_empty() => Ok(rp),
                _ => Err(refuse(basic)),
            }
        }
        Credentials::Assertion(id, jwt) => {
            let claimed = assertion::claimed_client(jwt);
            let rp = id
                .as_deref()
                .or(claimed.as_deref())
                .and_then(|id| settings.rp(id))
                .ok_or_else(|| refuse(false))?;
            let method = match rp.auth_method {
                Some(m @ (AuthMethod::ClientSecretJwt | AuthMethod::PrivateKeyJwt)) => m,
                _ => {
                    crate::log::warn(&format!(
                        "client {}: a client assertion, but not registered for one",
                        rp.client_id
                    ));
                    return Err(refuse(false));
                }
            };
            let verified = assertion::verify(rp, method, jwt, &check.audiences, check.now)
                .and_then(|v| match (check.fresh)(&v) {
                    Ok(true) => Ok(v),
                    Ok(false) => Err(assertion::Refusal::Replayed),
                    Err(e) => {
                        crate::log::error(&format!("client assertion not recorded: {e}"));
                        Err(assertion::Refusal::Replayed)
                    }
                });
            match verified {
                Ok(_) => Ok(rp),
                Err(why) => {
                    crate::log::warn(&format!(
                        "client {}: {} refused: {}",
                        rp.client_id,
                        method.as_str(),
                        why.as_str()
                    ));
                    Err(refuse(false))
                }
            }
        }
        Credentials::BadAssertion => Err(refuse(false)),
        Credentials::Public(id) => match settings.rp(id) {
            Some(rp) if rp.public => Ok(rp),
            _ => Err(refuse(false)),
        },
        Credentials::Several => Err(Error::oauth(OAuthCode::InvalidRequest)),
        Credentials::None => Err(Error::OAuth {
            code: OAuthCode::InvalidClient,
            status: 400,
            basic: false,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::keys::jwt;
    use crate::oidc::keys::jwt::SignKey;
    use crate::oidc::keys::Alg;
    use crate::oidc::settings::Secret;
    use serde_json::json;

    fn settings() -> Settings {
        let rp = |id: &str, method: Option<AuthMethod>| Rp {
            client_id: id.into(),
            secret: Secret::new("s"),
            auth_method: method,
            ..Rp::default()
        };
        let public = Rp {
            client_id: "p".into(),
            public: true,
            ..Rp::default()
        };
        let rps = vec![
            rp("c", None),
            public,
            rp("post", Some(AuthMethod::ClientSecretPost)),
            rp("jwt", Some(AuthMethod::ClientSecretJwt)),
        ];
        Settings {
            enabled: true,
            rps,
            refresh_ttl: 10,
            ..Settings::default()
        }
    }

    fn check() -> AssertionCheck<'static> {
        AssertionCheck {
            audiences: vec!["https://op/oauth2/token".into()],
            now: 1000,
            fresh: &|v: &Verified| Ok(v.jti != "seen"),
        }
    }

    fn status(s: &Settings, c: &Credentials) -> (u16, bool) {
        match authenticate(s, c, &check()) {
            Err(Error::OAuth { status, basic, .. }) => (status, basic),
            Err(_) => (500, false),
            Ok(_) => (200, false),
        }
    }

    #[test]
    fn answers_as_llng() {
        let s = settings();
        let basic = |u: &str, p: &str| Credentials::Basic(u.into(), p.into());
        let post = |u: &str, p: &str| Credentials::Post(u.into(), p.into());
        assert_eq!(status(&s, &basic("c", "s")), (200, false));
        assert_eq!(status(&s, &basic("c", "x")), (401, true));
        assert_eq!(status(&s, &basic("nope", "s")), (401, true));
        assert_eq!(status(&s, &post("c", "x")), (401, false));
        assert_eq!(status(&s, &Credentials::Public("c".into())), (401, false));
        assert_eq!(status(&s, &Credentials::Public("p".into())), (200, false));
        assert_eq!(status(&s, &Credentials::None), (400, false));
        // A public client has no secret: one it sends is refused, an empty one is none.
        assert_eq!(status(&s, &basic("p", "guess")), (401, true));
        assert_eq!(status(&s, &post("p", "x")), (401, false));
        assert_eq!(status(&s, &basic("p", "")), (200, false));
    }

    #[test]
    fn the_registered_method_only() {
        let s = settings();
        let assertion = |id: &str, jti: &str| {
            let c = json!({"iss": id, "sub": id, "aud": "https://op/oauth2/token",
                "exp": 1100, "jti": jti});
            let t = jwt::sign(
                c.as_object().unwrap(),
                Alg::HS256,
                "JWT",
                SignKey::Secret(b"s"),
            );
            Credentials::Assertion(None, t.unwrap())
        };
        assert_eq!(
            status(&s, &Credentials::Post("post".into(), "s".into())),
            (200, false)
        );
        assert_eq!(
            status(&s, &Credentials::Basic("post".into(), "s".into())),
            (401, true)
        );
        assert_eq!(
            status(&s, &Credentials::Post("jwt".into(), "s".into())),
            (401, false)
        );
        assert_eq!(status(&s, &assertion("jwt", "j")), (200, false));
        assert_eq!(status(&s, &assertion("jwt", "seen")), (401, false));
        // Not registered for assertions: unset, or a secret method.
        assert_eq!(status(&s, &assertion("c", "j")), (401, false));
        assert_eq!(status(&s, &assertion("post", "j")), (401, false));
        // client_id must be the assertion's.
        let Credentials::Assertion(_, t) = assertion("jwt", "j") else {
            unreachable!()
        };
        let other = Credentials::Assertion(Some("c".into()), t.clone());
        assert_eq!(status(&s, &other), (401, false));
        let same = Credentials::Assertion(Some("jwt".into()), t);
        assert_eq!(status(&s, &same), (200, false));
        assert_eq!(status(&s, &Credentials::BadAssertion), (401, false));
    }

    #[test]
    fn one_method_per_request() {
        let p = |pairs: &[(&str, &str)]| {
            Params(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )
        };
        let basic = Some(("c".to_string(), "s".to_string()));
        let both = Credentials::from_parts(basic.clone(), &p(&[("client_secret", "s")]));
        assert_eq!(both, Credentials::Several);
        assert_eq!(status(&settings(), &both), (400, false));
        let id_too = Credentials::from_parts(basic.clone(), &p(&[("client_id", "c")]));
        assert_eq!(id_too, Credentials::Basic("c".into(), "s".into()));
        let t = ("client_assertion_type", ASSERTION_TYPE);
        let with_basic = Credentials::from_parts(basic, &p(&[t, ("client_assertion", "x")]));
        assert_eq!(with_basic, Credentials::Several);
        let with_secret = p(&[t, ("client_assertion", "x"), ("client_secret", "s")]);
        assert_eq!(
            Credentials::from_parts(None, &with_secret),
            Credentials::Several
        );
        let wrong_type = p(&[("client_assertion_type", "saml"), ("client_assertion", "x")]);
        assert_eq!(
            Credentials::from_parts(None, &wrong_type),
            Credentials::BadAssertion
        );
        let alone = p(&[t]);
        assert_eq!(
            Credentials::from_parts(None, &alone),
            Credentials::BadAssertion
        );
        let good = p(&[t, ("client_assertion", "x"), ("client_id", "c")]);
        assert_eq!(
            Credentials::from_parts(None, &good),
            Credentials::Assertion(Some("c".into()), "x".into())
        );
    }
}
