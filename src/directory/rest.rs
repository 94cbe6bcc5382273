//! The REST directory bridge (LemonLDAP::NG's REST auth/userDB protocol), through the one
//! outbound agent `crate::upstream`. It speaks to a LemonLDAP::NG node whose REST
//! authentication server (`restAuthServer`) fronts LDAP or Active Directory:
//! `restAuthUrl` (`/proxy/pwdConfirm`) gets a JSON POST `{"user","password"}` and answers
//! `{"result":true|false}`; `restUserDBUrl` (`/proxy/getUser`) gets `{"user","useMail":false}`
//! and answers `{"result":true,"info":{attributes}}` or `{"result":false}`. A timeout
//! (`restTimeout` seconds), a non-2xx answer (nginx's 403 on a protected `/proxy`, the node's
//! 400 on a missing argument) or bad JSON is an `Upstream` error, which the login turns into
//! portal error 24 and a log line: never a hang, a panic or a fallback.
//!
//! The node's `info` is its whole session skeleton for the bridge call, not only the user's
//! attributes: it also says where *that call* came from (`ipAddr`, `UA`, `_url`) and the node's
//! own bookkeeping (`_utime`, `_auth`...). Those keys are dropped here (`NODE_KEYS`); the
//! login fills them from the user's own request. Everything else (LDAP attributes, `_dn`,
//! `groups`, macros) is kept.
use super::Directory;
use crate::config::{int_setting, value_string};
use crate::error::{Error, Result};
use crate::upstream::{self, Call};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// Keys of the node's `info` that describe the bridge call or the node's session bookkeeping
/// (LemonLDAP::NG `Portal::Main::Process::setSessionInfo` and its default `UA` export), not the
/// user: never copied into a Limette session.
pub const NODE_KEYS: [&str; 16] = [
    "ipAddr",
    "UA",
    "_url",
    "_user",
    "_utime",
    "_startTime",
    "_updateTime",
    "_lastSeen",
    "_lastAuthnUTime",
    "_language",
    "_timezone",
    "_auth",
    "_userDB",
    "_whatToTrace",
    "_session_id",
    "_session_kind",
];

/// The REST bridge's settings, parsed with the directory's (`super::Settings`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// `restAuthUrl` (the gate refuses an empty or https one with the REST module).
    pub auth_url: String,
    /// `restUserDBUrl`.
    pub user_url: String,
    /// `restTimeout` (10 seconds when unset or not positive; not an integer refuses).
    pub timeout: Duration,
    /// `restAuthnLevel` (`rest_level`).
    pub level: i64,
}

impl Settings {
    /// Reads the URLs, the timeout and the level; a `restTimeout` that is not an integer
    /// refuses the configuration.
    pub fn from_conf(raw: &Map<String, Value>) -> std::result::Result<Settings, String> {
        let get = |k: &str| raw.get(k).map(value_string).unwrap_or_default();
        let secs = int_setting(raw, "restTimeout")?
            .filter(|t| *t > 0)
            .unwrap_or(10) as u64;
        Ok(Settings {
            auth_url: get("restAuthUrl"),
            user_url: get("restUserDBUrl"),
            timeout: Duration::from_secs(secs),
            level: rest_level(raw.get("restAuthnLevel")),
        })
    }
}

/// A directory behind `restAuthUrl` / `restUserDBUrl`.
pub struct RestDirectory {
    auth_url: String,
    user_url: String,
    timeout: Duration,
    level: i64,
}

impl RestDirectory {
    /// The directory the settings name.
    pub fn new(s: &Settings) -> RestDirectory {
        RestDirectory {
            auth_url: s.auth_url.clone(),
            user_url: s.user_url.clone(),
            timeout: s.timeout,
            level: s.level,
        }
    }

