//! What the endpoints of every concern share, above the settings: the request's parameters
//! (`params`), the issuer, signing for a relying party (`sign_for`), the record id behind an
//! access token, the frame of the provider's pages, a session's subject, and the records and
//! rules more than one endpoint reads: what may be granted (`access`, `scopes`), the `claims`
//! parameter (`claims_request`), PKCE (`pkce`) and how the authorization endpoint answers
//! (`response`). It imports only `settings`, `keys`, `claims` and `options` of the provider,
//! never an endpoint's folder.
pub mod access;
pub mod acr;
pub mod claims_request;
pub mod params;
pub mod pkce;
pub mod response;
pub mod scopes;

pub use params::{params, with_params, Params};

use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::Request;
use crate::oidc::keys::jwt;
use crate::oidc::settings::{Rp, Settings};
use crate::storage::Session;
use crate::util;

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

/// The `sub` of a session: its `whatToTrace` value, as LemonLDAP::NG.
pub fn subject(s: &Session) -> String {
    s.get("_whatToTrace")
        .or_else(|| s.get("_user"))
        .map(crate::config::value_string)
        .unwrap_or_default()
}
