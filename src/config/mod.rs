//! The main configuration: numbered `lmConf-N.json` documents with LemonLDAP::NG's key names,
//! loaded from the configured store, merged over the defaults table, overridden by `[portal]`
//! keys of the local file, and parsed once into `Conf`. Unknown keys are kept in `raw`.
//! `proxy` serves them over REST; `cli` administers them.
pub mod check;
pub mod cli;
pub mod defaults;
pub mod doc;
pub mod gate;
pub mod ini;
pub mod local;
pub mod proxy;
pub mod rest;
pub mod save;
pub mod support;

use crate::error::{Error, Result};
use crate::storage::file::conf::FileConf;
use crate::storage::sqlite::conf::SqliteConf;
use crate::storage::ConfStore;
use local::{ConfBackend, LocalConf};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The embedded default main configuration (`conf/lmConf-1.json`).
pub const EMBEDDED_CONF: &str = include_str!("../../conf/lmConf-1.json");

/// One configuration in force, parsed.
#[derive(Debug)]
pub struct Conf {
    /// Its number.
    pub num: u64,
    /// The document as stored (no defaults, no overrides).
    pub stored: Map<String, Value>,
    /// Defaults, then stored values, then local overrides: what the portal uses.
    pub raw: Map<String, Value>,
    /// Portal URL, always with a trailing slash.
    pub portal: String,
    /// SSO cookie name.
    pub cookie_name: String,
    /// Cookie domain, when set.
    pub domain: Option<String>,
    /// `Secure` on cookies.
    pub secured_cookie: bool,
    /// SSO session lifetime in seconds.
    pub timeout: i64,
    /// The attribute that names a user in logs, notifications and persistent sessions.
    pub what_to_trace: String,
    /// The shared secret of the REST session protocol (`key`).
    pub key: String,
    /// OpenID Connect settings.
    pub oidc: crate::oidc::Settings,
    /// Access rules and REST session server settings.
    pub sessions: crate::sessions::Settings,
    /// Notification settings.
    pub notifications: crate::notifications::Settings,
    /// The compiled `macros` and `groups` applied at login.
    pub macros: crate::portal::macros::Compiled,
}

impl Conf {
    /// Parses a stored document with the local overrides; `fallback_key` is used when the
    /// configuration sets no `key`.
    pub fn build(
        stored: Map<String, Value>,
        overrides: &Map<String, Value>,
        fallback_key: &str,
    ) -> Result<Conf, String> {
        let mut raw = defaults::merged(&stored);
        for (k, v) in overrides {
            raw.insert(k.clone(), v.clone());
        }
        let num = stored.get("cfgNum").and_then(as_u64).unwrap_or(0);
        let s = |k: &str| raw.get(k).map(value_string).unwrap_or_default();
        let mut portal = s("portal");
        if !portal.starts_with("http://") && !portal.starts_with("https://") {
            return Err(format!("portal: not an http URL: {portal}"));
        }
        if !portal.ends_with('/') {
            portal.push('/');
        }
        let cookie_name = s("cookieName");
        if cookie_name.is_empty()
            || !cookie_name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(format!("cookieName: invalid cookie name {cookie_name}"));
        }
        let domain = Some(s("domain")).filter(|d| !d.is_empty());
        if let Some(d) = &domain {
            if !d
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
            {
                return Err(format!("domain: invalid cookie domain {d}"));
            }
        }
        let key = Some(s("key"))
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| fallback_key.to_string());
        Ok(Conf {
            num,
            portal,
            cookie_name,
            domain,
            secured_cookie: truthy(raw.get("securedCookie")),
            timeout: raw
                .get("timeout")
                .and_then(as_i64)
                .filter(|t| *t > 0)
                .unwrap_or(72000),
            what_to_trace: Some(s("whatToTrace"))
                .filter(|w| !w.is_empty())
                .unwrap_or_else(|| "uid".into()),
            key,
            oidc: crate::oidc::Settings::from_conf(&raw)?,
            sessions: crate::sessions::Settings::from_conf(&raw)?,
            notifications: crate::notifications::Settings::from_conf(&raw)?,
            macros: crate::portal::macros::Compiled::from_conf(&raw),
            stored,
            raw,
        })
    }

    /// A string setting (numbers are given as text); empty when absent.
    pub fn get_str(&self, key: &str) -> String {
        self.raw.get(key).map(value_string).unwrap_or_default()
    }

    /// A boolean setting (1, "1", true, "on", "yes").
    pub fn get_bool(&self, key: &str) -> bool {
        truthy(self.raw.get(key))
    }

    /// An integer setting.
    pub fn get_i64(&self, key: &str) -> Option<i64> {
        self.raw.get(key).and_then(as_i64)
    }
}

/// A JSON value as text: strings as they are, numbers and booleans printed, null empty.
pub fn value_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => {
            if *b {
                "1".into()
            } else {
                "0".into()
            }
        }
        other => other.to_string(),
    }
}

/// LemonLDAP::NG's notion of a true setting.
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().map(|f| f != 0.0).unwrap_or(false),
        Some(Value::String(s)) => !matches!(s.trim(), "" | "0" | "no" | "false" | "off"),
        _ => false,
    }
}

/// An integer from a number or a numeric string.
pub fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A non-negative integer from a number or a numeric string.
pub fn as_u64(v: &Value) -> Option<u64> {
    as_i64(v).and_then(|n| u64::try_from(n).ok())
}

/// Opens the configuration store named by the local file.
pub fn open_store(local: &LocalConf) -> Result<Arc<dyn ConfStore>> {
    Ok(match &local.conf_backend {
        ConfBackend::File { dir } => Arc::new(FileConf::open(dir)?),
        ConfBackend::Sqlite { path, table } => Arc::new(SqliteConf::open(path, table)?),
        ConfBackend::Rest {
            base_url,
            user,
            password,
            timeout,
        } => Arc::new(rest::RestConf::new(
            base_url,
            user.clone(),
            password.clone(),
            *timeout,
        )),
    })
}

/// Seeds an empty store with the embedded default configuration (first run).
pub fn seed_if_empty(store: &dyn ConfStore) -> Result<()> {
    if store.latest()?.is_some() {
        return Ok(());
    }
    let conf = match serde_json::from_str(EMBEDDED_CONF) {
        Ok(Value::Object(m)) => m,
        _ => {
            return Err(Error::internal(
                "embedded configuration is not a JSON object",
            ))
        }
    };
    store.save(&conf)?;
    Ok(())
}
