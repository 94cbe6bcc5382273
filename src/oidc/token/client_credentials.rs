//! `grant_type=client_credentials` (RFC 6749 4.4), as LemonLDAP::NG 2.16's
//! `_handleClientCredentialsGrant`: a confidential client with `AllowClientCredentialsGrant`
//! (checked by `token::allowed`) gets an access token alone (no ID token, no refresh token)
//! for the scope it asks (no `openid` needed; none at all is `invalid_scope`). The token stands
//! for the client: its subject is the client id, and the attributes it carries are
//! LemonLDAP::NG's for such a grant (`whatToTrace` attribute = client id, `_clientId`,
//! `_clientConfKey`, `_scope`, `_utime`). What may be granted is decided as for every grant
//! (`access::decide`, `_oidc_grant_type` = `clientcredentials`): the scope after the RP's scope
//! rules (which see no user attributes), then the provider's rule and the RP's rule on those
//! attributes; a refusing rule is `invalid_grant`, no scope left `invalid_scope`.
//!
//! LemonLDAP::NG stores those attributes as a new SSO session; Limette keeps them in the
//! token's family instead (`grants`, detached), so no session id exists that a browser could
//! present. Userinfo with such a token answers as LemonLDAP::NG's does from that session: the
//! `sub` (the client id) and the claims those attributes give.
use super::issue::{issue, refused, Family, Issue};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, Record};
use crate::oidc::base::access::{decide, Grant};
use crate::oidc::base::Params;
use crate::oidc::settings::{self, Rp};
use crate::storage::Session;
use crate::util;
use serde_json::{json, Map, Value};

/// The token response of a client credentials request.
pub fn grant(app: &App, conf: &Conf, rp: &Rp, p: &Params) -> Result<Map<String, Value>> {
    // 1. The scope asked, as asked (RFC 6749 3.3); none granted: invalid_scope.
    let scope = words(p.get("scope").unwrap_or(""));
    if scope.is_empty() {
        return Err(Error::oauth(OAuthCode::InvalidScope));
    }
    // 2. The client's pseudo-session, and what may be granted on it (access::decide: the
    //    scope after its scope rules, then the provider's rule and the RP's rule).
    let mut infos = attributes(&conf.what_to_trace, rp, util::now());
    let oidc = conf.area::<settings::Settings>();
    let scope = match decide(&oidc, rp, &infos, Grant::ClientCredentials, &scope) {
        Ok(scope) => scope,
        Err(refusal) => {
            crate::log::warn(&format!(
                "client {} refused for client credentials ({refusal:?})",
                rp.client_id
            ));
            return Err(refused(refusal));
        }
    };
    infos.insert("_scope".into(), json!(scope));
    // 3. An access token alone, in a family of its own that carries the attributes.
    let mut rec = Session::new();
    rec.insert("client_id".into(), json!(rp.client_id));
    rec.insert("scope".into(), json!(scope));
    rec.insert("sub".into(), json!(rp.client_id));
    rec.insert("_grant".into(), json!("clientcredentials"));
    let how = Issue {
        refresh: false,
        id_token: false,
        family: Family::Open {
            seed: &store::new_id(),
            detached: Some(&infos),
        },
    };
    issue(app, conf, rp, &Record::from(rec), &infos, how)
}

/// LemonLDAP::NG's attributes of a client credentials grant, but `_scope` (added once granted).
pub fn attributes(what_to_trace: &str, rp: &Rp, now: i64) -> Session {
    let mut s = Session::new();
    s.insert(what_to_trace.into(), json!(rp.client_id));
    s.insert("_clientId".into(), json!(rp.client_id));
    s.insert("_clientConfKey".into(), json!(rp.name));
    s.insert("_utime".into(), json!(now));
    s
}

/// A scope with its values separated by one space.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_stands_for_itself() {
        let rp = Rp {
            name: "svc".into(),
            client_id: "svc-id".into(),
            rule: crate::rules::Rule::parse(
                "$_oidc_grant_type eq \"clientcredentials\" and $uid eq \"svc-id\"",
            )
            .ok(),
            ..Rp::default()
        };
        let a = attributes("uid", &rp, 7);
        assert_eq!(
            Value::Object(a.clone()),
            json!({"uid": "svc-id", "_clientId": "svc-id", "_clientConfKey": "svc",
                   "_utime": 7})
        );
        assert!(crate::oidc::base::access::rule_admits(
            &rp,
            &a,
            "clientcredentials"
        ));
        assert!(!crate::oidc::base::access::rule_admits(&rp, &a, "password"));
        assert!(crate::oidc::base::access::rule_admits(
            &Rp::default(),
            &a,
            "password"
        ));
        assert_eq!(words("  a   b "), "a b");
    }
}
