//! Client authentication at the token and introspection endpoints (RFC 6749 2.3.1):
//! `client_secret_basic`, `client_secret_post`, and public clients (client_id alone) whose
//! PKCE is then mandatory. The answers follow LemonLDAP::NG: 401 + `WWW-Authenticate: Basic`
//! only when Basic credentials were sent, 400 when no client authentication came at all.
//! Stricter than LemonLDAP::NG: two methods in one request (Basic and a `client_secret`
//! field) are `invalid_request` (RFC 6749 2.3: one method per request), and a public client
//! that sends a secret is `invalid_client` (it has none: a secret it sends is a mistake or
//! a guess, never to be ignored).
use super::{Params, Rp, Settings};
use crate::error::{Error, OAuthCode, Result};

/// What the client sent to identify itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// `Authorization: Basic` (client_secret_basic).
    Basic(String, String),
    /// `client_id` + `client_secret` form fields (client_secret_post).
    Post(String, String),
    /// `client_id` alone (public client).
    Public(String),
    /// Basic credentials and a `client_secret` field: two methods (RFC 6749 2.3).
    Several,
    /// Nothing.
    None,
}

impl Credentials {
    /// Reads credentials from the Basic header (if any) and the parameters.
    pub fn from_parts(basic: Option<(String, String)>, p: &Params) -> Credentials {
        if let Some((u, s)) = basic {
            if p.0.iter().any(|(k, _)| k == "client_secret") {
                return Credentials::Several;
            }
            return Credentials::Basic(u, s);
        }
        match (p.get("client_id"), p.get("client_secret")) {
            (Some(id), Some(s)) => Credentials::Post(id.into(), s.into()),
            (Some(id), None) => Credentials::Public(id.into()),
            _ => Credentials::None,
        }
    }
}

/// The authenticated relying party.
pub fn authenticate<'a>(settings: &'a Settings, creds: &Credentials) -> Result<&'a Rp> {
    let refuse = |basic: bool| Error::OAuth {
        code: OAuthCode::InvalidClient,
        status: 401,
        basic,
    };
    match creds {
        Credentials::Basic(id, secret) | Credentials::Post(id, secret) => {
            let basic = matches!(creds, Credentials::Basic(..));
            match settings.rp(id) {
                Some(rp) if !rp.public && rp.secret.matches(secret) => Ok(rp),
                // Some libraries send Basic with an empty secret for a public client.
                Some(rp) if rp.public && secret.is_empty() => Ok(rp),
                _ => Err(refuse(basic)),
            }
        }
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
    use crate::oidc::settings::Secret;

    fn settings() -> Settings {
        let conf = Rp {
            client_id: "c".into(),
            secret: Secret::new("s"),
            ..Rp::default()
        };
        let public = Rp {
            client_id: "p".into(),
            public: true,
            ..Rp::default()
        };
        Settings {
            enabled: true,
            rps: vec![conf, public],
            refresh_ttl: 10,
            ..Settings::default()
        }
    }

    fn status(r: Result<&Rp>) -> (u16, bool) {
        match r {
            Err(Error::OAuth { status, basic, .. }) => (status, basic),
            _ => (200, false),
        }
    }

    #[test]
    fn answers_as_llng() {
        let s = settings();
        let basic = |u: &str, p: &str| Credentials::Basic(u.into(), p.into());
        assert_eq!(status(authenticate(&s, &basic("c", "s"))), (200, false));
        assert_eq!(status(authenticate(&s, &basic("c", "x"))), (401, true));
        assert_eq!(status(authenticate(&s, &basic("nope", "s"))), (401, true));
        assert_eq!(
            status(authenticate(&s, &Credentials::Post("c".into(), "x".into()))),
            (401, false)
        );
        assert_eq!(
            status(authenticate(&s, &Credentials::Public("c".into()))),
            (401, false)
        );
        assert_eq!(
            status(authenticate(&s, &Credentials::Public("p".into()))),
            (200, false)
        );
        assert_eq!(status(authenticate(&s, &Credentials::None)), (400, false));
        // A public client has no secret: one it sends is refused, an empty one is none.
        assert_eq!(status(authenticate(&s, &basic("p", "guess"))), (401, true));
        assert_eq!(
            status(authenticate(&s, &Credentials::Post("p".into(), "x".into()))),
            (401, false)
        );
        assert_eq!(status(authenticate(&s, &basic("p", ""))), (200, false));
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
        assert_eq!(status(authenticate(&settings(), &both)), (400, false));
        let id_too = Credentials::from_parts(basic, &p(&[("client_id", "c")]));
        assert_eq!(id_too, Credentials::Basic("c".into(), "s".into()));
    }
}
