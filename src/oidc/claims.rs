//! What a relying party is told about the user, as LemonLDAP::NG 2.16 builds it
//! (`Lib/OpenIDConnect.pm`, `buildUserInfoResponseFromData`): the claims of each granted scope
//! (OpenID Connect Core 5.4, plus the RP's own scopes from `oidcRPMetaDataOptionsExtraClaims`),
//! each read through the RP's `oidcRPMetaDataExportedVars` (`claim -> attribute[;type[;array]]`)
//! from a per-RP macro (`oidcRPMetaDataMacros`) or else the session, typed and split on
//! `multiValuesSeparator`; and the subject, `oidcRPMetaDataOptionsUserIDAttr` (a macro or an
//! attribute), else the session's `whatToTrace`. A claim the RP does not map is never
//! released; a value that is empty or absent is left out. Plain values in and out: no HTTP.
use crate::config::value_string;
use crate::rules::{Env, Expression};
use crate::storage::Session;
use serde_json::{json, Map, Value};

/// The standard scopes and the claims they request (OpenID Connect Core 5.4, as LemonLDAP::NG
/// lists them: the address scope's claims are the members of `address`, 5.1.1).
pub const STANDARD: [(&str, &[&str]); 4] = [
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
    (
        "address",
        &[
            "formatted",
            "street_address",
            "locality",
            "region",
            "postal_code",
            "country",
        ],
    ),
    ("phone", &["phone_number", "phone_number_verified"]),
];

/// The scopes every RP knows (`OIDC_SCOPES`): `openid` and the standard ones.
pub const KNOWN_SCOPES: [&str; 5] = ["openid", "profile", "email", "address", "phone"];

/// The claims released inside `address` (OpenID Connect Core 5.1.1, LemonLDAP::NG's
/// `COMPLEX_CLAIM`).
const ADDRESS_MEMBERS: [&str; 6] = [
    "formatted",
    "street_address",
    "locality",
    "region",
    "postal_code",
    "country",
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
        "address",
    ];
    for (_, claims) in STANDARD {
        v.extend(claims.iter().filter(|c| !ADDRESS_MEMBERS.contains(c)));
    }
    v
}

/// The JSON type a claim's value is given (`;type` of an exported variable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueType {
    /// `string` (the default).
    #[default]
    String,
    /// `int`: Perl's numeric value.
    Int,
    /// `bool`: Perl's truth.
    Bool,
}

/// Whether a value holding the separator is split into a list (`;array`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArrayMode {
    /// `auto` (the default): a list when there are several values.
    #[default]
    Auto,
    /// `always`: a list, even of one value.
    Always,
    /// `never`: the string as it is.
    Never,
}

/// Where a claim's value comes from: `attribute[;type[;array]]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Source {
    /// The session attribute, or the name of a per-RP macro.
    pub attr: String,
    /// Its JSON type.
    pub kind: ValueType,
    /// Its list handling.
    pub array: ArrayMode,
}

impl Source {
    /// Reads `attribute[;type[;array]]`. An unknown type or list mode is an error (Perl would
    /// read it as a string, never split: a guess Limette does not make).
    pub fn parse(spec: &str) -> Result<Source, String> {
        let mut parts = spec.split(';');
        let attr = parts.next().unwrap_or("").trim().to_string();
        let kind = match parts.next().map(str::trim).unwrap_or("") {
            "" | "string" => ValueType::String,
            "int" => ValueType::Int,
            "bool" => ValueType::Bool,
            other => return Err(format!("type {other:?}: string, int or bool")),
        };
        let array = match parts.next().map(str::trim).unwrap_or("") {
            "" | "auto" => ArrayMode::Auto,
            "always" => ArrayMode::Always,
            "never" => ArrayMode::Never,
            other => return Err(format!("array mode {other:?}: auto, always or never")),
        };
        if parts.next().is_some() {
            return Err("more than attribute;type;array".into());
        }
        Ok(Source { attr, kind, array })
    }
}

