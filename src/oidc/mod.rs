//! The OpenID Connect provider: discovery, authorize (code, implicit and hybrid flows), token
//! (with its `client_credentials` and `password` grants), userinfo, introspection, revocation,
//! RP-initiated logout, the check-session page, JWKS, and the logout channels (`channels`) run
//! when a session ends. `handle` only dispatches; each endpoint owns its file, the security pieces (`jwt`, `pkce`,
//! `client`) take plain values and never see HTTP. The codes and tokens the endpoints issue are
//! typed records of the domain (`crate::grants`).
pub mod access;
pub mod assertion;
pub mod authorize;
pub mod channels;
pub mod check_session;
pub mod claims;
pub mod claims_request;
pub mod client;
pub mod client_credentials;
pub mod consent;
pub mod discovery;
pub mod implicit;
pub mod introspect;
pub mod jwt;
pub mod keygen;
pub mod keys;
pub mod keys_first;
pub mod logout;
pub mod options;
pub mod password;
pub mod pkce;
pub mod pushed;
pub mod register;
pub mod request_object;
pub mod response;
pub mod revoke;
pub mod rp_edit;
pub mod rp_jwks;
pub mod rp_keys;
pub mod scopes;
pub mod settings;
pub mod signing;
pub mod token;
pub mod token_claims;
pub mod userinfo;

use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use crate::util;

pub use settings::{DisabledRp, Rp, Settings};

/// Serves `/oauth2/...` and `/.well-known/openid-configuration`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app, ctx.req, ctx.conf);
    if !conf.area::<Settings>().enabled {
        return Err(Error::not_found("Not found"));
    }
    let endpoint = req
        .path
        .strip_prefix("/oauth2/")
        .unwrap_or(&req.path)
        .trim_end_matches('/');
    // RFC 6749 3.2: the token endpoint takes POST only (a GET would put the client secret
    // and the code in URLs, logs and Referer headers); so do revocation (RFC 7009 2.1) and
    // pushed authorization requests (RFC 9126 2.1).
    if matches!(endpoint, "token" | "revoke" | "par") && req.method != Method::Post {
        return Err(Error::OnlyMethods("POST"));
    }
    let read_or_post = matches!(req.method, Method::Get | Method::Head | Method::Post);
    if !read_or_post {
        return Err(Error::MethodNotAllowed);
    }
    match endpoint {
        "/.well-known/openid-configuration" => Ok(discovery::configuration(conf)),
        "jwks" => Ok(discovery::jwks(conf)),
        "authorize" => authorize::handle(app, req, conf),
        "checksession.html" => check_session::page(app, req, conf),
        // A client assertion or a request object may need the client's keys fetched first.
        "token" => keys_first::first(app, req, conf, |a, r, c| token::handle(a, r, c)),
        "revoke" => keys_first::first(app, req, conf, |a, r, c| revoke::handle(a, r, c)),
        "par" => keys_first::first(app, req, conf, |a, r, c| pushed::handle(a, r, c)),
        "userinfo" => userinfo::handle(app, req, conf),
        "introspect" => keys_first::first(app, req, conf, |a, r, c| introspect::handle(a, r, c)),
        "logout" => logout::handle(app, req, conf),
        "register" => register::handle(app, req, conf),
        _ => Err(Error::not_found("Not found")),
    }
}

/// The request's parameters: the form body on POST, the query otherwise (POST works as GET
/// for the endpoints that accept both). The first value of a name wins.
pub fn params(req: &Request) -> Params {
    let pairs = if req.method == Method::Post && req.is_form() {
        req.form()
    } else {
        req.query_pairs()
    };
    Params(pairs)
}

/// Longest value of any OAuth or OpenID Connect parameter: an ID token hint, a PKCE
/// challenge or a registered URI fits in a few kilobytes; a longer value is refused with
/// `invalid_request` before anything is looked up or stored.
pub const MAX_PARAM: usize = 4096;
/// Longest `state` and `nonce`: echoed in redirects and stored with every code and token.
pub const MAX_ECHOED: usize = 1024;
/// Longest parameter name.
const MAX_NAME: usize = 64;

