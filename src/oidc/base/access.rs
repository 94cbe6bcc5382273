//! What a grant may issue, decided in one place for every grant: the authorization request
//! (`/oauth2/authorize`, once the user is known), the password grant and the client
//! credentials grant. [`decide`] applies, in LemonLDAP::NG's order, the provider's rule
//! (`issuerDBOpenIDConnectRule`), the RP's rule (`oidcRPMetaDataOptionsRule`, with
//! `_oidc_grant_type`), the RP's authentication level (`oidcRPMetaDataOptionsAuthnLevel`, for
//! grants that stand for a user), then its scope rules ([`super::scopes::resolve`]); the
//! answer is a [`Refusal`] or the granted scope. Plain values in; each caller turns a refusal
//! into its own answer (a portal error page at authorize, an RFC 6749 5.2 error at the token
//! endpoint). The refresh token grant decides nothing again: as in LemonLDAP::NG, it keeps
//! the scope its grant was given.
use crate::error::PortalCode;
use crate::oidc::settings::{Rp, Settings};
use crate::storage::Session;
use serde_json::json;
use std::borrow::Cow;

/// The grant that asks, and the value of `_oidc_grant_type` its rules see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant<'a> {
    /// An authorization request, by its flow (`authorizationcode`, `implicit`, `hybrid`).
    Authorize(&'a str),
    /// `grant_type=password`: the user's fresh session.
    Password,
    /// `grant_type=client_credentials`: the client's pseudo-session (no user).
    ClientCredentials,
}

impl Grant<'_> {
    /// `_oidc_grant_type` as LemonLDAP::NG sets it.
    pub fn as_str(&self) -> &str {
        match self {
            Grant::Authorize(flow) => flow,
            Grant::Password => "password",
            Grant::ClientCredentials => "clientcredentials",
        }
    }
}

/// Why a grant is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `issuerDBOpenIDConnectRule` does not hold (portal error 90).
    Service,
    /// The RP's rule does not hold (portal error 84).
    Partner,
    /// The session's authentication level is below the RP's (portal error 102).
    Level,
    /// No scope is left to grant (token endpoint grants only).
    NoScope,
}

impl Refusal {
    /// The portal error an authorization request shows for it.
    pub fn portal_code(self) -> PortalCode {
        match self {
            Refusal::Service => PortalCode::OidcServiceNotAllowed,
            Refusal::Partner => PortalCode::UnauthorizedPartner,
            Refusal::Level => PortalCode::UpgradeSession,
            Refusal::NoScope => PortalCode::Error,
        }
    }
}

/// What `grant` may issue to `rp` for `who` (a user's session, or the client's
/// pseudo-session for client credentials) asking `requested`: the granted scope, or why not.
///
/// 1. The provider's rule on `who`.
/// 2. The RP's rule on `who` plus `_oidc_grant_type`.
/// 3. For grants that stand for a user, the RP's authentication level (a client has none:
///    client credentials skip it).
/// 4. The scope: declared scopes only when `oidcServiceAllowOnlyDeclaredScopes`, then the
///    RP's scope rules; the token endpoint's grants refuse an empty result (LemonLDAP::NG:
///    `invalid_scope`), an authorization request goes on with it (LemonLDAP::NG does too).
///
/// Client credentials, as LemonLDAP::NG 2.16's `_handleClientCredentialsGrant`: the scope is
/// resolved first (none left: refused before any rule), its scope rules seeing no user attributes (only `$requested`: the token
/// endpoint has no user), and the rules then see the pseudo-session with `_scope` = the
/// granted scope. A rule that names a user attribute is false there: closed.
pub fn decide(
    oidc: &Settings,
    rp: &Rp,
    who: &Session,
    grant: Grant,
    requested: &str,
) -> std::result::Result<String, Refusal> {
    let resolve =
        |vars: &Session| super::scopes::resolve(rp, requested, vars, oidc.only_declared_scopes);
    let (early, vars) = match grant {
        Grant::ClientCredentials => {
            let scope = resolve(&Session::new());
            if scope.is_empty() {
                return Err(Refusal::NoScope);
            }
            let mut vars = who.clone();
            vars.insert("_scope".into(), json!(scope));
            (Some(scope), Cow::Owned(vars))
        }
        Grant::Authorize(_) | Grant::Password => (None, Cow::Borrowed(who)),
    };
    if oidc.rule.as_ref().is_some_and(|r| !r.eval(&vars)) {
        return Err(Refusal::Service);
    }
    if !rule_admits(rp, &vars, grant.as_str()) {
        return Err(Refusal::Partner);
    }
    if grant != Grant::ClientCredentials && level(who) < rp.authn_level {
        return Err(Refusal::Level);
    }
    let scope = early.unwrap_or_else(|| resolve(who));
    if scope.is_empty() && !matches!(grant, Grant::Authorize(_)) {
        return Err(Refusal::NoScope);
    }
    Ok(scope)
}

