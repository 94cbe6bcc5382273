//! The claims of the tokens the token endpoint issues: a JWT access token's (RFC 9068) and the
//! ID token's (OIDC Core 2, 3.1.3.6), from plain values; `token` signs them.
use crate::config::Conf;
use crate::grants::Record;
use crate::oidc::base::claims_request::{ClaimsRequest, Target};
use crate::oidc::base::issuer;
use crate::oidc::claims;
use crate::oidc::keys::jwt;
use crate::oidc::settings::Rp;
use crate::storage::Session;
use crate::util;
use serde_json::{json, Map, Value};

/// RFC 9068 2.2: the claims of a JWT access token; `jti` is the id of its record, which
/// userinfo and introspection look up. With `AccessTokenClaims`, the user's claims of the
/// granted scopes too (as userinfo would release them).
pub fn access_token_claims(
    conf: &Conf,
    rp: &Rp,
    grant: &Record,
    session: &Session,
    record: &str,
) -> Map<String, Value> {
    let now = util::now();
    let scope = grant.scope().unwrap_or("");
    let sub = grant.sub().unwrap_or("");
    let mut c = Map::new();
    if rp.access_claims {
        let ignore = conf
            .area::<crate::oidc::settings::Settings>()
            .ignore_scope_for_claims;
        let data = claims::data_for(session, &rp.client_id, &rp.name, scope);
        c = rp.release.userinfo(scope, sub, &data, ignore);
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
    c
}

/// OIDC Core 2 and 3.1.3.6: LemonLDAP::NG's claims of the code flow's ID token, plus `sid`
/// (OpenID Connect Front-Channel Logout 1.0, section 3; `sso::oidc_sid`), which LemonLDAP::NG
/// 2.16 does not send: RP-initiated logout checks that a hint belongs to the current session.
pub fn id_token_claims(
    iss: &str,
    rp: &Rp,
    grant: &Session,
    access_token: Option<&str>,
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
    if let Some(amr) = grant.amr() {
        c.insert("amr".into(), amr.clone());
    }
    if let Some(at) = access_token {
        c.insert("at_hash".into(), json!(jwt::at_hash_for(rp.id_alg, at)));
    }
    if let Some(n) = grant.nonce() {
        c.insert("nonce".into(), json!(n));
    }
    if let Some(sid) = sid {
        c.insert("sid".into(), json!(sid));
    }
    c
}

/// The user's claims the grant's `claims` parameter asks for in `target` (OIDC Core 5.5, as
/// `authorize` allowed it), read from `data` (`claims::data_for`) through the RP's release
/// table; added by the caller without overriding what the token or answer already has.
pub fn requested(rp: &Rp, grant: &Record, data: &Session, target: Target) -> Map<String, Value> {
    match ClaimsRequest::stored(grant.claims_request()) {
        Some(c) => rp.release.requested(c.names(target), data),
        None => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let c = id_token_claims("http://p/", &rp, &g, Some("abc"), None, 100);
        assert_eq!(
            Value::Object(c),
            json!({"iss": "http://p/", "sub": "dwho", "aud": ["demo"], "azp": "demo", "exp": 3700, "iat": 100,
                   "auth_time": 5, "acr": "loa-1", "at_hash": "ungWv48Bz-pBQUDeXa4iIw", "nonce": "n1"})
        );
        let c = id_token_claims("http://p/", &rp, &g, None, Some("s1"), 100);
        assert!(!c.contains_key("at_hash"));
        assert_eq!(c["sid"], "s1");
        let rp = Rp {
            audiences: vec!["api".into(), "demo".into()],
            ..rp
        };
        let c = id_token_claims("http://p/", &rp, &g, None, None, 100);
        assert_eq!(c["aud"], json!(["demo", "api"]));
    }
}
