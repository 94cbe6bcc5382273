//! `POST /oauth2/token` (RFC 6749 4.1.3, 6; OIDC Core 3.1.3, 12): the authorization_code and
//! refresh_token grants here, client_credentials (`client_credentials`) and password
//! (`password`) beside, all issuing through [`issue`]. Checks in LemonLDAP::NG's order, so its
//! error table holds: grant type, then client authentication (a wrong secret leaves the code
//! alone), then whether the RP may use the grant, then the code, taken atomically (a wrong
//! client or redirect_uri has consumed it), then PKCE. An offline code (`grants::offline`)
//! opens a family detached from the SSO session; a public client's refresh token that is
//! presented again after its rotation revokes its family (`grants::reuse`).
//!
//! The folder holds what the provider says about tokens: the token endpoint and its grants
//! (here, `client_credentials`, `password`), issuing (`issue`) and the claims of the tokens
//! (`token_claims`), introspection (`introspect`), revocation (`revoke`) and `userinfo`. It
//! imports `clients` (client authentication) and the shared modules; `authorize` imports it.
pub mod client_credentials;
pub mod introspect;
mod issue;
pub mod password;
pub mod revoke;
pub mod token_claims;
pub mod userinfo;

pub use issue::{has_scope, invalid_grant, issue, refused, Family, Issue};
pub use token_claims::id_token_claims;

use crate::app::App;
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, offline, reuse, Record, RecordType, Redemption};
use crate::http::Response;
use crate::oidc::base::{self, params, Params};
use crate::oidc::clients::client;
use crate::oidc::settings::{self, Rp};
use crate::storage::Session;
use issue::refresh_ttl;
use serde_json::{json, Map, Value};

/// The grants Limette serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// RFC 6749 4.1.3
    AuthorizationCode,
    /// RFC 6749 6
    RefreshToken,
    /// RFC 6749 4.4
    ClientCredentials,
    /// RFC 6749 4.3
    Password,
}

/// `/oauth2/token`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let p = params(req);
    // RFC 6749 5.2: a parameter over its bound makes the request malformed.
    if p.oversized() {
        return Err(Error::oauth(OAuthCode::InvalidRequest));
    }
    let grant = grant_type(p.get("grant_type"))?;
    let oidc = conf.area::<settings::Settings>();
    let rp = client::request(app, conf, &oidc, req, &p, "token")?;
    allowed(rp, grant)?;
    let answer = match grant {
        Grant::AuthorizationCode => redeem_code(app, conf, rp, &p)?,
        Grant::RefreshToken => refresh(app, conf, rp, &p)?,
        Grant::ClientCredentials => client_credentials::grant(app, conf, rp, &p)?,
        Grant::Password => password::grant(app, conf, req, rp, &p)?,
    };
    Ok(Response::json(200, &Value::Object(answer)))
}

/// RFC 6749 5.2: unknown or missing -> unsupported_grant_type.
pub fn grant_type(g: Option<&str>) -> Result<Grant> {
    match g {
        Some("authorization_code") => Ok(Grant::AuthorizationCode),
        Some("refresh_token") => Ok(Grant::RefreshToken),
        Some("client_credentials") => Ok(Grant::ClientCredentials),
        Some("password") => Ok(Grant::Password),
        _ => Err(Error::oauth(OAuthCode::UnsupportedGrantType)),
    }
}

/// RFC 6749 5.2 `unauthorized_client`, as LemonLDAP::NG's `token`: the password grant without
/// `AllowPasswordGrant`; client credentials without `AllowClientCredentialsGrant`, or for a
/// public client (RFC 6749 4.4: confidential clients only).
pub fn allowed(rp: &Rp, grant: Grant) -> Result<()> {
    let ok = match grant {
        Grant::AuthorizationCode | Grant::RefreshToken => true,
        Grant::ClientCredentials => rp.allow_client_credentials && !rp.public,
        Grant::Password => rp.allow_password,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::oauth(OAuthCode::UnauthorizedClient))
    }
}

