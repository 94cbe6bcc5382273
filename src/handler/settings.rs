//! The handler endpoint's settings, compiled once per configuration (`Conf::area`): every
//! virtual host of `locationRules` with its `exportedHeaders` and `vhostOptions`
//! (`handler::vhost`), the aliases and wildcard names that lead to them (LemonLDAP::NG's
//! `resolveAlias`), the global `https`, `port` and `maintenance`, the attributes that name the
//! user to the web server (`whatToTrace`, `customToTrace`) and the session cache's TTL
//! (`handlerInternalCache`). A `vhostType` other than `Main` and a `vhostAccessToTrace` refuse
//! the configuration, naming the key; what does not compile only disables its virtual host
//! (`findings` says why, for `config check`).
use super::vhost::{self, Options, Vhost};
use crate::config::{as_i64, truthy, value_string, AreaSettings};
use regex_lite::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::time::Duration;

/// The longest `handlerInternalCache` honoured: a logout on another node reaches a cached
/// session within it.
pub const MAX_CACHE_TTL: i64 = 300;

/// The handler endpoint's settings.
#[derive(Debug, Default)]
pub struct Settings {
    /// Virtual hosts by lowercase name.
    pub vhosts: HashMap<String, Vhost>,
    /// `vhostAliases`: alias -> virtual host.
    pub aliases: HashMap<String, String>,
    /// Wildcard names (`*`, `%`) in LemonLDAP::NG's order: pattern, virtual host.
    pub wildcards: Vec<(Regex, String)>,
    /// Global `https` (-1: the request's scheme).
    pub https: Option<bool>,
    /// Global `port` (-1: the request's port).
    pub port: Option<u16>,
    /// Global `maintenance`.
    pub maintenance: bool,
    /// `whatToTrace`: the attribute sent as `Lm-Remote-User`.
    pub what_to_trace: String,
    /// `customToTrace`: the attribute sent as `Lm-Remote-Custom`, when set.
    pub custom_to_trace: Option<String>,
    /// `handlerInternalCache`: how long a session read from the store is answered from memory.
    pub cache_ttl: Duration,
    /// What disables a virtual host: (key, one line), for `config check`.
    pub findings: Vec<(String, String)>,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        let empty = Map::new();
        let (rules, headers, options) = (
            object(raw, "locationRules").unwrap_or(&empty),
            object(raw, "exportedHeaders").unwrap_or(&empty),
            object(raw, "vhostOptions").unwrap_or(&empty),
        );
        let mut s = Settings {
            https: tri(raw.get("https")).map(|v| v != 0),
            port: port(raw.get("port")),
            maintenance: truthy(raw.get("maintenance")),
            what_to_trace: raw
                .get("whatToTrace")
                .map(value_string)
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "uid".into()),
            custom_to_trace: raw
                .get("customToTrace")
                .map(value_string)
                .filter(|v| !v.trim().is_empty()),
            cache_ttl: cache_ttl(raw.get("handlerInternalCache"))?,
            ..Settings::default()
        };
        for (host, host_rules) in rules {
            let opts = vhost_options(host, options.get(host))?;
            s.add(
                host,
                vhost::compile(host, Some(host_rules), headers.get(host), opts),
            );
        }
        crate::util::sort::sort_by(&mut s.wildcards, |a, b| wildcard_order(&a.1, &b.1));
        for (host, o) in options {
            vhost_options(host, Some(o))?;
            let aliases = o.get("vhostAliases").map(value_string).unwrap_or_default();
            for alias in aliases.split_whitespace() {
                let target = host.to_ascii_lowercase();
                s.aliases.insert(alias.to_ascii_lowercase(), target);
            }
        }
        Ok(s)
    }
}

impl Settings {
    /// Keeps a compiled virtual host, its wildcard pattern and what closed it.
    fn add(&mut self, host: &str, v: Vhost) {
        let lower = host.to_ascii_lowercase();
        for b in &v.broken {
            let key = b.split(':').next().unwrap_or(host).to_string();
            let line = format!("{b}: virtual host {host} denies every request");
            self.findings.push((key, line));
        }
        if let Some(re) = wildcard(&lower) {
            self.wildcards.push((re, lower.clone()));
        }
        self.vhosts.insert(lower, v);
    }

    /// The virtual host a `Host` names (port dropped): an alias's, its own, or the first
    /// wildcard's that matches. The name is returned even when unknown (rules deny it).
    pub fn resolve(&self, host: &str) -> String {
        let name = strip_port(host).to_ascii_lowercase();
        if let Some(v) = self.aliases.get(&name) {
            return v.clone();
        }
        if self.vhosts.contains_key(&name) {
            return name;
        }
        self.wildcards
            .iter()
            .find(|(re, _)| re.is_match(&name))
            .map_or(name, |(_, v)| v.clone())
    }
}

/// The hash under `key`, when there is one.
fn object<'a>(raw: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    match raw.get(key) {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    }
}

/// `host:port` without `:port` (LemonLDAP::NG's `s/:\d+//`).
pub fn strip_port(host: &str) -> &str {
    match host.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    }
}

