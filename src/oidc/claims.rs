//! Which userinfo claims a scope releases (OpenID Connect Core 5.4), and their values: each
//! claim is read from the SSO session through the RP's `oidcRPMetaDataExportedVars`
//! (claim -> session attribute). A claim the RP does not map is never released.
use super::Rp;
use crate::storage::Session;
use serde_json::{json, Map, Value};

/// Scope -> the standard claims it requests (OIDC Core 5.4).
const SCOPES: [(&str, &[&str]); 4] = [
    (
        "profile",
        &[
            "name",
            "family_name",
            "given_name",
            "middle_name",
            "nickname",
            "preferred_username",
            "profile",
            "picture",
            "website",
            "gender",
            "birthdate",
            "zoneinfo",
            "locale",
            "updated_at",
        ],
    ),
    ("email", &["email", "email_verified"]),
    ("address", &["address"]),
    ("phone", &["phone_number", "phone_number_verified"]),
];

/// Every claim Limette can release, for discovery.
pub fn supported() -> Vec<&'static str> {
    let mut v = vec![
        "sub",
        "iss",
        "aud",
        "exp",
        "iat",
        "auth_time",
        "acr",
        "nonce",
        "azp",
        "at_hash",
        "sid",
    ];
    for (_, claims) in SCOPES {
        v.extend_from_slice(claims);
    }
    v
}

/// The userinfo answer: `sub` plus every claim of a granted scope that the RP maps to a
/// session attribute present in the session. With `ignore_scope`
/// (`oidcServiceIgnoreScopeForClaims`), every claim the RP maps is released whatever the
/// scope, as LemonLDAP::NG does.
pub fn userinfo(
    rp: &Rp,
    scope: &str,
    sub: &str,
    session: &Session,
    ignore_scope: bool,
) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("sub".into(), json!(sub));
    if ignore_scope {
        for (claim, attr) in &rp.claims {
            if let Some(v) = session.get(attr).filter(|v| !v.is_null()) {
                out.insert(claim.clone(), v.clone());
            }
        }
        out.insert("sub".into(), json!(sub));
        return out;
    }
    let granted: Vec<&str> = scope.split_whitespace().collect();
    for (s, names) in SCOPES {
        if !granted.contains(&s) {
            continue;
        }
        for name in names {
            let attr = rp
                .claims
                .iter()
                .find(|(c, _)| c == name)
                .map(|(_, a)| a.as_str());
            if let Some(v) = attr.and_then(|a| session.get(a)).filter(|v| !v.is_null()) {
                out.insert((*name).to_string(), v.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_follow_scope_and_mapping() {
        let rp = Rp {
            claims: vec![
                ("email".into(), "mail".into()),
                ("name".into(), "cn".into()),
            ],
            ..Rp::default()
        };
        let mut s = Map::new();
        s.insert("mail".into(), json!("dwho@badwolf.org"));
        s.insert("cn".into(), json!("Doctor Who"));
        assert_eq!(
            Value::Object(userinfo(&rp, "openid", "dwho", &s, false)),
            json!({"sub": "dwho"})
        );
        assert_eq!(
            Value::Object(userinfo(&rp, "openid email", "dwho", &s, false)),
            json!({"sub": "dwho", "email": "dwho@badwolf.org"})
        );
        let all = userinfo(&rp, "openid profile email", "dwho", &s, false);
        assert_eq!(all["name"], "Doctor Who");
        assert!(!all.contains_key("preferred_username"));
        // oidcServiceIgnoreScopeForClaims: every mapped claim, whatever the scope.
        assert_eq!(
            Value::Object(userinfo(&rp, "openid", "dwho", &s, true)),
            json!({"sub": "dwho", "email": "dwho@badwolf.org", "name": "Doctor Who"})
        );
    }
}
