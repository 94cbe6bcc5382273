//! The signing algorithms of a relying party: reading `IDTokenSignAlg`, `UserInfoSignAlg` and
//! `AccessTokenSignAlg` (with LemonLDAP::NG 2.16's defaults). `settings` assembles the RP and checks that the provider has
//! the key each algorithm needs; `keygen` asks which key families the RPs need.
use super::alg::Alg;
use crate::config::value_string;
use crate::oidc::options::{flag, key, reason};
use serde_json::{Map, Value};

/// The algorithms an RP's options ask for: ID token (unset: HS512, LemonLDAP::NG 2.16's
/// default), userinfo (unset or empty: plain JSON), access token (only with
/// `AccessTokenJWT`; unset: RS256, LemonLDAP::NG's default). `Err` names what is wrong.
pub fn signing_algs(o: &Map<String, Value>) -> [Result<Option<Alg>, String>; 3] {
    let read = |short: &str, dflt: Option<Alg>, none_ok: bool| {
        let text = o.get(&key(short)).map(value_string).unwrap_or_default();
        match Alg::parse(text.trim()) {
            _ if text.trim().is_empty() => Ok(dflt),
            Some(Alg::None) if !none_ok => Err("none is not allowed here".to_string()),
            Some(a) => Ok(Some(a)),
            None => Err(format!("one of {}", alg_names(none_ok))),
        }
    };
    let jwt_access = flag(o, "AccessTokenJWT").unwrap_or(false);
    [
        read("IDTokenSignAlg", Some(Alg::HS512), true),
        read("UserInfoSignAlg", None, true),
        if jwt_access {
            read("AccessTokenSignAlg", Some(Alg::RS256), false)
        } else {
            Ok(None)
        },
    ]
}

/// The disable reason of an algorithm option that does not read.
pub fn alg_reason(o: &Map<String, Value>, short: &str, why: &str) -> String {
    let value = o.get(&key(short)).cloned().unwrap_or(Value::Null);
    reason(&key(short), &value, why)
}

fn alg_names(none_ok: bool) -> String {
    let names: Vec<&str> = Alg::ALL
        .iter()
        .filter(|a| none_ok || **a != Alg::None)
        .map(|a| a.as_str())
        .collect();
    names.join(", ")
}
