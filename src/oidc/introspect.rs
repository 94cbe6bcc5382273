//! `POST /oauth2/introspect` (RFC 7662), as LemonLDAP::NG: the client authenticates like at
//! the token endpoint; a live access token of that client answers `active: true` with
//! `client_id`, `iss`, `exp`, `sub`, `scope`; anything else `{"active":false}`, including a
//! token whose SSO session has ended or whose family was revoked (`grants::live`). A token of
//! an offline grant outlives the session; a client credentials token never had one (its
//! `sub` is the client id).
use super::client::{self, Credentials};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, RecordType};
use crate::http::{Request, Response};
use serde_json::json;

/// `/oauth2/introspect`.
pub fn handle(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let p = super::params(req);
    let oidc = conf.area::<crate::oidc::Settings>();
    let rp = client::authenticate(&oidc, &Credentials::from_parts(req.basic_auth(), &p))?;
    let token = p
        .get("token")
        .ok_or_else(|| Error::oauth(OAuthCode::InvalidRequest))?;
    let id = super::access_record_id(&conf.area::<super::Settings>(), token).unwrap_or_default();
    let rec = store::live(app, conf, RecordType::Access, &id)?
        .map(|(rec, _)| rec)
        .filter(|r| r.client_id() == Some(rp.client_id.as_str()));
    let Some(rec) = rec else {
        return Ok(Response::json(200, &json!({"active": false})));
    };
    Ok(Response::json(
        200,
        &json!({
            "active": true,
            "client_id": rp.client_id,
            "iss": super::issuer(conf),
            "exp": rec.expires(),
            "sub": rec.sub(),
            "scope": rec.scope(),
        }),
    ))
}
