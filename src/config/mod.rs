//! The main configuration: numbered `lmConf-N.json` documents with LemonLDAP::NG's key names,
//! loaded from the configured store, merged over the defaults table, overridden by `[portal]`
//! keys of the local file, and parsed once into `Conf`. Unknown keys are kept in `raw`.
//! Reading them from a store is `storage`'s, saving them `storage::save`'s; the `config_proxy`
//! area serves them over REST; the top's `cli::config` administers them. Each area parses its
//! own settings from `raw` (`AreaSettings`) when the configuration is built, the top naming
//! which areas there are (`CheckAreas`): a configuration whose settings do not parse is never
//! built, so handlers read typed values, never a default put in place of a broken one. This
//! module knows no area. The raw accessor (`get_str`) is for keys named at run time only (the
//! command line's findings by key name).
pub mod access;
pub mod catalogue;
pub mod cookie_domain;
pub mod defaults;
pub mod diff;
pub mod fetch;
pub mod gate;
pub mod ini;
pub mod local;
pub mod redact;
pub mod server;
pub mod stores;
pub mod support;
pub mod values;

use crate::error::Result;
use serde_json::{Map, Value};
use std::any::{Any, TypeId};
use std::fmt;
use std::sync::{Arc, RwLock};

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
    /// Portal URL, always with a trailing slash: the configuration's `portal`, or the URL of
    /// the node's listening address when it sets none (`defaults::portal_for`).
    pub portal: String,
    /// True when the configuration (or a local override) sets `portal`.
    pub portal_set: bool,
    /// SSO cookie name.
    pub cookie_name: String,
    /// Cookie domain, when set.
    pub domain: Option<String>,
    /// `Secure` on cookies.
    pub secured_cookie: bool,
    /// `HttpOnly` on the SSO cookie (`httpOnly`).
    pub http_only: bool,
    /// The cookies' `SameSite` attribute (`sameSite`).
    pub same_site: SameSite,
    /// SSO session lifetime in seconds.
    pub timeout: i64,
    /// The attribute that names a user in logs, notifications and persistent sessions.
    pub what_to_trace: String,
    /// The secret of the tokens this portal issues and any node sharing the configuration
    /// verifies (form tokens, pending logins): the configuration's `key`. Without one, this
    /// node's own key (its data folder), so such tokens then stay on the node that issued
    /// them rather than being keyed with a secret everybody knows.
    pub key: String,
    /// The key as LemonLDAP::NG's `Common::Crypto` takes it, for the REST session protocol's
    /// `__secret`: the configuration's `key`, or the empty string when it has none (Perl's
    /// undefined key hashes as the empty string), so that every node of either kind agrees.
    pub crypto_key: String,
    /// True when the configuration (or a local override) sets a non-empty `key`; false means
    /// `crypto_key` is empty and `__secret` is keyed with a secret everybody knows.
    pub key_set: bool,
    /// `formTimeout`: the lifetime of form tokens and pending logins (each user applies its
    /// own floor and default); `None` when unset.
    pub form_timeout: Option<i64>,
    /// `timeoutActivity`: a session unused longer than this many seconds ends (0: off).
    pub timeout_activity: i64,
    /// `requireToken`: the HTML login form carries a one-time token.
    pub require_token: bool,
    /// The areas' own settings, each parsed from `raw` when the configuration was built.
    areas: AreaCache,
}

/// The settings an area reads from the configuration (OpenID Connect, sessions, notifications,
/// the portal's macros): the area owns the type and its parser; `Conf` parses each when it is
/// built and keeps it (`Conf::area`). Which areas there are is the top's to say
/// (`router::area_settings`, given to every `Conf::build`), so a broken one is refused where
/// the configuration is loaded or saved, never replaced by defaults at request time.
pub trait AreaSettings: Sized + Send + Sync + 'static {
    /// Parses the area's keys from the merged configuration; errors name the key.
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String>;
}

/// Parses every area's settings of a configuration into `Areas`, the first error naming its
/// key: the top gives it (`router::area_settings`) to whatever builds a configuration.
pub type CheckAreas = fn(&mut Areas, &Map<String, Value>) -> Result<(), String>;

/// The areas' settings of one configuration, as `CheckAreas` parses them.
#[derive(Default)]
pub struct Areas(Vec<(TypeId, Arc<dyn Any + Send + Sync>)>);

impl Areas {
    /// Parses an area's settings from `raw` and keeps them; the error names the key.
    pub fn parse<T: AreaSettings>(&mut self, raw: &Map<String, Value>) -> Result<(), String> {
        if self.get::<T>().is_none() {
            let parsed: Arc<dyn Any + Send + Sync> = Arc::new(T::from_conf(raw)?);
            self.0.push((TypeId::of::<T>(), parsed));
        }
        Ok(())
    }