/// One relying party's release table.
#[derive(Debug, Clone, Default)]
pub struct Release {
    /// Claim name -> where its value comes from (`oidcRPMetaDataExportedVars`).
    pub exported: Vec<(String, Source)>,
    /// Scope -> the claims it releases: the standard scopes, then the RP's own
    /// (`oidcRPMetaDataOptionsExtraClaims`), which replace a standard one of the same name.
    pub scopes: Vec<(String, Vec<String>)>,
    /// Per-RP macros (`oidcRPMetaDataMacros`), computed when a claim asks for them.
    pub macros: Vec<(String, Expression)>,
    /// `oidcRPMetaDataOptionsUserIDAttr`: the subject's attribute or macro (`None`: the
    /// session's `whatToTrace` value).
    pub user_id_attr: Option<String>,
    /// `multiValuesSeparator`.
    pub separator: String,
}

impl Release {
    /// The standard scopes plus `extra` (scope -> space-separated claim names).
    pub fn scopes_with(extra: &[(String, String)]) -> Vec<(String, Vec<String>)> {
        let mut scopes: Vec<(String, Vec<String>)> = STANDARD
            .iter()
            .map(|(s, c)| (s.to_string(), c.iter().map(|c| c.to_string()).collect()))
            .collect();
        for (scope, claims) in extra {
            let claims: Vec<String> = claims.split_whitespace().map(str::to_string).collect();
            match scopes.iter_mut().find(|(s, _)| s == scope) {
                Some(slot) => slot.1 = claims,
                None => scopes.push((scope.clone(), claims)),
            }
        }
        scopes
    }

    /// Whether the RP declares this scope (standard, `openid`, or one of its extra claims).
    pub fn declares(&self, scope: &str) -> bool {
        scope == "openid" || self.scopes.iter().any(|(s, _)| s == scope)
    }

    /// The subject for this RP, `None` when its attribute is empty or absent (nothing is
    /// issued to a user without one).
    pub fn sub(&self, data: &Session) -> Option<String> {
        let v = match &self.user_id_attr {
            Some(attr) => self.attribute(attr, data),
            None => data
                .get("_whatToTrace")
                .or_else(|| data.get("_user"))
                .map(value_string),
        };
        v.filter(|s| !s.is_empty())
    }

    /// The claims of the granted `scope` (every mapped claim with `ignore_scope`,
    /// `oidcServiceIgnoreScopeForClaims`) with `sub`, read from `data` ([`data_for`]).
    pub fn userinfo(
        &self,
        scope: &str,
        sub: &str,
        data: &Session,
        ignore_scope: bool,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        if ignore_scope {
            for (claim, _) in &self.exported {
                self.add(&mut out, claim, data);
            }
        } else {
            for granted in scope.split_whitespace().filter(|s| *s != "openid") {
                let Some((_, claims)) = self.scopes.iter().find(|(s, _)| s == granted) else {
                    continue;
                };
                for claim in claims {
                    self.add(&mut out, claim, data);
                }
            }
        }
        out.insert("sub".into(), json!(sub));
        out
    }

