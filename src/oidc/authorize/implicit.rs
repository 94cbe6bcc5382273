//! What the authorization endpoint issues itself in the implicit and hybrid flows (OpenID
//! Connect Core 3.2.2.5, 3.3.2.5), as LemonLDAP::NG does: an access token when the response
//! type has `token` (never a refresh token), an ID token when it has `id_token`, with `at_hash`
//! for the access token and `c_hash` for the code (3.3.2.11), the nonce, and the user's claims
//! when no access token comes with it (`id_token` alone: 5.4, the claims have nowhere else to
//! go) or the RP forces them. An access token issued here opens a token family of its own, so
//! it lives and dies like the token endpoint's (`grants::live`).
use super::request::AuthRequest;
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::grants::{self as store, Record};
use crate::oidc::base::claims_request::Target;
use crate::oidc::base::{self, issuer};
use crate::oidc::claims;
use crate::oidc::keys::jwt;
use crate::oidc::settings::{Rp, Settings};
use crate::oidc::token;
use crate::storage::Session;
use crate::util;
use serde_json::{json, Value};

/// The parameters to add to the answer (`access_token`, `token_type`, `expires_in`,
/// `id_token`), empty for the code flow.
pub fn issue(
    app: &App,
    conf: &Conf,
    rp: &Rp,
    ar: &AuthRequest,
    session: &Session,
    code: Option<&str>,
) -> Result<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    if !ar.response_type.token && !ar.response_type.id_token {
        return Ok(out);
    }
    // Never offline: the authorization endpoint issues no refresh token.
    let grant = super::request::grant_record(conf, rp, ar, session, &ar.scope, false);
    let access = match ar.response_type.token {
        true => Some(access_token(app, conf, rp, &grant, session)?),
        false => None,
    };
    if let Some(at) = &access {
        crate::metrics::token(crate::metrics::Token::Access);
        out.push(("access_token", at.clone()));
        out.push(("token_type", "Bearer".into()));
        out.push(("expires_in", rp.access_ttl.to_string()));
    }
    if ar.response_type.id_token {
        let with_claims = access.is_none() || rp.force_id_claims;
        let idt = id_token(
            conf,
            rp,
            ar,
            &grant,
            session,
            access.as_deref(),
            code,
            with_claims,
        )?;
        out.push(("id_token", idt));
        crate::metrics::token(crate::metrics::Token::Id);
    }
    crate::log::info(&format!(
        "OIDC {} flow: tokens issued to {} for {}",
        ar.flow.as_str(),
        rp.client_id,
        grant.sub().unwrap_or("")
    ));
    Ok(out)
}

/// An access token in a family of its own (opaque, or a JWT for an RP with `AccessTokenJWT`),
/// issued as the token endpoint issues it; the family is keyed by a fresh random value: no
/// code opens it, none can replay it.
fn access_token(
    app: &App,
    conf: &Conf,
    rp: &Rp,
    grant: &Record,
    session: &Session,
) -> Result<String> {
    let seed = store::new_id();
    let how = token::Issue {
        refresh: false,
        id_token: false,
        family: token::Family::Open {
            seed: &seed,
            detached: None,
        },
    };
    let out = token::issue(app, conf, rp, grant, session, how)?;
    out.get("access_token")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::internal("the token answer has no access token"))
}

/// The ID token of the front channel (OIDC Core 3.2.2.10, 3.3.2.11).
#[allow(clippy::too_many_arguments)]
fn id_token(
    conf: &Conf,
    rp: &Rp,
    ar: &AuthRequest,
    grant: &Record,
    session: &Session,
    access: Option<&str>,
    code: Option<&str>,
    with_claims: bool,
) -> Result<String> {
    let sid = Some(grant.session_id())
        .filter(|id| !id.is_empty())
        .map(|id| crate::sso::oidc_sid(&conf.key, id));
    let mut claims = token::token_claims::id_token_claims(
        &issuer(conf),
        rp,
        grant.as_map(),
        access,
        sid.as_deref(),
        util::now(),
    );
    if let Some(c) = code {
        claims.insert("c_hash".into(), json!(jwt::at_hash_for(rp.id_alg, c)));
    }
    let data = claims::data_for(session, &rp.client_id, &rp.name, &ar.scope);
    if with_claims {
        let ignore = conf
            .area::<crate::oidc::settings::Settings>()
            .ignore_scope_for_claims;
        let sub = grant.sub().unwrap_or("");
        for (k, v) in rp.release.userinfo(&ar.scope, sub, &data, ignore) {
            claims.entry(k).or_insert(v);
        }
    }
    // The claims the claims parameter asks for in the ID token (OIDC Core 5.5).
    let asked = token::token_claims::requested(rp, grant, &data, Target::IdToken);
    for (k, v) in asked {
        claims.entry(k).or_insert(v);
    }
    base::sign_for(&conf.area::<Settings>(), rp, rp.id_alg, "JWT", &claims)
}
