//! `GET|POST /oauth2/userinfo` (OIDC Core 5.3): the access token from the `Authorization`
//! header, the `access_token` form field or the query (RFC 6750 2.1-2.3); claims by scope,
//! and those the `claims` parameter asked for at userinfo (OIDC Core 5.5, `claims_request`).
//! Errors follow RFC 6750 3.1 (a documented difference from LemonLDAP::NG's bare header):
//! no token -> 401 `Bearer`; unknown, expired, revoked (its family or itself) or its SSO
//! session gone -> 401 `invalid_token`. An offline grant's token answers from the attributes
//! saved with the grant; a client credentials token from the client's (its `sub`, the client
//! id), as LemonLDAP::NG answers from the session it creates for that grant.
//! An RP with `oidcRPMetaDataOptionsUserInfoSignAlg` gets a signed JWT (OIDC Core 5.3.2).
use crate::ctx::Ctx;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, RecordType};
use crate::http::{Method, Response};
use crate::oidc::base;
use crate::oidc::base::claims_request::Target;
use crate::oidc::claims;
use crate::oidc::settings;
use serde_json::{json, Value};

/// `/oauth2/userinfo`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let token = req
        .bearer()
        .or_else(|| {
            if req.method == Method::Post {
                req.form_param("access_token")
            } else {
                None
            }
        })
        .or_else(|| req.query_param("access_token"))
        .filter(|t| !t.is_empty())
        .ok_or(Error::Bearer(None))?;
    let invalid = || Error::Bearer(Some(OAuthCode::InvalidToken));
    let oidc = conf.area::<settings::Settings>();
    let id = base::access_record_id(&oidc, &token).ok_or_else(invalid)?;
    let (rec, session) = store::live(app, conf, RecordType::Access, &id)?.ok_or_else(invalid)?;
    let rp = oidc.rp(rec.client_id().unwrap_or("")).ok_or_else(invalid)?;
    let scope = rec.scope().unwrap_or("");
    let data = claims::data_from(session, &rp.client_id, &rp.name, scope);
    let mut claims = rp.release.userinfo(
        scope,
        rec.sub().unwrap_or(""),
        &data,
        conf.area::<crate::oidc::settings::Settings>()
            .ignore_scope_for_claims,
    );
    // And those the claims parameter asks for at userinfo (OIDC Core 5.5).
    let asked = super::token_claims::requested(rp, &rec, &data, Target::Userinfo);
    for (k, v) in asked {
        claims.entry(k).or_insert(v);
    }
    let Some(alg) = rp.userinfo_alg else {
        return Ok(Response::json(200, &Value::Object(claims)));
    };
    // OIDC Core 5.3.2: a signed answer is a JWT with iss and aud added, as application/jwt.
    claims.insert("iss".into(), json!(base::issuer(conf)));
    claims.insert("aud".into(), json!(rp.client_id));
    let token = base::sign_for(&conf.area::<settings::Settings>(), rp, alg, "JWT", &claims)?;
    Ok(Response::uncached(200, "application/jwt", token))
}