/// Decoded request parameters.
#[derive(Debug, Clone, Default)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// Whether any name or value is over its bound ([`MAX_PARAM`], [`MAX_ECHOED`] for `state`
    /// and `nonce`).
    pub fn oversized(&self) -> bool {
        self.0.iter().any(|(k, v)| {
            let max = match k.as_str() {
                "state" | "nonce" => MAX_ECHOED,
                _ => MAX_PARAM,
            };
            k.len() > MAX_NAME || v.len() > max
        })
    }

    /// `state`, when it is within its bound (an oversized one is never echoed).
    pub fn state(&self) -> Option<&str> {
        self.get("state").filter(|s| s.len() <= MAX_ECHOED)
    }

    /// First value of a name; an empty value counts as absent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
    /// The parameters re-encoded as a query string, without the names in `drop`.
    pub fn to_query(&self, drop: &[&str]) -> String {
        self.0
            .iter()
            .filter(|(k, _)| !drop.contains(&k.as_str()))
            .map(|(k, v)| format!("{}={}", util::url_encode(k), util::url_encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Signs claims for a relying party with `alg`: HS* with its client secret, RS*, ES256 and
/// EdDSA with the provider's key of that family (whose `kid` goes in the header).
pub fn sign_for(
    settings: &Settings,
    rp: &Rp,
    alg: jwt::Alg,
    typ: &str,
    claims: &serde_json::Map<String, serde_json::Value>,
) -> Result<String> {
    let key = match alg.key_kind() {
        Some(kind) => match settings.keys.signer(kind) {
            Some(k) => jwt::SignKey::Private(k),
            // Settings disables an RP whose key is missing, so this is a broken invariant.
            None => return Err(Error::internal(format!("no {} key", kind.name()))),
        },
        None if alg == jwt::Alg::None => jwt::SignKey::Unsigned,
        None => jwt::SignKey::Secret(rp.secret.expose()),
    };
    jwt::sign(claims, alg, typ, key)
        .map_err(|e| Error::internal(format!("signing with {}: {e:?}", alg.as_str())))
}

/// The record id behind an access token: the token itself, or for a JWT access token
/// (RFC 9068) its `jti`, once its signature checks out with its RP's algorithm and key.
pub fn access_record_id(settings: &Settings, token: &str) -> Option<String> {
    if token.split('.').count() != 3 {
        return Some(token.to_string());
    }
    let claims = jwt::peek_claims(token)?;
    let client = claims.get("client_id")?.as_str()?;
    let rp = settings.rp(client)?;
    let alg = rp.access_jwt?;
    let key = match alg.key_kind() {
        Some(_) => {
            let header = jwt::peek_header(token)?;
            let kid = header.get("kid")?.as_str()?;
            jwt::VerifyKey::Public(settings.keys.find(kid, util::now())?)
        }
        None => jwt::VerifyKey::Secret(rp.secret.expose()),
    };
    let verified = jwt::verify(token, alg, key).ok()?;
    verified.get("jti")?.as_str().map(str::to_string)
}

/// The frame of the provider's pages (consent, logout, form post), skinned by
/// `portalSkinRules` for the session's user.
pub fn frame<'a>(
    conf: &'a Conf,
    req: &Request,
    s: Option<&crate::storage::Session>,
) -> crate::web::Page<'a> {
    let rules = conf.area::<crate::sso::skin::SkinRules>();
    crate::web::Page::new(conf, req).with_skin(rules.choose(s, &req.ip(), None))
}

/// The issuer: `oidcServiceMetaDataIssuer`, else the portal URL with its trailing slash, as
/// LemonLDAP::NG.
pub fn issuer(conf: &Conf) -> String {
    match &conf.area::<Settings>().issuer {
        Some(iss) => iss.clone(),
        None => conf.portal.clone(),
    }
}

/// `uri` with parameters appended (`?` or `&` as needed).
pub fn with_params(uri: &str, params: &[(&str, &str)]) -> String {
    let q = params
        .iter()
        .map(|(k, v)| format!("{k}={}", util::url_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    if q.is_empty() {
        return uri.to_string();
    }
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{q}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_parameters() {
        assert_eq!(
            with_params("http://x/cb", &[("code", "a b")]),
            "http://x/cb?code=a%20b"
        );
        assert_eq!(
            with_params("http://x/cb?k=1", &[("state", "s")]),
            "http://x/cb?k=1&state=s"
        );
        let p = Params(vec![
            ("a".into(), "1".into()),
            ("prompt".into(), "login".into()),
            ("a".into(), "2".into()),
        ]);
        assert_eq!(p.get("a"), Some("1"));
        assert!(!p.oversized());
        assert_eq!(p.to_query(&["prompt"]), "a=1&a=2");
    }
}
