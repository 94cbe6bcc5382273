//! The `claims` request parameter (OpenID Connect Core 5.5): individual claims asked for in the
//! ID token (`id_token`) and at userinfo (`userinfo`), each `null` (voluntary) or an object
//! with `essential`, `value` or `values` (5.5.1). It comes as JSON text in the query, the form,
//! a pushed request, or a request object (where it is a JSON object, which `request_object`
//! turns into its text). Malformed, it is `invalid_request`; members it does not understand
//! are ignored (5.5). [`ClaimsRequest::allowed`] keeps what may be released: a claim the RP
//! exports (`oidcRPMetaDataExportedVars`) from a scope that is granted or that its scope
//! rules would grant this user had the client asked for it (`scopes::resolve`), or any
//! exported claim under `oidcServiceIgnoreScopeForClaims`. `acr` (5.5.1.1) and `sub` (5.5.1)
//! with `value`/`values` are checked against the session by [`ClaimsRequest::refusal`]; the
//! other claims' values are not matched (5.5.1 lets the provider ignore them). The request
//! is stored with the code and every token of it (`grants`), so the token endpoint, a
//! refresh and userinfo honour it. No HTTP here.
use crate::error::OAuthCode;
use crate::oidc::settings::Rp;
use crate::storage::Session;
use serde_json::{json, Map, Value};

/// Where a claim is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `id_token`: in the ID token.
    IdToken,
    /// `userinfo`: at the userinfo endpoint.
    Userinfo,
}

impl Target {
    fn as_str(self) -> &'static str {
        match self {
            Target::IdToken => "id_token",
            Target::Userinfo => "userinfo",
        }
    }
}

/// One claim asked for (5.5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    /// The claim's name.
    pub name: String,
    /// `essential`.
    pub essential: bool,
    /// `value`, or the members of `values`; empty: any value.
    pub values: Vec<Value>,
}

/// A parsed `claims` parameter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaimsRequest {
    /// `id_token`'s members.
    pub id_token: Vec<Ask>,
    /// `userinfo`'s members.
    pub userinfo: Vec<Ask>,
}

/// The claims that are the ID token's own (OpenID Connect Core 2): asking for them changes
/// nothing but `acr` and `sub` values, checked by [`ClaimsRequest::refusal`].
const PROTOCOL: [&str; 11] = [
    "iss",
    "sub",
    "aud",
    "exp",
    "iat",
    "auth_time",
    "acr",
    "nonce",
    "azp",
    "amr",
    "sid",
];

impl ClaimsRequest {
    /// Reads the parameter's JSON text (5.5); an error says what is malformed.
    pub fn parse(text: &str) -> Result<ClaimsRequest, String> {
        let v: Value = serde_json::from_str(text).map_err(|_| "claims is not JSON")?;
        let top = v.as_object().ok_or("claims is not a JSON object")?;
        Ok(ClaimsRequest {
            id_token: members(top, Target::IdToken)?,
            userinfo: members(top, Target::Userinfo)?,
        })
    }

    /// The stored form (in a code's and its tokens' records), read back by [`Self::stored`].
    pub fn to_json(&self) -> Value {
        let side = |asks: &[Ask]| -> Value {
            let m: Map<String, Value> = asks
                .iter()
                .map(|a| {
                    let v = json!({"essential": a.essential, "values": a.values});
                    (a.name.clone(), v)
                })
                .collect();
            Value::Object(m)
        };
        json!({"id_token": side(&self.id_token), "userinfo": side(&self.userinfo)})
    }

    /// A request as stored by [`Self::to_json`]; `None` when there is none.
    pub fn stored(v: Option<&Value>) -> Option<ClaimsRequest> {
        let top = v?.as_object()?;
        Some(ClaimsRequest {
            id_token: members(top, Target::IdToken).ok()?,
            userinfo: members(top, Target::Userinfo).ok()?,
        })
    }

    /// The names asked for in `target`.
    pub fn names(&self, target: Target) -> impl Iterator<Item = &str> {
        let asks = match target {
            Target::IdToken => &self.id_token,
            Target::Userinfo => &self.userinfo,
        };
        asks.iter().map(|a| a.name.as_str())
    }

    /// 5.5.1.1 and 5.5.1: an essential `acr` with values the session's `acr` is not one of is a
    /// failed authentication (`access_denied`); a `sub` with a value that is not this user's is
    /// another user (`login_required`: the provider must not answer for a different user).
    pub fn refusal(&self, acr: &str, sub: &str) -> Option<OAuthCode> {
        let asks = self.id_token.iter().chain(&self.userinfo);
        for a in asks.filter(|a| !a.values.is_empty()) {
            let holds = |mine: &str| a.values.iter().any(|v| v.as_str() == Some(mine));
            match a.name.as_str() {
                "acr" if a.essential && !holds(acr) => return Some(OAuthCode::AccessDenied),
                "sub" if !holds(sub) => return Some(OAuthCode::LoginRequired),
                _ => {}
            }
        }
        None
    }