/// The RP's `oidcRPMetaDataOptionsRule` on `vars` plus `_oidc_grant_type` (LemonLDAP::NG's
/// `spRules` with the grant type it sets: `authorizationcode`, `implicit`, `hybrid`,
/// `clientcredentials`, `password`); no rule admits everybody.
pub fn rule_admits(rp: &Rp, vars: &Session, grant_type: &str) -> bool {
    let Some(rule) = &rp.rule else {
        return true;
    };
    let mut vars = vars.clone();
    vars.insert("_oidc_grant_type".into(), json!(grant_type));
    rule.eval(&vars)
}

/// A session's `authenticationLevel`, 0 when absent (LemonLDAP::NG: `|| 0`).
pub fn level(s: &Session) -> i64 {
    s.get("authenticationLevel")
        .and_then(crate::config::as_i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;
    use serde_json::Value;

    fn s(v: Value) -> Session {
        v.as_object().cloned().unwrap_or_default()
    }

    fn rp() -> Rp {
        Rp {
            rule: Rule::parse("$uid ne \"rtyler\" and $_oidc_grant_type ne \"implicit\"").ok(),
            authn_level: 2,
            scope_rules: vec![("admin".into(), Rule::parse("$uid eq \"dwho\"").unwrap())],
            ..Rp::default()
        }
    }

    #[test]
    fn the_provider_rule_then_the_rp_rule_then_the_level_then_the_scope() {
        let oidc = Settings {
            rule: Rule::parse("$uid ne \"msmith\"").ok(),
            ..Settings::default()
        };
        let user = |uid: &str, l: i64| s(json!({"uid": uid, "authenticationLevel": l}));
        let code = Grant::Authorize("authorizationcode");
        let d = |who: &Session, g: Grant, scope: &str| decide(&oidc, &rp(), who, g, scope);
        assert_eq!(
            d(&user("dwho", 2), code, "openid").as_deref(),
            Ok("openid admin")
        );
        assert_eq!(
            d(&user("dwho", 2), Grant::Password, "openid admin").as_deref(),
            Ok("openid admin")
        );
        assert_eq!(d(&user("msmith", 2), code, "openid"), Err(Refusal::Service));
        assert_eq!(
            d(&user("msmith", 2), Grant::Password, "openid"),
            Err(Refusal::Service)
        );
        assert_eq!(
            d(&user("rtyler", 2), Grant::Password, "openid"),
            Err(Refusal::Partner)
        );
        assert_eq!(
            d(&user("dwho", 2), Grant::Authorize("implicit"), "openid"),
            Err(Refusal::Partner)
        );
        assert_eq!(
            d(&user("dwho", 1), Grant::Password, "openid"),
            Err(Refusal::Level)
        );
        assert_eq!(d(&user("dwho", 1), code, "openid"), Err(Refusal::Level));
        // The scope rule drops what it does not grant; nothing left: refused at the token
        // endpoint only.
        assert_eq!(
            d(&user("amy", 2), Grant::Password, "openid admin").as_deref(),
            Ok("openid")
        );
        assert_eq!(
            d(&user("amy", 2), Grant::Password, "admin"),
            Err(Refusal::NoScope)
        );
        assert_eq!(d(&user("amy", 2), code, "admin").as_deref(), Ok(""));
        assert_eq!(level(&s(json!({"authenticationLevel": "3"}))), 3);
    }

    #[test]
    fn client_credentials_see_the_pseudo_session_and_no_user_in_scope_rules() {
        let rp = Rp {
            rule: Rule::parse("$_clientId eq \"svc\" and $_scope eq \"read\"").ok(),
            authn_level: 5,
            scope_rules: vec![
                (
                    "admin".into(),
                    Rule::parse("$_clientId eq \"svc\"").unwrap(),
                ),
                ("read".into(), Rule::parse("$requested").unwrap()),
            ],
            ..Rp::default()
        };
        let oidc = Settings::default();
        let svc = s(json!({"uid": "svc", "_clientId": "svc"}));
        let cc = Grant::ClientCredentials;
        // No level for a client; scope rules see only $requested; the rule sees `_scope`.
        assert_eq!(
            decide(&oidc, &rp, &svc, cc, "read admin").as_deref(),
            Ok("read")
        );
        assert_eq!(decide(&oidc, &rp, &svc, cc, "admin"), Err(Refusal::NoScope));
        let other = s(json!({"uid": "app", "_clientId": "app"}));
        assert_eq!(
            decide(&oidc, &rp, &other, cc, "read"),
            Err(Refusal::Partner)
        );
        let closed = Settings {
            rule: Rule::parse("$uid eq \"dwho\"").ok(),
            ..Settings::default()
        };
        assert_eq!(
            decide(&closed, &rp, &svc, cc, "read"),
            Err(Refusal::Service)
        );
    }
}