    /// How many areas' settings are kept.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    fn get<T: AreaSettings>(&self) -> Option<Arc<T>> {
        let id = TypeId::of::<T>();
        self.0
            .iter()
            .find(|(t, _)| *t == id)
            .and_then(|(_, a)| a.clone().downcast::<T>().ok())
    }
}

/// Each area's parsed settings, by type: those parsed at build, then (unit tests' configurations
/// only, which are built without the top's list) those parsed on first use.
#[derive(Default)]
struct AreaCache(RwLock<Areas>);

impl fmt::Debug for AreaCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AreaCache")
    }
}

/// What a node brings to a configuration it loads.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    /// The listening address: the portal URL when the configuration sets none.
    pub listen: &'a str,
    /// The node's own key (data folder): the token key when the configuration sets none.
    pub data_key: &'a str,
}

impl Conf {
    /// Parses a stored document with the local overrides, on a node listening on the default
    /// address (`127.0.0.1:8080`), with every area's settings (`areas`); `fallback_key` is the
    /// token key when the configuration sets no `key`. For checks that have no node (a save).
    pub fn build(
        stored: Map<String, Value>,
        overrides: &Map<String, Value>,
        fallback_key: &str,
        areas: CheckAreas,
    ) -> Result<Conf, String> {
        let node = Node {
            listen: defaults::DEFAULT_LISTEN,
            data_key: fallback_key,
        };
        Conf::build_on(stored, overrides, &node, areas)
    }

    /// A unit test's configuration: the JSON object `stored`, no local overrides, key "k"; the
    /// areas' settings are parsed on first use.
    #[cfg(test)]
    pub fn of_json(stored: Value) -> Conf {
        let Value::Object(m) = stored else {
            panic!("a configuration is a JSON object")
        };
        Conf::build(m, &Map::new(), "k", |_, _| Ok(())).unwrap()
    }

    /// Parses a stored document with the local overrides, as loaded on `node`, and every
    /// area's settings (`areas`): the first that does not parse refuses the configuration.
    pub fn build_on(
        stored: Map<String, Value>,
        overrides: &Map<String, Value>,
        node: &Node,
        areas: CheckAreas,
    ) -> Result<Conf, String> {
        let mut raw = defaults::merged(&stored);
        for (k, v) in overrides {
            raw.insert(k.clone(), v.clone());
        }
        let num = stored.get("cfgNum").and_then(as_u64).unwrap_or(0);
        let portal_set = raw
            .get("portal")
            .map(value_string)
            .is_some_and(|p| !p.is_empty());
        if !portal_set {
            raw.insert("portal".into(), defaults::portal_for(node.listen).into());
        }
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
        let crypto_key = s("key");
        let key_set = !crypto_key.is_empty();
        let key = if key_set {
            crypto_key.clone()
        } else {
            node.data_key.to_string()
        };
        let mut parsed = Areas::default();
        areas(&mut parsed, &raw)?;
        Ok(Conf {
            num,
            portal,
            portal_set,
            cookie_name,
            domain,
            secured_cookie: truthy(raw.get("securedCookie")),
            http_only: truthy(raw.get("httpOnly")),
            // A value the start-up gate refuses never runs; were it to, Strict is the closed one.
            same_site: SameSite::parse(&s("sameSite")).unwrap_or(SameSite::Strict),
            timeout: raw
                .get("timeout")
                .and_then(as_i64)
                .filter(|t| *t > 0)
                .unwrap_or(72000),
            what_to_trace: Some(s("whatToTrace"))
                .filter(|w| !w.is_empty())
                .unwrap_or_else(|| "uid".into()),
            form_timeout: int_setting(&raw, "formTimeout")?,
            timeout_activity: int_setting(&raw, "timeoutActivity")?.unwrap_or(0),
            require_token: truthy(raw.get("requireToken")),
            key,
            crypto_key,
            key_set,
            areas: AreaCache(RwLock::new(parsed)),
            stored,
            raw,
        })
    }

    /// An area's settings, as parsed when the configuration was built. Only a unit test's
    /// configuration (`of_json`, built without the top's list) parses them here, on first use.
    pub fn area<T: AreaSettings>(&self) -> Arc<T> {
        if let Some(t) = self
            .areas
            .0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get::<T>()
        {
            return t;
        }
        // Invariant: every configuration outside unit tests is built with the top's list of
        // areas (`router::area_settings`, which a test checks names every `AreaSettings` type),
        // so its areas were parsed at build and this lazy parse is never taken there; a unit
        // test's configuration that does not parse fails its test.
        let mut w = self.areas.0.write().unwrap_or_else(|p| p.into_inner());
        match w.parse::<T>(&self.raw).map(|()| w.get::<T>()) {
            Ok(Some(t)) => t,
            Ok(None) | Err(_) => panic!(
                "configuration {}: the settings of an area not parsed at build do not parse",
                self.num
            ),
        }
    }