    /// The claims `names` asks for (the `claims` parameter, `claims_request`), as
    /// [`Self::userinfo`] releases them: only mapped ones; `address` is its members.
    pub fn requested<'a>(
        &self,
        names: impl Iterator<Item = &'a str>,
        data: &Session,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        for name in names {
            match name {
                "address" => ADDRESS_MEMBERS
                    .iter()
                    .for_each(|m| self.add(&mut out, m, data)),
                _ => self.add(&mut out, name, data),
            }
        }
        out
    }

    /// Whether the RP maps this claim to an attribute (`address`: one of its members).
    pub fn exports(&self, claim: &str) -> bool {
        let mapped = |c: &str| {
            self.exported
                .iter()
                .any(|(n, s)| n == c && !s.attr.is_empty())
        };
        match claim {
            "address" => ADDRESS_MEMBERS.iter().any(|m| mapped(m)),
            _ => mapped(claim),
        }
    }

    /// The scopes that release this claim (`address`: the scopes of its members).
    pub fn scopes_of(&self, claim: &str) -> Vec<String> {
        let has = |list: &[String]| match claim {
            "address" => list.iter().any(|c| ADDRESS_MEMBERS.contains(&c.as_str())),
            _ => list.iter().any(|c| c == claim),
        };
        self.scopes
            .iter()
            .filter(|(_, list)| has(list))
            .map(|(s, _)| s.clone())
            .collect()
    }

    /// A macro's value, else the attribute's as stored.
    fn attribute(&self, attr: &str, data: &Session) -> Option<String> {
        match self.macros.iter().find(|(n, _)| n == attr) {
            Some((_, expr)) => expr.value(data, Env::empty()),
            None => data.get(attr).filter(|v| !v.is_null()).map(value_string),
        }
    }

    /// `_addAttributeToResponse`: the claim's value, typed, under `address` for its members.
    fn add(&self, out: &mut Map<String, Value>, claim: &str, data: &Session) {
        let Some((_, src)) = self.exported.iter().find(|(c, _)| c == claim) else {
            return;
        };
        if src.attr.is_empty() {
            return;
        }
        let raw = match self.macros.iter().find(|(n, _)| *n == src.attr) {
            Some((_, expr)) => expr.value(data, Env::empty()).map(Value::String),
            None => data.get(&src.attr).cloned(),
        };
        let Some(value) = raw.and_then(|v| self.format(v, src)) else {
            return;
        };
        if ADDRESS_MEMBERS.contains(&claim) {
            let address = out
                .entry("address")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(a) = address {
                a.insert(claim.to_string(), value);
            }
        } else {
            out.insert(claim.to_string(), value);
        }
    }

    /// `_formatValue`: a list or object as it is; a scalar typed and split; empty -> nothing.
    fn format(&self, v: Value, src: &Source) -> Option<Value> {
        let text = match v {
            Value::Null => return None,
            Value::Array(_) | Value::Object(_) => return Some(v),
            Value::String(s) => s,
            other => other.to_string(),
        };
        if text.is_empty() {
            return None;
        }
        let sep = self.separator.as_str();
        let several = !sep.is_empty() && text.contains(sep);
        let typed = |t: &str| typed(t, src.kind);
        Some(match src.array {
            ArrayMode::Auto if several => Value::Array(text.split(sep).map(typed).collect()),
            ArrayMode::Always if !sep.is_empty() => {
                Value::Array(text.split(sep).map(typed).collect())
            }
            ArrayMode::Always => Value::Array(vec![typed(&text)]),
            // Never: no typing of a flattened list (LemonLDAP::NG warns and keeps the string).
            ArrayMode::Never if several => Value::String(text),
            _ => typed(&text),
        })
    }
}

/// `_forceType`: Perl's truth, Perl's number, or the string.
fn typed(s: &str, kind: ValueType) -> Value {
    match kind {
        ValueType::String => json!(s),
        ValueType::Bool => json!(!(s.is_empty() || s == "0")),
        ValueType::Int => {
            let n = crate::rules::perl_number(s);
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
    }
}

/// What claims and macros are computed on: the session's attributes plus `_clientId`,
/// `_clientConfKey` and `_scope` (LemonLDAP::NG's `buildUserInfoResponseFromData`).
pub fn data_for(session: &Session, client_id: &str, rp_name: &str, scope: &str) -> Session {
    data_from(session.clone(), client_id, rp_name, scope)
}

/// [`data_for`] from a session the caller no longer needs (no copy of it).
pub fn data_from(mut data: Session, client_id: &str, rp_name: &str, scope: &str) -> Session {
    data.insert("_clientId".into(), json!(client_id));
    data.insert("_clientConfKey".into(), json!(rp_name));
    data.insert("_scope".into(), json!(scope));
    data
}

#[cfg(test)]
mod tests;
