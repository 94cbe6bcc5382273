//! What every grant of the token endpoint issues through (`issue`: the access token, then the
//! refresh and ID tokens a grant asks for, listed in their family before they are stored), how
//! long a refresh token lives, and the refusals the grants share (`invalid_grant`,
//! `refused`). The grants (`token` itself, `client_credentials`, `password`) and the implicit
//! and hybrid flows of `authorize` call it; it calls none of them.
use super::token_claims::{self, access_token_claims, id_token_claims};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, Record, RecordType};
use crate::oidc::base::claims_request::Target;
use crate::oidc::base::{self, issuer};
use crate::oidc::claims;
use crate::oidc::settings::{self, Rp};
use crate::storage::Session;
use crate::util;
use serde_json::{json, Map, Value};

/// RFC 6749 5.2 `invalid_grant`.
pub fn invalid_grant() -> Error {
    Error::oauth(OAuthCode::InvalidGrant)
}

/// A token endpoint grant refused by `access::decide`, per RFC 6749 5.2: a refusing rule or a
/// level too low is `invalid_grant` (the credentials given do not grant access to this RP;
/// LemonLDAP::NG answers so for its RP rule), no scope left is `invalid_scope`.
/// `unauthorized_client` stays for a grant type the RP does not allow ([`super::allowed`]).
pub fn refused(r: base::access::Refusal) -> Error {
    use crate::oidc::base::access::Refusal;
    match r {
        Refusal::Service | Refusal::Partner | Refusal::Level => invalid_grant(),
        Refusal::NoScope => Error::oauth(OAuthCode::InvalidScope),
    }
}

/// Whether a space-separated scope holds a value.
pub fn has_scope(scope: Option<&str>, value: &str) -> bool {
    scope.unwrap_or("").split_whitespace().any(|s| s == value)
}

/// How long a refresh token of this grant lives: the RP's `OfflineSessionExpiration` for an
/// offline grant, else the service's.
pub fn refresh_ttl(conf: &Conf, rp: &Rp, grant: &Record) -> i64 {
    if grant.is_offline() {
        rp.offline_ttl
    } else {
        conf.area::<settings::Settings>().refresh_ttl
    }
}

/// The family new tokens belong to.
pub enum Family<'a> {
    /// A new one: a code's (`seed`: the code, just redeemed), or a grant's without a code (a
    /// fresh `new_id`). `detached`: the attributes its tokens without an SSO session stand for.
    Open {
        /// The code, or a fresh id.
        seed: &'a str,
        /// Offline and client credentials grants.
        detached: Option<&'a Session>,
    },
    /// The grant's own (a refresh token's).
    Join,
}

/// What a grant issues.
pub struct Issue<'a> {
    /// A refresh token (the code grant when the RP has them or offline, the password grant
    /// when the RP has them, a public client's refresh).
    pub refresh: bool,
    /// An ID token.
    pub id_token: bool,
    /// The family of the tokens.
    pub family: Family<'a>,
}

/// The token response: access token, then the refresh and ID tokens `how` asks for. `session`:
/// the attributes the grant stands for (the SSO session, or the detached ones). The tokens are
/// listed in their family before they are stored, and the family lives as long as the longest
/// of them; when it is gone (a replay took it meanwhile), nothing is issued. An offline
/// refresh token is bound to no SSO session and lives the RP's `OfflineSessionExpiration`.
pub fn issue(
    app: &App,
    conf: &Conf,
    rp: &Rp,
    grant: &Record,
    session: &Session,
    how: Issue,
) -> Result<Map<String, Value>> {
    let db = store::of(app);
    let refresh_ttl = refresh_ttl(conf, rp, grant);
    let access_id = store::new_id();
    let refresh_id = how.refresh.then(store::new_id);
    let mut issued = vec![access_id.as_str()];
    issued.extend(refresh_id.as_deref());
    let ttl = match refresh_id {
        Some(_) => rp.access_ttl.max(refresh_ttl),
        None => rp.access_ttl,
    };
    let (grant, family) = match how.family {
        Family::Open { seed, detached } => {
            let (id, family) = store::family_record(seed, grant, &issued, ttl, detached);
            (grant.with_family(&id), Some((id, family)))
        }
        Family::Join => {
            let id = grant.family().unwrap_or("");
            if !store::record_issued(db, id, &issued, ttl)? {
                return Err(invalid_grant());
            }
            (grant.clone(), None)
        }
    };
    let grant = &grant;
    let base = grant.for_tokens();
    let mut tokens = vec![store::NewToken {
        id: &access_id,
        typ: RecordType::Access,
        rec: base.clone(),
        ttl: rp.access_ttl,
    }];
    if let Some(refresh) = &refresh_id {
        let rec = if grant.is_offline() {
            base.without_session()
        } else {
            base
        };
        tokens.push(store::NewToken {
            id: refresh,
            typ: RecordType::Refresh,
            rec,
            ttl: refresh_ttl,
        });
    }
    store::store_issued(db, family, tokens)?;
    let access = match rp.access_jwt {
        Some(alg) => {
            let claims = access_token_claims(conf, rp, grant, session, &access_id);
            base::sign_for(
                &conf.area::<settings::Settings>(),
                rp,
                alg,
                "at+jwt",
                &claims,
            )?
        }
        None => access_id,
    };
    crate::metrics::token(crate::metrics::Token::Access);
    let mut out = Map::new();
    out.insert("access_token".into(), json!(access));
    out.insert("token_type".into(), json!("Bearer"));
    out.insert("expires_in".into(), json!(rp.access_ttl));
    if let Some(refresh) = refresh_id {
        out.insert("refresh_token".into(), json!(refresh));
        crate::metrics::token(crate::metrics::Token::Refresh);
    }
    let sub = grant.sub().unwrap_or("");
    crate::log::info(&format!("OIDC tokens issued to {} for {sub}", rp.client_id));
    if !how.id_token {
        return Ok(out);
    }
    let sid = Some(grant.session_id())
        .filter(|id| !id.is_empty())
        .map(|id| crate::sso::oidc_sid(&conf.key, id));
    let mut claims = id_token_claims(
        &issuer(conf),
        rp,
        grant.as_map(),
        Some(&access),
        sid.as_deref(),
        util::now(),
    );
    // IDTokenForceClaims: the user's claims too, and those the claims parameter asks for in
    // the ID token (OIDC Core 5.5), never overriding the token's own.
    let scope = grant.scope().unwrap_or("");
    let data = claims::data_for(session, &rp.client_id, &rp.name, scope);
    if rp.force_id_claims {
        let ignore = conf
            .area::<crate::oidc::settings::Settings>()
            .ignore_scope_for_claims;
        for (k, v) in rp.release.userinfo(scope, sub, &data, ignore) {
            claims.entry(k).or_insert(v);
        }
    }
    let asked = token_claims::requested(rp, grant, &data, Target::IdToken);
    for (k, v) in asked {
        claims.entry(k).or_insert(v);
    }
    let id_token = base::sign_for(
        &conf.area::<settings::Settings>(),
        rp,
        rp.id_alg,
        "JWT",
        &claims,
    )?;
    out.insert("id_token".into(), json!(id_token));
    crate::metrics::token(crate::metrics::Token::Id);
    Ok(out)
}