    /// The request narrowed to the user's claims that may be released to this RP for this
    /// user: exported by the RP, and of a `granted` scope or of one its scope rules would
    /// grant (`ignore_scope`: every exported claim). The protocol claims go (the ID token
    /// has them).
    pub fn allowed(&self, rp: &Rp, who: &Session, granted: &str, ignore_scope: bool) -> Self {
        let ok = |name: &str| {
            if PROTOCOL.contains(&name) || !rp.release.exports(name) {
                return false;
            }
            ignore_scope
                || rp.release.scopes_of(name).iter().any(|s| {
                    granted.split_whitespace().any(|g| g == s)
                        || super::scopes::resolve(rp, s, who, false)
                            .split_whitespace()
                            .any(|g| g == s)
                })
        };
        let keep = |asks: &[Ask]| asks.iter().filter(|a| ok(&a.name)).cloned().collect();
        ClaimsRequest {
            id_token: keep(&self.id_token),
            userinfo: keep(&self.userinfo),
        }
    }

    /// What `authorize` keeps of the request for this user (`who`, whose `acr` and `sub` are
    /// given): [`Self::refusal`]'s error, else the request narrowed by [`Self::allowed`]
    /// (`None` when nothing is left) and the scope to ask consent for (`granted` and the
    /// scopes of the allowed claims: the user consents to what is released).
    pub fn settle(
        self,
        rp: &Rp,
        who: &Session,
        granted: &str,
        ignore_scope: bool,
        (acr, sub): (&str, &str),
    ) -> Result<(Option<ClaimsRequest>, String), OAuthCode> {
        if let Some(code) = self.refusal(acr, sub) {
            return Err(code);
        }
        let c = self.allowed(rp, who, granted, ignore_scope);
        let consent = [granted.to_string()]
            .into_iter()
            .chain(c.extra_scopes(rp, granted))
            .collect::<Vec<_>>()
            .join(" ");
        Ok((Some(c).filter(|c| !c.is_empty()), consent))
    }

