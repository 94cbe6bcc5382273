//! What an ID token says of how the user authenticated: `acr`, the session's
//! `authenticationLevel` named by `oidcServiceMetaDataAuthnContext` as LemonLDAP::NG 2.16's
//! provider names it (the first name whose level is the session's, else `loa-<level>`;
//! names are tried in sorted order, where LemonLDAP::NG takes a hash's order), and `amr`
//! (RFC 8176), which LemonLDAP::NG does not send: `pwd`, and once a second factor passed its
//! own values (`otp`...) and `mfa` (`crate::second_factor::step::amr`).
use crate::config::{value_string, Conf};
use crate::storage::Session;
use serde_json::{Map, Value};

/// `oidcServiceMetaDataAuthnContext`: the `acr` names of levels.
#[derive(Debug, Clone)]
pub struct AuthnContext(Vec<(String, i64)>);

impl crate::config::AreaSettings for AuthnContext {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        let key = "oidcServiceMetaDataAuthnContext";
        let mut names = match raw.get(key) {
            None | Some(Value::Null) => (1..=5).map(|n| (format!("loa-{n}"), n)).collect(),
            Some(Value::Object(m)) => {
                let mut out = Vec::new();
                for (name, v) in m {
                    let level = crate::config::as_i64(v).ok_or_else(|| {
                        format!("{key}: {name} = {} is not a level", value_string(v))
                    })?;
                    out.push((name.clone(), level));
                }
                out
            }
            Some(v) if value_string(v).trim().is_empty() => Vec::new(),
            Some(_) => return Err(format!("{key}: expected names and levels")),
        };
        crate::util::sort::sort(&mut names);
        Ok(AuthnContext(names))
    }
}

impl AuthnContext {
    /// The `acr` of a level.
    pub fn name(&self, level: i64) -> String {
        self.0
            .iter()
            .find(|(_, l)| *l == level)
            .map_or_else(|| format!("loa-{level}"), |(n, _)| n.clone())
    }

    /// Every name, for discovery's `acr_values_supported`.
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|(n, _)| n.clone()).collect()
    }
}

/// The `acr` of a session.
pub fn of(conf: &Conf, s: &Session) -> String {
    conf.area::<AuthnContext>().name(super::access::level(s))
}

/// The `amr` of a session.
pub fn amr(s: &Session) -> Vec<&'static str> {
    crate::second_factor::step::amr(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::AreaSettings;
    use serde_json::json;

    #[test]
    fn levels_are_named_as_llng_names_them() {
        let Value::Object(raw) = json!({}) else {
            unreachable!()
        };
        let c = AuthnContext::from_conf(&raw).unwrap();
        assert_eq!(
            (c.name(2), c.name(7)),
            ("loa-2".to_string(), "loa-7".to_string())
        );
        let Value::Object(raw) = json!({"oidcServiceMetaDataAuthnContext": {"mfa": "5", "pwd": 2}})
        else {
            unreachable!()
        };
        let c = AuthnContext::from_conf(&raw).unwrap();
        assert_eq!(
            (c.name(5), c.name(2), c.name(1)),
            ("mfa".into(), "pwd".into(), "loa-1".into())
        );
        let Value::Object(raw) = json!({"oidcServiceMetaDataAuthnContext": {"x": "high"}}) else {
            unreachable!()
        };
        assert!(AuthnContext::from_conf(&raw).is_err());
    }
}