    /// A string setting (numbers are given as text); empty when absent.
    pub fn get_str(&self, key: &str) -> String {
        self.raw.get(key).map(value_string).unwrap_or_default()
    }
}

/// The `SameSite` attribute of the cookies, as LemonLDAP::NG writes `sameSite`: its value
/// when set, else `Lax` (LemonLDAP::NG's `getSameSite` picks `None` only for SAML, which
/// Limette does not speak).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameSite {
    /// Sent on same-site requests only.
    Strict,
    /// Also sent on top-level cross-site navigations (the default).
    Lax,
    /// Sent on every request; browsers keep it only with `Secure`.
    None,
}

impl SameSite {
    /// Parses `sameSite` (case-insensitive, as browsers read the attribute; empty is `Lax`).
    pub fn parse(v: &str) -> Result<SameSite, String> {
        match v.trim().to_ascii_lowercase().as_str() {
            "" | "lax" => Ok(SameSite::Lax),
            "strict" => Ok(SameSite::Strict),
            "none" => Ok(SameSite::None),
            _ => Err(format!(
                "sameSite = {v} is not supported (supported: Strict, Lax, None, or empty for Lax)"
            )),
        }
    }

    /// The attribute value.
    pub fn as_str(self) -> &'static str {
        match self {
            SameSite::Strict => "Strict",
            SameSite::Lax => "Lax",
            SameSite::None => "None",
        }
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

/// An integer setting: `None` when absent or empty; a value that is not an integer refuses the
/// configuration, naming the key and the value.
pub fn int_setting(raw: &Map<String, Value>, key: &str) -> Result<Option<i64>, String> {
    match raw.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(v) => as_i64(v)
            .map(Some)
            .ok_or_else(|| format!("{key} = {} is not an integer", value_string(v))),
    }
}

/// A non-negative integer from a number or a numeric string.
pub fn as_u64(v: &Value) -> Option<u64> {
    as_i64(v).and_then(|n| u64::try_from(n).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::save;

    const NONE: CheckAreas = |_, _| Ok(());

    fn node(listen: &str) -> Node<'_> {
        Node {
            listen,
            data_key: "node-own-key",
        }
    }

    #[test]
    fn first_start_has_its_own_key_and_no_portal() {
        let a = save::first_start(1_800_000_000).unwrap();
        let b = save::first_start(1_800_000_000).unwrap();
        let key = a["key"].as_str().unwrap();
        assert_eq!(key.len(), 64);
        assert_ne!(a["key"], b["key"], "each first start draws its own key");
        assert!(!a.contains_key("portal"));
        assert!(a["cfgLog"].as_str().unwrap().contains("random key"));
        assert_eq!(
            (&a["cfgDate"], &a["cfgVersion"]),
            (
                &serde_json::json!("1800000000"),
                &serde_json::json!("2.16.1")
            )
        );
        let conf = Conf::build_on(a.clone(), &Map::new(), &node("127.0.0.1:9090"), NONE).unwrap();
        assert_eq!(conf.portal, "http://127.0.0.1:9090/");
        assert_eq!(conf.raw["portal"], "http://127.0.0.1:9090/");
        assert!(!conf.portal_set);
        assert!(conf.key_set);
        assert_eq!((conf.key.as_str(), conf.crypto_key.as_str()), (key, key));
    }

    #[test]
    fn an_absent_key_is_the_empty_crypto_key_and_a_node_token_key() {
        let mut m = Map::new();
        m.insert("portal".into(), Value::from("https://auth.example.com"));
        let conf = Conf::build_on(m.clone(), &Map::new(), &node("0.0.0.0:80"), NONE).unwrap();
        assert!(!conf.key_set);
        assert_eq!(conf.crypto_key, "");
        assert_eq!(conf.key, "node-own-key");
        assert_eq!(conf.portal, "https://auth.example.com/");
        assert!(conf.portal_set);
        m.insert("key".into(), Value::from(""));
        assert!(
            !Conf::build_on(m, &Map::new(), &node("0.0.0.0:80"), NONE)
                .unwrap()
                .key_set
        );
    }

    #[test]
    fn an_override_sets_portal_and_key() {
        let mut o = Map::new();
        o.insert("portal".into(), Value::from("http://127.0.0.1:7000/"));
        o.insert("key".into(), Value::from("shared"));
        let conf = Conf::build_on(Map::new(), &o, &node("127.0.0.1:9090"), NONE).unwrap();
        assert_eq!(conf.portal, "http://127.0.0.1:7000/");
        assert!(conf.portal_set && conf.key_set);
        assert_eq!(conf.crypto_key, "shared");
    }
}