    /// The scopes the allowed claims come from and `granted` does not hold, for the consent
    /// page (the user consents to what is released).
    pub fn extra_scopes(&self, rp: &Rp, granted: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in self
            .names(Target::IdToken)
            .chain(self.names(Target::Userinfo))
        {
            let scopes = rp.release.scopes_of(name);
            if scopes
                .iter()
                .any(|s| granted.split_whitespace().any(|g| g == s))
            {
                continue;
            }
            if let Some(s) = scopes.first() {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
        out
    }

    /// Whether nothing is asked for.
    pub fn is_empty(&self) -> bool {
        self.id_token.is_empty() && self.userinfo.is_empty()
    }
}

/// The claims asked for in one member (absent or `null`: none).
fn members(top: &Map<String, Value>, target: Target) -> Result<Vec<Ask>, String> {
    let key = target.as_str();
    let m = match top.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(format!("claims.{key} is not an object")),
    };
    m.iter().map(|(name, v)| ask(key, name, v)).collect()
}

/// One claim's request: `null`, or an object with `essential` (a boolean), `value` or
/// `values` (an array); other members are ignored (5.5.1).
fn ask(key: &str, name: &str, v: &Value) -> Result<Ask, String> {
    let bad = |what: &str| format!("claims.{key}.{name}: {what}");
    if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
        return Err(format!(
            "claims.{key}: a claim name is empty, long or not printable"
        ));
    }
    let o = match v {
        Value::Null => {
            return Ok(Ask {
                name: name.into(),
                essential: false,
                values: Vec::new(),
            })
        }
        Value::Object(o) => o,
        _ => return Err(bad("neither null nor an object")),
    };
    let essential = match o.get("essential") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("essential is not a boolean")),
    };
    let mut values = match o.get("values") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err(bad("values is not an array")),
    };
    if let Some(v) = o.get("value").filter(|v| !v.is_null()) {
        values.push(v.clone());
    }
    Ok(Ask {
        name: name.into(),
        essential,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::claims::{Release, Source};

    fn rp(exported: &[(&str, &str)]) -> Rp {
        Rp {
            client_id: "c".into(),
            release: Release {
                exported: exported
                    .iter()
                    .map(|(c, s)| (c.to_string(), Source::parse(s).unwrap()))
                    .collect(),
                scopes: Release::scopes_with(&[("corp".into(), "team".into())]),
                ..Release::default()
            },
            ..Rp::default()
        }
    }

    #[test]
    fn parsed_as_core_5_5() {
        let c = ClaimsRequest::parse(
            r#"{"id_token":{"email":{"essential":true},"acr":{"values":["loa-1","x"]}},
            "userinfo":{"name":null,"picture":{"extra":1}},"other":5}"#,
        )
        .unwrap();
        assert_eq!(
            c.names(Target::IdToken).collect::<Vec<_>>(),
            ["email", "acr"]
        );
        assert_eq!(
            c.names(Target::Userinfo).collect::<Vec<_>>(),
            ["name", "picture"]
        );
        assert!(c.id_token[0].essential && !c.userinfo[0].essential);
        assert_eq!(c.id_token[1].values, vec![json!("loa-1"), json!("x")]);
        assert_eq!(ClaimsRequest::stored(Some(&c.to_json())), Some(c));
        assert!(ClaimsRequest::parse("{}").unwrap().is_empty());
        assert!(ClaimsRequest::parse(r#"{"id_token":null}"#)
            .unwrap()
            .is_empty());
        for bad in [
            "",
            "nope",
            "[]",
            "\"x\"",
            r#"{"id_token":[]}"#,
            r#"{"userinfo":"email"}"#,
            r#"{"id_token":{"email":true}}"#,
            r#"{"id_token":{"email":{"essential":"yes"}}}"#,
            r#"{"id_token":{"acr":{"values":"loa-1"}}}"#,
            r#"{"id_token":{"":null}}"#,
        ] {
            assert!(ClaimsRequest::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn acr_and_sub_values() {
        let c = |t: &str| ClaimsRequest::parse(t).unwrap();
        let acr = c(r#"{"id_token":{"acr":{"essential":true,"values":["loa-2"]}}}"#);
        assert_eq!(acr.refusal("loa-1", "u"), Some(OAuthCode::AccessDenied));
        assert_eq!(acr.refusal("loa-2", "u"), None);
        // Voluntary: the session's acr is returned, nothing refused.
        let voluntary = c(r#"{"id_token":{"acr":{"value":"loa-9"}}}"#);
        assert_eq!(voluntary.refusal("loa-1", "u"), None);
        let sub = c(r#"{"id_token":{"sub":{"value":"other"}}}"#);
        assert_eq!(sub.refusal("loa-1", "u"), Some(OAuthCode::LoginRequired));
        assert_eq!(sub.refusal("loa-1", "other"), None);
    }

    #[test]
    fn only_exported_claims_of_grantable_scopes() {
        let rp = rp(&[
            ("email", "mail"),
            ("name", "cn"),
            ("team", "unit"),
            ("x", "y"),
        ]);
        let who = Session::new();
        let c = ClaimsRequest::parse(
            r#"{"id_token":{"email":null,"auth_time":{"essential":true},"phone_number":null},
            "userinfo":{"name":null,"team":null,"x":null}}"#,
        )
        .unwrap();
        let a = c.allowed(&rp, &who, "openid", false);
        // phone_number is not exported; x is in no scope; auth_time is the token's own.
        assert_eq!(a.names(Target::IdToken).collect::<Vec<_>>(), ["email"]);
        assert_eq!(
            a.names(Target::Userinfo).collect::<Vec<_>>(),
            ["name", "team"]
        );
        assert_eq!(a.extra_scopes(&rp, "openid"), ["email", "profile", "corp"]);
        assert_eq!(a.extra_scopes(&rp, "openid email profile"), ["corp"]);
        let (kept, consent) = c
            .clone()
            .settle(&rp, &who, "openid", false, ("loa-1", "u"))
            .unwrap();
        assert_eq!(
            (kept, consent.as_str()),
            (Some(a), "openid email profile corp")
        );
        let nothing = ClaimsRequest::parse(r#"{"userinfo":{"x":null}}"#).unwrap();
        let settled = nothing.settle(&rp, &who, "openid", false, ("loa-1", "u"));
        assert_eq!(settled, Ok((None, "openid".into())));
        // oidcServiceIgnoreScopeForClaims: every exported claim.
        let all = c.allowed(&rp, &who, "openid", true);
        assert_eq!(all.names(Target::Userinfo).count(), 3);
        // A scope rule that denies the scope denies its claims.
        let mut strict = rp.clone();
        strict.scope_rules = vec![(
            "email".into(),
            crate::rules::Rule::parse("$uid eq 'rtyler'").unwrap(),
        )];
        let a = c.allowed(&strict, &who, "openid", false);
        assert_eq!(a.names(Target::IdToken).count(), 0);
    }
}
