//! `POST /oauth2/introspect` (RFC 7662), as LemonLDAP::NG: the client authenticates like at
//! the token endpoint; a live access token of that client answers `active: true` with
//! `client_id`, `iss`, `exp`, `sub`, `scope`; anything else `{"active":false}`, including a
//! token whose SSO session has ended or whose family was revoked (`grants::live`). A token of
//! an offline grant outlives the session; a client credentials token never had one (its
//! `sub` is the client id).
//!
//! A client that sends `Accept: application/token-introspection+jwt` gets the same answer as
//! a JWT (RFC 9701 5): `iss`, `aud` (the client), `iat` and `token_introspection`, signed as
//! its ID tokens; an RP whose ID tokens are unsigned (`none`) is refused one (RFC 9701 5: the
//! answer is signed).
use crate::ctx::Ctx;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, RecordType};
use crate::http::{Request, Response};
use crate::oidc::base;
use crate::oidc::clients::client;
use crate::oidc::keys::Alg;
use crate::oidc::settings;
use serde_json::{json, Map};

/// The media type of a JWT introspection answer (RFC 9701 5, 8.2).
pub const JWT_TYPE: &str = "application/token-introspection+jwt";

/// `/oauth2/introspect`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let p = base::params(req);
    let oidc = conf.area::<settings::Settings>();
    let rp = client::request(app, conf, &oidc, req, &p, "introspect")?;
    let token = p
        .get("token")
        .ok_or_else(|| Error::oauth(OAuthCode::InvalidRequest))?;
    let id = base::access_record_id(&conf.area::<settings::Settings>(), token).unwrap_or_default();
    let rec = store::live(app, conf, RecordType::Access, &id)?
        .map(|(rec, _)| rec)
        .filter(|r| r.client_id() == Some(rp.client_id.as_str()));
    let answer = match rec {
        None => json!({"active": false}),
        Some(rec) => json!({
            "active": true,
            "client_id": rp.client_id,
            "iss": base::issuer(conf),
            "exp": rec.expires(),
            "sub": rec.sub(),
            "scope": rec.scope(),
        }),
    };
    if !wants_jwt(req) {
        return Ok(Response::json(200, &answer));
    }
    // RFC 9701 5: signed, never `none`.
    if rp.id_alg == Alg::None {
        return Err(Error::oauth(OAuthCode::InvalidRequest));
    }
    let mut claims = Map::new();
    claims.insert("iss".into(), json!(base::issuer(conf)));
    claims.insert("aud".into(), json!(rp.client_id));
    claims.insert("iat".into(), json!(crate::util::now()));
    claims.insert("token_introspection".into(), answer);
    let jwt = base::sign_for(&oidc, rp, rp.id_alg, "token-introspection+jwt", &claims)?;
    Ok(Response::uncached(200, JWT_TYPE, jwt))
}

/// Whether the client asks for the JWT answer (RFC 9701 4): `Accept` names its media type.
fn wants_jwt(req: &Request) -> bool {
    req.header("accept").is_some_and(|a| {
        a.split(',')
            .map(|t| t.split(';').next().unwrap_or("").trim())
            .any(|t| t.eq_ignore_ascii_case(JWT_TYPE))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;

    #[test]
    fn accept_is_read_as_a_list() {
        let with =
            |a: &str| Request::new(Method::Post, "/oauth2/introspect").with_header("Accept", a);
        assert!(wants_jwt(&with(JWT_TYPE)));
        assert!(wants_jwt(&with(
            "application/json;q=0.5, Application/Token-Introspection+JWT"
        )));
        assert!(!wants_jwt(&with("application/json")));
        assert!(!wants_jwt(&Request::new(
            Method::Post,
            "/oauth2/introspect"
        )));
    }
}