    /// POSTs a JSON body and returns the answer's `result` and `info`.
    fn call(&self, url: &str, body: &Value) -> Result<(bool, Map<String, Value>)> {
        if url.is_empty() {
            return Err(Error::Upstream(
                "REST directory URL is not configured".into(),
            ));
        }
        let reply = upstream::send_configured(&Call {
            method: "POST",
            url,
            basic: None,
            json: Some(body),
            form: None,
            timeout: self.timeout,
        })?;
        if !(200..300).contains(&reply.status) {
            return Err(Error::Upstream(format!(
                "REST directory {url} answered HTTP {}",
                reply.status
            )));
        }
        parse_answer(&reply.json()?)
            .map_err(|e| Error::Upstream(format!("REST directory {url}: {e}")))
    }
}

/// `restAuthnLevel`, LemonLDAP::NG's default 2 when unset (`DefaultValues.pm`). Any other
/// value reads as Perl reads a number: a non-numeric text is 0, the lowest level, which can
/// only refuse more relying parties.
pub fn rest_level(v: Option<&Value>) -> i64 {
    match v {
        None | Some(Value::Null) => 2,
        Some(v) => crate::config::as_i64(v).unwrap_or(0),
    }
}

/// `{"result": bool-ish, "info": {...}}`; anything else is refused.
pub fn parse_answer(v: &Value) -> std::result::Result<(bool, Map<String, Value>), String> {
    let result = match v.get("result") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() == Some(1),
        Some(Value::String(s)) => s == "1" || s == "true",
        _ => return Err("answer without a result".into()),
    };
    let info = match v.get("info") {
        Some(Value::Object(m)) => m.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err("info is not an object".into()),
    };
    Ok((result, info))
}

impl Directory for RestDirectory {
    fn authenticate(&self, user: &str, password: &str) -> Result<bool> {
        Ok(self
            .call(&self.auth_url, &json!({"user": user, "password": password}))?
            .0)
    }

    fn user_info(&self, user: &str) -> Result<Option<Map<String, Value>>> {
        let (found, mut info) =
            self.call(&self.user_url, &json!({"user": user, "useMail": false}))?;
        if !found {
            return Ok(None);
        }
        info.retain(|k, _| !NODE_KEYS.contains(&k.as_str()));
        info.entry("uid").or_insert_with(|| json!(user));
        Ok(Some(info))
    }

    fn name(&self) -> &'static str {
        "REST"
    }

    fn authn_level(&self) -> i64 {
        self.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_checked() {
        assert!(parse_answer(&json!({"result": true})).unwrap().0);
        assert!(!parse_answer(&json!({"result": 0, "info": null})).unwrap().0);
        let (_, info) = parse_answer(&json!({"result": 1, "info": {"mail": "x@y"}})).unwrap();
        assert_eq!(info["mail"], "x@y");
        assert!(parse_answer(&json!({"info": {}})).is_err());
        assert!(parse_answer(&json!({"result": true, "info": "x"})).is_err());
        assert!(parse_answer(&json!([1])).is_err());
    }

    #[test]
    fn the_level_is_rest_authn_level() {
        assert_eq!(rest_level(None), 2);
        assert_eq!(rest_level(Some(&json!("3"))), 3);
        assert_eq!(rest_level(Some(&json!(5))), 5);
        assert_eq!(rest_level(Some(&json!("high"))), 0);
    }

    #[test]
    fn the_nodes_view_of_the_call_is_dropped() {
        // What LemonLDAP::NG 2.16's /proxy/getUser answered for an LDAP user.
        let (_, mut info) = parse_answer(&json!({"result": true, "info": {
            "cn": "Alice Liddell", "mail": "alice@example.org", "uid": "alice",
            "_dn": "uid=alice,ou=users,dc=example,dc=com", "groups": "", "hGroups": {},
            "ipAddr": "127.0.0.1", "UA": "ureq/2", "_url": null, "_user": "alice",
            "_utime": 1, "_startTime": "20260101000000", "_language": "en",
            "_auth": "LDAP", "_userDB": "LDAP", "_whatToTrace": "alice"
        }}))
        .unwrap();
        info.retain(|k, _| !NODE_KEYS.contains(&k.as_str()));
        let keys: Vec<&str> = info.keys().map(String::as_str).collect();
        assert_eq!(keys, ["cn", "mail", "uid", "_dn", "groups", "hGroups"]);
    }
}
