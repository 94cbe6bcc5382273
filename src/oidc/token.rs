//! `POST /oauth2/token` (RFC 6749 4.1.3, 6; OIDC Core 3.1.3, 12): the authorization_code and
//! refresh_token grants. Checks in LemonLDAP::NG's order, so its error table holds: grant type,
//! then client authentication (a wrong secret leaves the code alone), then the code, taken
//! atomically (a wrong client or redirect_uri has consumed it), then PKCE.
use super::client;
use super::{issuer, jwt, params, Params, Rp};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, Record, RecordType, Redemption};
use crate::http::{Request, Response};
use crate::storage::Session;
use crate::util;
use serde_json::{json, Map, Value};

/// The grants Limette serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// RFC 6749 4.1.3
    AuthorizationCode,
    /// RFC 6749 6
    RefreshToken,
}

/// `/oauth2/token`.
pub fn handle(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let p = params(req);
    // RFC 6749 5.2: a parameter over its bound makes the request malformed.
    if p.oversized() {
        return Err(Error::oauth(OAuthCode::InvalidRequest));
    }
    let grant = grant_type(p.get("grant_type"))?;
    let oidc = conf.area::<crate::oidc::Settings>();
    let rp = client::request(app, conf, &oidc, req, &p, "token")?;
    let answer = match grant {
        Grant::AuthorizationCode => redeem_code(app, conf, rp, &p)?,
        Grant::RefreshToken => refresh(app, conf, rp, &p)?,
    };
    Ok(Response::json(200, &Value::Object(answer)))
}

/// RFC 6749 5.2: unknown or missing -> unsupported_grant_type; the grants a client may not
/// use here (password, client_credentials) -> unauthorized_client.
pub fn grant_type(g: Option<&str>) -> Result<Grant> {
    match g {
        Some("authorization_code") => Ok(Grant::AuthorizationCode),
        Some("refresh_token") => Ok(Grant::RefreshToken),
        Some("password") | Some("client_credentials") => {
            Err(Error::oauth(OAuthCode::UnauthorizedClient))
        }
        _ => Err(Error::oauth(OAuthCode::UnsupportedGrantType)),
    }
}

fn invalid_grant() -> Error {
    Error::oauth(OAuthCode::InvalidGrant)
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
            if !super::pkce::verify(challenge, method, verifier) {
                return Err(invalid_grant());
            }
        }
        None if rp.require_pkce || p.get("code_verifier").is_some() => return Err(invalid_grant()),
        None => {}
    }
    // 5. The SSO session must still be there.
    live_session(app, conf, &rec)?;
    // 6. The tokens, in a family opened for them.
    issue(app, conf, rp, &rec, true, Family::Open(code))
}

/// RFC 6749 6. A confidential client's refresh token is used again and again (the contract);
/// a public client's rotates (RFC 9700 4.14.2): taken on use, a new one in the answer.
fn refresh(app: &App, conf: &Conf, rp: &Rp, p: &Params) -> Result<Map<String, Value>> {
    let token = p
        .get("refresh_token")
        .ok_or_else(|| Error::oauth(OAuthCode::InvalidRequest))?;
    // RFC 6749 5.2: unknown, expired, revoked, another client's refresh token, or one whose
    // session is gone: invalid_grant.
    let (rec, _) = store::live(app, conf, RecordType::Refresh, token)?.ok_or_else(invalid_grant)?;
    if rec.client_id() != Some(rp.client_id.as_str()) {
        return Err(invalid_grant());
    }
    // Single use for a public client: of two concurrent uses, one wins.
    if rp.public && store::take(store::of(app), RecordType::Refresh, token)?.is_none() {
        return Err(invalid_grant());
    }
    issue(app, conf, rp, &rec.without_nonce(), rp.public, Family::Join)
}

