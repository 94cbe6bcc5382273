//! The scope granted to a relying party, from the one it asked for, as LemonLDAP::NG 2.16
//! resolves it (`Lib/OpenIDConnect.pm`, `getScope`): with `oidcServiceAllowOnlyDeclaredScopes`,
//! the scopes the RP does not declare (standard, its extra claims' scopes, its scope rules)
//! are dropped; then each of the RP's scope rules (`oidcRPMetaDataScopeRules`, scope -> rule)
//! adds its scope when the rule holds and removes it when it does not. A rule sees the
//! session's attributes and `$requested` (1 when the RP asked for that scope, else 0).
use crate::oidc::settings::Rp;
use crate::rules::Rule;
use crate::storage::Session;
use serde_json::json;

/// The granted scope, space-separated, in the order asked then added.
pub fn resolve(rp: &Rp, requested: &str, session: &Session, only_declared: bool) -> String {
    let mut scopes: Vec<&str> = requested.split_whitespace().collect();
    if only_declared {
        scopes.retain(|s| {
            let known = rp.release.declares(s) || rp.scope_rules.iter().any(|(n, _)| n == s);
            if !known {
                crate::log::warn(&format!(
                    "unknown scope {} requested for relying party {}",
                    printable(s),
                    rp.name
                ));
            }
            known
        });
    }
    for (scope, rule) in &rp.scope_rules {
        let was_requested = scopes.contains(&scope.as_str());
        if granted(rule, session, was_requested) {
            if !was_requested {
                scopes.push(scope);
            }
        } else {
            scopes.retain(|s| s != scope);
        }
    }
    scopes.join(" ")
}

/// A scope rule on the session plus `$requested`.
fn granted(rule: &Rule, session: &Session, requested: bool) -> bool {
    let mut vars = session.clone();
    vars.insert("requested".into(), json!(u8::from(requested)));
    rule.eval(&vars)
}

/// A client-sent scope fit for a log line.
fn printable(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::claims::Release;
    use serde_json::Value;

    fn rp(rules: &[(&str, &str)]) -> Rp {
        Rp {
            name: "app".into(),
            release: crate::oidc::claims::Release {
                scopes: Release::scopes_with(&[("corp".into(), "team".into())]),
                ..Release::default()
            },
            scope_rules: rules
                .iter()
                .map(|(s, r)| (s.to_string(), Rule::parse(r).unwrap()))
                .collect(),
            ..Rp::default()
        }
    }

    fn session(v: Value) -> Session {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn only_declared_scopes_are_kept() {
        let r = rp(&[("admin", "$uid eq \"dwho\"")]);
        let s = session(json!({"uid": "rtyler"}));
        assert_eq!(
            resolve(&r, "openid foo corp email", &s, true),
            "openid corp email"
        );
        assert_eq!(resolve(&r, "openid foo corp", &s, false), "openid foo corp");
    }

    #[test]
    fn scope_rules_add_and_remove() {
        let r = rp(&[
            ("admin", "$uid eq \"dwho\""),
            ("asked", "$requested and $uid eq \"dwho\""),
        ]);
        let dwho = session(json!({"uid": "dwho"}));
        let rose = session(json!({"uid": "rtyler"}));
        // Added when the rule holds, even unasked; removed when it does not.
        assert_eq!(resolve(&r, "openid", &dwho, false), "openid admin");
        assert_eq!(resolve(&r, "openid admin", &rose, false), "openid");
        // $requested: granted only when asked for.
        assert_eq!(
            resolve(&r, "openid asked", &dwho, true),
            "openid asked admin"
        );
        assert_eq!(resolve(&r, "openid asked", &rose, false), "openid");
    }
}