/// The options of one virtual host; a type other than `Main` or an access-trace function is
/// refused (LemonLDAP::NG runs Perl there).
fn vhost_options(host: &str, raw: Option<&Value>) -> Result<Options, String> {
    let Some(Value::Object(o)) = raw else {
        return Ok(Options::default());
    };
    let text = |k: &str| o.get(k).map(value_string).unwrap_or_default();
    let kind = text("vhostType");
    if !matches!(kind.trim(), "" | "Main") {
        return Err(format!(
            "vhostOptions/{host}/vhostType = {kind}: only Main is implemented (the handler endpoint answers as LemonLDAP::NG's Main handler)"
        ));
    }
    let trace = text("vhostAccessToTrace");
    if !trace.trim().is_empty() {
        return Err(format!(
            "vhostOptions/{host}/vhostAccessToTrace = {trace}: a Perl function, not implemented"
        ));
    }
    let level = o.get("vhostAuthnLevel").and_then(as_i64);
    Ok(Options {
        https: tri(o.get("vhostHttps")).map(|v| v != 0),
        port: port(o.get("vhostPort")),
        maintenance: tri(o.get("vhostMaintenance")).map(|v| v != 0),
        authn_level: level,
    })
}

/// A LemonLDAP::NG "trool" (-1: unset, else the value).
fn tri(v: Option<&Value>) -> Option<i64> {
    v.and_then(as_i64).filter(|n| *n >= 0)
}

/// A port, unset at -1 or 0.
fn port(v: Option<&Value>) -> Option<u16> {
    v.and_then(as_i64)
        .filter(|n| *n > 0)
        .and_then(|n| u16::try_from(n).ok())
}

fn cache_ttl(v: Option<&Value>) -> Result<Duration, String> {
    let n = match v {
        None | Some(Value::Null) => 15,
        Some(v) => as_i64(v)
            .ok_or_else(|| format!("handlerInternalCache = {}: not a number", value_string(v)))?,
    };
    Ok(Duration::from_secs(n.clamp(0, MAX_CACHE_TTL) as u64))
}

/// The pattern of a wildcard virtual host name: `*` any text, `%` one label's worth.
fn wildcard(host: &str) -> Option<Regex> {
    if !host.contains(['*', '%']) {
        return None;
    }
    let expr: Vec<String> = host
        .split('%')
        .map(|part| {
            let pieces: Vec<String> = part.split('*').map(regex_lite::escape).collect();
            pieces.join(".*")
        })
        .collect();
    let expr = expr.join("[^.]*");
    Regex::new(&format!("^{expr}$")).ok()
}

/// LemonLDAP::NG's order of wildcard names: those starting with `*`, then `%`, last; else
/// longer first, then by name.
fn wildcard_order(a: &str, b: &str) -> std::cmp::Ordering {
    let rank = |s: &str| match s.as_bytes().first() {
        Some(b'*') => 2,
        Some(b'%') => 1,
        _ => 0,
    };
    rank(a)
        .cmp(&rank(b))
        .then(b.len().cmp(&a.len()))
        .then(a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn settings(v: Value) -> Result<Settings, String> {
        let Value::Object(m) = v else { unreachable!() };
        Settings::from_conf(&m)
    }

    #[test]
    fn names_lead_to_virtual_hosts() {
        let s = settings(json!({
            "locationRules": {"App.example.com": {"default": "accept"}, "*.example.com": {}, "%.b.example.com": {}},
            "vhostOptions": {"App.example.com": {"vhostAliases": "app2.example.com  app3.example.com", "vhostPort": -1, "vhostHttps": 1}}
        }))
        .unwrap();
        assert_eq!(s.resolve("app.example.com:8080"), "app.example.com");
        assert_eq!(s.resolve("APP3.example.com"), "app.example.com");
        assert_eq!(s.resolve("x.b.example.com"), "%.b.example.com");
        assert_eq!(s.resolve("x.y.b.example.com"), "*.example.com");
        assert_eq!(s.resolve("other.org"), "other.org");
        let o = &s.vhosts["app.example.com"].options;
        assert_eq!((o.https, o.port), (Some(true), None));
        assert_eq!(s.cache_ttl, Duration::from_secs(15));
    }

    #[test]
    fn other_handler_types_are_refused_by_name() {
        let e = settings(
            json!({"locationRules": {"a": {}}, "vhostOptions": {"a": {"vhostType": "CDA"}}}),
        )
        .unwrap_err();
        assert!(e.starts_with("vhostOptions/a/vhostType = CDA"), "{e}");
        let e = settings(json!({"locationRules": {"a": {}}, "vhostOptions": {"a": {"vhostAccessToTrace": "My::f"}}}))
            .unwrap_err();
        assert!(e.starts_with("vhostOptions/a/vhostAccessToTrace"), "{e}");
        let s = settings(json!({"locationRules": {"a": {"^/x": "$uid eq"}}})).unwrap();
        assert_eq!(s.findings.len(), 1);
        assert_eq!(s.findings[0].0, "locationRules/a/^/x");
    }
}