/// The user's claims of the grant's scope, as userinfo releases them (with `sub`).
fn user_claims(app: &App, conf: &Conf, rp: &Rp, grant: &Record) -> Result<Map<String, Value>> {
    let session = live_session(app, conf, grant)?;
    let scope = grant.scope().unwrap_or("");
    let data = super::claims::data_for(&session, &rp.client_id, &rp.name, scope);
    let ignore = conf.get_bool("oidcServiceIgnoreScopeForClaims");
    Ok(rp
        .release
        .userinfo(scope, grant.sub().unwrap_or(""), &data, ignore))
}

fn live_session(app: &App, conf: &Conf, rec: &Record) -> Result<Session> {
    crate::sso::lookup(app, conf, rec.session_id())?
        .map(crate::sso::SsoSession::into_map)
        .ok_or_else(invalid_grant)
}

/// The family new tokens belong to.
enum Family<'a> {
    /// The one a code opens (the code, just redeemed).
    Open(&'a str),
    /// The grant's own (a refresh token's).
    Join,
}

/// The token response: access token, ID token, and a refresh token (`with_refresh`: on the
/// code grant, and on a public client's refresh) when the RP has them. The tokens are listed
/// in their family before they are stored, and the family lives as long as the longest of
/// them; when it is gone (a replay of its code took it meanwhile), nothing is issued.
fn issue(
    app: &App,
    conf: &Conf,
    rp: &Rp,
    grant: &Record,
    with_refresh: bool,
    family: Family,
) -> Result<Map<String, Value>> {
    let db = store::of(app);
    let refresh_ttl = conf.area::<crate::oidc::Settings>().refresh_ttl;
    let access_id = store::new_id();
    let refresh_id = (with_refresh && rp.refresh).then(store::new_id);
    let mut issued = vec![access_id.as_str()];
    issued.extend(refresh_id.as_deref());
    let ttl = match refresh_id {
        Some(_) => rp.access_ttl.max(refresh_ttl),
        None => rp.access_ttl,
    };
    let grant = match family {
        Family::Open(code) => {
            let id = store::open_family(db, code, grant, &issued, ttl)?;
            grant.with_family(&id)
        }
        Family::Join => {
            let id = grant.family().unwrap_or("");
            if !store::record_issued(db, id, &issued, ttl)? {
                return Err(invalid_grant());
            }
            grant.clone()
        }
    };
    let grant = &grant;
    let base = grant.for_tokens();
    store::create_as(
        db,
        RecordType::Access,
        &access_id,
        base.clone(),
        rp.access_ttl,
    )?;
    let access = match rp.access_jwt {
        Some(alg) => {
            let claims = access_token_claims(app, conf, rp, grant, &access_id)?;
            super::sign_for(&conf.area::<super::Settings>(), rp, alg, "at+jwt", &claims)?
        }
        None => access_id,
    };
    let mut out = Map::new();
    out.insert("access_token".into(), json!(access));
    out.insert("token_type".into(), json!("Bearer"));
    out.insert("expires_in".into(), json!(rp.access_ttl));
    if let Some(refresh) = refresh_id {
        store::create_as(db, RecordType::Refresh, &refresh, base, refresh_ttl)?;
        out.insert("refresh_token".into(), json!(refresh));
    }
    let sid = Some(grant.session_id())
        .filter(|id| !id.is_empty())
        .map(|id| crate::sso::oidc_sid(&conf.key, id));
    let mut claims = id_token_claims(
        &issuer(conf),
        rp,
        grant.as_map(),
        &access,
        sid.as_deref(),
        util::now(),
    );
    // IDTokenForceClaims: the user's claims too, never overriding the token's own.
    if rp.force_id_claims {
        for (k, v) in user_claims(app, conf, rp, grant)? {
            claims.entry(k).or_insert(v);
        }
    }
    let sub = grant.sub().unwrap_or("");
    crate::log::info(&format!("OIDC tokens issued to {} for {sub}", rp.client_id));
    let id_token = super::sign_for(
        &conf.area::<super::Settings>(),
        rp,
        rp.id_alg,
        "JWT",
        &claims,
    )?;
    out.insert("id_token".into(), json!(id_token));
    Ok(out)
}

