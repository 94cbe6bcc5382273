//! `grant_type=password` (RFC 6749 4.3), as LemonLDAP::NG 2.16's `_handlePasswordGrant`: for
//! an RP with `AllowPasswordGrant` (checked by `token::allowed`), `username` and `password`
//! go through the login pipeline (`crate::login::without_browser`: its directory, `userControl`,
//! brute-force lock and login history, notifications), which creates an SSO session
//! as a browser login would, without a cookie. What may be granted is then decided as at
//! authorize (`access::decide` on the session, `_oidc_grant_type` = `password`: the provider's
//! rule, the RP's rule, its authentication level, its scope rules); a refused user's session
//! is ended again. The answer: an access token, a refresh token when the RP has them, an ID
//! token when the granted scope holds `openid`. Wrong credentials, a locked account, held
//! notifications, a refusing rule, a level too low: all `invalid_grant` (RFC 6749 5.2),
//! whatever the reason (LemonLDAP::NG tells them apart only in its log); no scope left after
//! the scope rules: `invalid_scope`.
//!
//! One difference: LemonLDAP::NG checks the scope after the login (an empty one is
//! `invalid_scope` with a session created); Limette checks it first and creates none.
use super::issue::{has_scope, invalid_grant, issue, refused, Family, Issue};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, Record};
use crate::http::Request;
use crate::oidc::base::access::{decide, Grant};
use crate::oidc::base::{self, Params};
use crate::oidc::settings::{self, Rp};
use crate::storage::Session;
use serde_json::{json, Map, Value};

/// The token response of a password grant request.
pub fn grant(
    app: &App,
    conf: &Conf,
    req: &Request,
    rp: &Rp,
    p: &Params,
) -> Result<Map<String, Value>> {
    // 1. RFC 6749 4.3.2: username and password are required.
    let (Some(user), Some(password)) = (p.get("username"), p.get("password")) else {
        return Err(Error::oauth(OAuthCode::InvalidRequest));
    };
    let scope: String = p
        .get("scope")
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if scope.is_empty() {
        return Err(Error::oauth(OAuthCode::InvalidScope));
    }
    // 2. The login pipeline: an SSO session, or a refusal.
    let c = crate::login::Credentials { user, password };
    let Some(session) = crate::login::without_browser(app, conf, req, c)? else {
        return Err(invalid_grant());
    };
    // 3. What may be granted (access::decide: the provider's rule, the RP's rule and
    //    authentication level, the scope after its scope rules). LemonLDAP::NG deletes the
    //    session it just made for a refused user; so does Limette, whatever the refusal.
    let oidc = conf.area::<settings::Settings>();
    let scope = match decide(&oidc, rp, &session, Grant::Password, &scope) {
        Ok(scope) => scope,
        Err(refusal) => {
            let id = session.get("_session_id").and_then(Value::as_str);
            if let Some(s) = crate::sso::lookup(app, conf, id.unwrap_or(""))? {
                crate::sso::logout(app, &s, crate::app::Reach::ServerOnly)?;
            }
            crate::log::warn(&format!(
                "a password grant for {} refused ({refusal:?})",
                rp.client_id
            ));
            return Err(refused(refusal));
        }
    };
    // 4. The tokens, in a family of their own, bound to the new session.
    let rec = grant_record(conf, rp, &scope, &session);
    let how = Issue {
        refresh: rp.refresh,
        id_token: has_scope(Some(&scope), "openid"),
        family: Family::Open {
            seed: &store::new_id(),
            detached: None,
        },
    };
    issue(app, conf, rp, &rec, &session, how)
}

/// What the tokens of a password grant carry: the client, scope, the session's subject, id,
/// authentication time and level.
fn grant_record(conf: &Conf, rp: &Rp, scope: &str, s: &Session) -> Record {
    let mut rec = Session::new();
    rec.insert("client_id".into(), json!(rp.client_id));
    rec.insert("scope".into(), json!(scope));
    rec.insert("sub".into(), json!(base::subject(s)));
    let id = s.get("_session_id").cloned().unwrap_or(Value::Null);
    rec.insert("_session_id".into(), id);
    if let Some(t) = s.get("_lastAuthnUTime") {
        rec.insert("auth_time".into(), t.clone());
    }
    rec.insert("acr".into(), json!(base::acr::of(conf, s)));
    rec.insert("_grant".into(), json!("password"));
    Record::from(rec).with_amr(&base::acr::amr(s))
}
