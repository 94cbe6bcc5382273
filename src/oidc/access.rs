//! The relying party's own gate at `/oauth2/authorize`, once the user is authenticated: its
//! `oidcRPMetaDataOptionsRule` and `oidcRPMetaDataOptionsAuthnLevel`. Plain values in, a portal
//! error out; the handler in `authorize` turns a refusal into the 403 page.
use super::Rp;
use crate::error::PortalCode;
use crate::storage::Session;
use serde_json::json;

/// The RP's gate once the user is authenticated, in LemonLDAP::NG's order
/// (`Issuer/OpenIDConnect.pm`, `run`): its rule, evaluated on the session's attributes plus
/// `_oidc_grant_type` = the flow (`authorizationcode`, `implicit`, `hybrid`; PE_UNAUTHORIZEDPARTNER), then its
/// authentication level (PE_UPGRADESESSION). LemonLDAP::NG offers to upgrade the session by
/// a new login; Limette has a single module, so a new login cannot raise the level.
pub fn admit(rp: &Rp, s: &Session, grant_type: &str) -> std::result::Result<(), PortalCode> {
    if !rule_admits(rp, s, grant_type) {
        return Err(PortalCode::UnauthorizedPartner);
    }
    if level(s) < rp.authn_level {
        return Err(PortalCode::UpgradeSession);
    }
    Ok(())
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
    use serde_json::Value;

    #[test]
    fn the_rule_then_the_level() {
        let s = |v: Value| v.as_object().cloned().unwrap_or_default();
        let rp = Rp {
            rule: crate::rules::Rule::parse(
                "$uid eq \"dwho\" and $_oidc_grant_type eq \"authorizationcode\"",
            )
            .ok(),
            authn_level: 2,
            ..Rp::default()
        };
        let dwho = |l: i64| s(json!({"uid": "dwho", "authenticationLevel": l}));
        assert_eq!(admit(&rp, &dwho(2), "authorizationcode"), Ok(()));
        assert_eq!(
            admit(&rp, &dwho(2), "implicit"),
            Err(PortalCode::UnauthorizedPartner)
        );
        assert_eq!(
            admit(&rp, &dwho(1), "authorizationcode"),
            Err(PortalCode::UpgradeSession)
        );
        let rose = s(json!({"uid": "rtyler", "authenticationLevel": 5}));
        assert_eq!(
            admit(&rp, &rose, "authorizationcode"),
            Err(PortalCode::UnauthorizedPartner)
        );
        assert_eq!(admit(&Rp::default(), &s(json!({})), "implicit"), Ok(()));
        assert_eq!(level(&s(json!({"authenticationLevel": "3"}))), 3);
    }
}