/// RFC 9068 2.2: the claims of a JWT access token; `jti` is the id of its record, which
/// userinfo and introspection look up. With `AccessTokenClaims`, the user's claims of the
/// granted scopes too (as userinfo would release them).
fn access_token_claims(
    app: &App,
    conf: &Conf,
    rp: &Rp,
    grant: &Record,
    record: &str,
) -> Result<Map<String, Value>> {
    let now = util::now();
    let scope = grant.scope().unwrap_or("");
    let sub = grant.sub().unwrap_or("");
    let mut c = Map::new();
    if rp.access_claims {
        c = user_claims(app, conf, rp, grant)?;
    }
    c.insert("iss".into(), json!(issuer(conf)));
    c.insert("sub".into(), json!(sub));
    c.insert("aud".into(), json!(rp.client_id));
    c.insert("client_id".into(), json!(rp.client_id));
    c.insert("exp".into(), json!(now + rp.access_ttl));
    c.insert("iat".into(), json!(now));
    c.insert("jti".into(), json!(record));
    c.insert("scope".into(), json!(scope));
    if let Some(t) = grant.auth_time() {
        c.insert("auth_time".into(), t.clone());
    }
    Ok(c)
}

/// OIDC Core 2 and 3.1.3.6: LemonLDAP::NG's claims of the code flow's ID token, plus `sid`
/// (OpenID Connect Front-Channel Logout 1.0, section 3; `sso::oidc_sid`), which LemonLDAP::NG
/// 2.16 does not send: RP-initiated logout checks that a hint belongs to the current session.
pub fn id_token_claims(
    iss: &str,
    rp: &Rp,
    grant: &Session,
    access_token: &str,
    sid: Option<&str>,
    now: i64,
) -> Map<String, Value> {
    let mut c = Map::new();
    c.insert("iss".into(), json!(iss));
    let grant = Record::from(grant.clone());
    c.insert("sub".into(), json!(grant.sub().unwrap_or("")));
    // OIDC Core 2: the client id, then the RP's AdditionalAudiences.
    let mut aud = vec![rp.client_id.clone()];
    aud.extend(rp.audiences.iter().filter(|a| **a != rp.client_id).cloned());
    c.insert("aud".into(), json!(aud));
    c.insert("azp".into(), json!(rp.client_id));
    c.insert("exp".into(), json!(now + rp.id_ttl));
    c.insert("iat".into(), json!(now));
    c.insert(
        "auth_time".into(),
        grant.auth_time().cloned().unwrap_or(json!(now)),
    );
    c.insert("acr".into(), json!(grant.acr().unwrap_or("loa-1")));
    c.insert(
        "at_hash".into(),
        json!(jwt::at_hash_for(rp.id_alg, access_token)),
    );
    if let Some(n) = grant.nonce() {
        c.insert("nonce".into(), json!(n));
    }
    if let Some(sid) = sid {
        c.insert("sid".into(), json!(sid));
    }
    c
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
        assert_eq!(code(Some("password")), Some(OAuthCode::UnauthorizedClient));
    }

    #[test]
    fn id_token_claims_match_llng() {
        let rp = Rp {
            client_id: "demo".into(),
            id_ttl: 3600,
            ..Rp::default()
        };
        let mut g = Map::new();
        g.insert("sub".into(), json!("dwho"));
        g.insert("auth_time".into(), json!(5));
        g.insert("acr".into(), json!("loa-1"));
        g.insert("nonce".into(), json!("n1"));
        let c = id_token_claims("http://p/", &rp, &g, "abc", None, 100);
        assert_eq!(
            Value::Object(c),
            json!({"iss": "http://p/", "sub": "dwho", "aud": ["demo"], "azp": "demo", "exp": 3700, "iat": 100,
                   "auth_time": 5, "acr": "loa-1", "at_hash": "ungWv48Bz-pBQUDeXa4iIw", "nonce": "n1"})
        );
        let c = id_token_claims("http://p/", &rp, &g, "abc", Some("s1"), 100);
        assert_eq!(c["sid"], "s1");
    }
}