fn redeem_code(app: &App, conf: &Conf, rp: &Rp, p: &Params) -> Result<Map<String, Value>> {
    let code = p
        .get("code")
        .ok_or_else(|| Error::oauth(OAuthCode::InvalidRequest))?;
    let db = store::of(app);
    // 1. Single use: taken before anything else can fail (RFC 6749 4.1.2, 10.5). A code
    //    presented again revokes every token issued from it (4.1.2: SHOULD revoke).
    let rec = match store::redeem(db, code)? {
        Redemption::Fresh(rec) => rec,
        Redemption::Replayed(family) => {
            store::revoke(db, &family.issued())?;
            crate::log::audit(
                "oidc_code_replayed",
                &[
                    ("client", &rp.client_id),
                    ("issued_to", family.client_id().unwrap_or("")),
                    ("user", family.sub().unwrap_or("")),
                    ("revoked", &family.issued().len().to_string()),
                ],
            );
            return Err(invalid_grant());
        }
        Redemption::Unknown => return Err(invalid_grant()),
    };
    // 2. Issued to this client (RFC 6749 4.1.3).
    if rec.client_id() != Some(rp.client_id.as_str()) {
        return Err(invalid_grant());
    }
    // 3. Same redirect_uri as the authorization request (RFC 6749 4.1.3).
    if p.get("redirect_uri") != rec.redirect_uri() {
        return Err(invalid_grant());
    }
    // 4. PKCE (RFC 7636 4.6); a public client always has a challenge (checked at authorize).
    //    A verifier for a code issued without a challenge is a downgrade (RFC 9700 2.1.1).
    match rec.pkce() {
        Some((challenge, method)) => {
            let verifier = p.get("code_verifier").unwrap_or("");
            if !base::pkce::verify(challenge, method, verifier) {
                return Err(invalid_grant());
            }
        }
        None if rp.require_pkce || p.get("code_verifier").is_some() => return Err(invalid_grant()),
        None => {}
    }
    // 5. The SSO session must still be there.
    let session = live_session(app, conf, &rec)?;
    // 6. The tokens, in a family opened for them; an offline one (OIDC Core 11) keeps the
    //    user's attributes, and always has a refresh token (LemonLDAP::NG).
    let offline = rec.is_offline() && rp.allow_offline;
    let rec = rec.with("offline", json!(offline));
    let detached = offline.then(|| offline::saved_attributes(&session));
    let how = Issue {
        refresh: rp.refresh || offline,
        id_token: true,
        family: Family::Open {
            seed: code,
            detached: detached.as_ref(),
        },
    };
    issue(app, conf, rp, &rec, &session, how)
}

/// RFC 6749 6. A confidential client's refresh token is used again and again (the contract);
/// a public client's rotates (RFC 9700 4.14.2): taken on use, leaving a trace, a new one in
/// the answer; presented again, it revokes its family. The ID token only when the scope has
/// `openid` (LemonLDAP::NG). An offline refresh token stands for its saved attributes.
fn refresh(app: &App, conf: &Conf, rp: &Rp, p: &Params) -> Result<Map<String, Value>> {
    let token = p
        .get("refresh_token")
        .ok_or_else(|| Error::oauth(OAuthCode::InvalidRequest))?;
    let db = store::of(app);
    // RFC 6749 5.2: unknown, expired, revoked, another client's refresh token, or one whose
    // session is gone: invalid_grant. RFC 9700 4.14.2: a rotated one revokes its family.
    let Some((rec, session)) = store::live(app, conf, RecordType::Refresh, token)? else {
        if let Some(family) = reuse::replayed(db, token)? {
            crate::log::audit(
                "oidc_refresh_replayed",
                &[
                    ("client", &rp.client_id),
                    ("issued_to", family.client_id().unwrap_or("")),
                    ("user", family.sub().unwrap_or("")),
                    ("revoked", &family.issued().len().to_string()),
                ],
            );
        }
        return Err(invalid_grant());
    };
    if rec.client_id() != Some(rp.client_id.as_str()) {
        return Err(invalid_grant());
    }
    // Single use for a public client: of two concurrent uses, one wins.
    if rp.public {
        if store::take(db, RecordType::Refresh, token)?.is_none() {
            return Err(invalid_grant());
        }
        let family = rec.family().unwrap_or("");
        reuse::mark_used(db, token, family, refresh_ttl(conf, rp, &rec))?;
    }
    let how = Issue {
        refresh: rp.public,
        id_token: has_scope(rec.scope(), "openid"),
        family: Family::Join,
    };
    issue(app, conf, rp, &rec.without_nonce(), &session, how)
}

fn live_session(app: &App, conf: &Conf, rec: &Record) -> Result<Session> {
    crate::sso::lookup(app, conf, rec.session_id())?
        .map(crate::sso::SsoSession::into_map)
        .ok_or_else(invalid_grant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_types_as_llng() {
        assert_eq!(
            grant_type(Some("authorization_code")).ok(),
            Some(Grant::AuthorizationCode)
        );
        let code = |g| match grant_type(g) {
            Err(Error::OAuth { code, .. }) => Some(code),
            _ => None,
        };
        assert_eq!(code(None), Some(OAuthCode::UnsupportedGrantType));
        assert_eq!(code(Some("foo")), Some(OAuthCode::UnsupportedGrantType));
        assert_eq!(grant_type(Some("password")).ok(), Some(Grant::Password));
        let cc = Some("client_credentials");
        assert_eq!(grant_type(cc).ok(), Some(Grant::ClientCredentials));
        let refused = |rp: &Rp, g| match allowed(rp, g) {
            Err(Error::OAuth { code, .. }) => Some(code),
            _ => None,
        };
        let unauthorized = Some(OAuthCode::UnauthorizedClient);
        let none = Rp::default();
        assert_eq!(refused(&none, Grant::Password), unauthorized);
        assert_eq!(refused(&none, Grant::ClientCredentials), unauthorized);
        assert_eq!(refused(&none, Grant::RefreshToken), None);
        let both = Rp {
            allow_password: true,
            allow_client_credentials: true,
            ..Rp::default()
        };
        assert_eq!(refused(&both, Grant::Password), None);
        assert_eq!(refused(&both, Grant::ClientCredentials), None);
        let public = Rp {
            public: true,
            ..both
        };
        assert_eq!(refused(&public, Grant::ClientCredentials), unauthorized);
    }
}
