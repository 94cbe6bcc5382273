//! The findings on a configuration, one a line: errors (what refuses to start), relying parties
//! disabled and why, keys Limette ignores whose value differs from LemonLDAP::NG's default,
//! unknown keys, and security warnings. A plain function over a built configuration, which
//! `limette config check`, start-up and the console's editor (its warnings before a save) all
//! call; it sits at the top beside them because it reads every area's settings.
use crate::config::local::LocalConf;
use crate::config::support::{self, Support};
use crate::config::{gate, truthy, Conf};
use serde_json::Value;
use std::fmt;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Limette refuses to start.
    Error,
    /// A relying party is disabled.
    Disabled,
    /// Limette runs, but the configuration says something it does not do, or is unsafe.
    Warning,
}

impl Level {
    /// The word printed before the finding.
    pub fn word(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Disabled => "disabled",
            Level::Warning => "warning",
        }
    }
}

/// One finding: its level, the key it is about, and a one-line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error, disabled or warning.
    pub level: Level,
    /// The key (`authentication`, `oidcRPMetaDataOptions/<rp>`, `[portal] foo`, ...).
    pub key: String,
    /// What is wrong, one line.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.level.word(), self.message)
    }
}

/// A finding of a level about a key.
pub fn finding(level: Level, key: &str, message: String) -> Finding {
    Finding {
        level,
        key: key.to_string(),
        message,
    }
}

/// Every finding on a configuration: `conf` is the one Limette would run, `local` the INI it
/// was read with (its own warnings included).
pub fn findings(local: &LocalConf, conf: &Conf) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for line in gate::refusals(&conf.raw) {
        let key = line.split(' ').next().unwrap_or("").to_string();
        out.push(finding(Level::Error, &key, line));
    }
    for (key, e) in local.store_refusals() {
        if !out.iter().any(|f| f.message == e) {
            out.push(finding(Level::Error, key, e));
        }
    }
    for d in &conf.area::<crate::oidc::Settings>().disabled {
        out.push(finding(
            Level::Disabled,
            &format!("oidcRPMetaDataOptions/{}", d.name),
            format!("relying party {}: {}", d.name, d.reason),
        ));
    }
    for (key, w) in &conf.area::<crate::oidc::Settings>().warnings {
        out.push(finding(Level::Warning, key, w.clone()));
    }
    for (key, w) in &conf.area::<crate::handler::Settings>().findings {
        out.push(finding(Level::Warning, key, w.clone()));
    }
    for w in &local.warnings {
        out.push(finding(Level::Warning, &local.source, w.clone()));
    }
    for (key, reason) in crate::login::macros::check_macros_and_groups(&conf.raw) {
        out.push(finding(
            Level::Warning,
            &key,
            format!("{key}: {reason}; it stays unset"),
        ));
    }
    // Reported, not refused at start: saves refuse it (`storage::save::check`), and a node
    // that stopped would lock out as surely.
    let domain = conf.domain.as_deref().unwrap_or("");
    if let Err(e) = crate::config::cookie_domain::check(&conf.portal, domain) {
        out.push(finding(Level::Warning, "domain", e));
    }
    for (error, key, m) in
        crate::directory::dbi::findings(&conf.area::<crate::directory::dbi::Settings>())
    {
        let level = if error { Level::Error } else { Level::Warning };
        out.push(finding(level, key, m));
    }
    overrides(local, conf, &mut out);
    ignored_and_unknown(conf, &mut out);
    security(conf, &mut out);
    console(local, conf, &mut out);
    crate::util::sort::sort_by_key(&mut out, |f| f.level);
    out
}

/// `[portal]` overrides replace a stored value whole, as in LemonLDAP::NG: say what a hash
/// override takes away (relying parties, rules, ...), and refuse one that is not a hash where
/// the stored value is.
fn overrides(local: &LocalConf, conf: &Conf, out: &mut Vec<Finding>) {
    for (key, value) in &local.overrides {
        let Some(Value::Object(stored)) = conf.stored.get(key) else {
            continue;
        };
        let Value::Object(new) = value else {
            out.push(finding(
                Level::Error,
                key,
                format!(
                    "{}: [portal] {key} overrides a hash with {}",
                    local.source,
                    gate::short(value)
                ),
            ));
            continue;
        };
        let gone: Vec<&str> = stored
            .keys()
            .filter(|k| !new.contains_key(*k))
            .map(String::as_str)
            .collect();
        if !gone.is_empty() {
            out.push(finding(
                Level::Warning,
                key,
                format!(
                    "{}: [portal] {key} replaces the stored value; no longer in force: {}",
                    local.source,
                    gone.join(", ")
                ),
            ));
        }
    }
}

/// Keys Limette ignores whose value differs from LemonLDAP::NG's default, and unknown keys.
fn ignored_and_unknown(conf: &Conf, out: &mut Vec<Finding>) {
    let limette_defaults = crate::config::defaults::defaults();
    let mut keys: Vec<&String> = conf.stored.keys().collect();
    keys.extend(conf.raw.keys().filter(|k| !conf.stored.contains_key(*k)));
    for key in keys {
        let Some(value) = conf.raw.get(key) else {
            continue;
        };
        match support::support(key) {
            Some(info) if info.support == Support::Ignored => {
                if !support::is_default(key, value) {
                    out.push(finding(
                        Level::Warning,
                        key,
                        format!("{key} = {} is ignored by Limette", shown(key, value)),
                    ));
                }
            }
            Some(_) => {}
            None if limette_defaults.contains_key(key) => {}
            None => {
                let known = support::llng_keys().keys();
                let hint = support::closest(key, known)
                    .map(|k| format!(" (did you mean {k}?)"))
                    .unwrap_or_default();
                out.push(finding(
                    Level::Warning,
                    key,
                    format!("{key} is not a LemonLDAP::NG 2.16 key{hint}"),
                ));
            }
        }
    }
    let pages = [
        ("passwordDB", "Limette changes passwords only with DBI"),
        ("registerDB", "Limette has no registration page"),
    ];
    for (key, what) in pages {
        let v = conf.get_str(key);
        if !v.is_empty() && v != "Null" && !(key == "passwordDB" && v == "DBI") {
            out.push(finding(Level::Warning, key, format!("{key} = {v}: {what}")));
        }
    }
}

/// Settings that are supported but unsafe.
fn security(conf: &Conf, out: &mut Vec<Finding>) {
    let mut warn = |key: &str, msg: &str| out.push(finding(Level::Warning, key, msg.to_string()));
    if !conf.key_set {
        warn(
            "key",
            "key is not set: as in LemonLDAP::NG, the REST session secret (__secret) is keyed with the empty string, which anybody can forge; set a long random key",
        );
    }
    if conf.portal.starts_with("https://") && !conf.secured_cookie {
        warn(
            "securedCookie",
            "securedCookie = 0 behind an https portal: the SSO cookie is also sent over plain http",
        );
    }
    if conf.area::<crate::directory::Settings>().is_demo() {
        warn(
            "authentication",
            "authentication = Demo: the demo accounts (dwho, rtyler, msmith) can log in",
        );
    }
    // The servers' own address rules (`[portal] ...AllowFrom`) are the INI's findings: a
    // server open to every address is one of `local.warnings`.
    if truthy(conf.raw.get("restExportSecretKeys")) {
        warn(
            "restExportSecretKeys",
            "restExportSecretKeys is on: the REST session server shows secret attributes",
        );
    }
    if !conf.require_token {
        warn(
            "requireToken",
            "requireToken is off: the login form has no CSRF token",
        );
    }
}

/// How the administration console is opened: `[portal] managerHost` names the virtual host
/// whose `locationRules` say who may use it (LemonLDAP::NG's manager host). Said when that
/// host has no rules (nobody gets in), and when the configuration has rules for a manager
/// host that no `managerHost` names.
fn console(local: &LocalConf, conf: &Conf, out: &mut Vec<Finding>) {
    let rules = conf.area::<crate::rules::location::Rules>();
    match local.access.manager_host() {
        Some(host) if !rules.0.contains_key(host) => out.push(finding(
            Level::Warning,
            "[portal] managerHost",
            format!("[portal] managerHost = {host}: locationRules has no rules for {host}, so the administration console (/manager/) lets nobody in"),
        )),
        Some(_) => {}
        None => {
            let mut hosts: Vec<&String> =
                rules.0.keys().filter(|h| h.starts_with("manager.")).collect();
            crate::util::sort::sort(&mut hosts);
            if let Some(host) = hosts.first() {
                out.push(finding(
                    Level::Warning,
                    "[portal] managerHost",
                    format!("the administration console (/manager/) lets nobody in: set [portal] managerHost = {host} to apply the locationRules of {host} (docs/console.md)"),
                ));
            }
        }
    }
}

/// A value in a finding: short, one line; secrets (passwords, keys) never shown.
fn shown(key: &str, v: &Value) -> String {
    if support::is_secret(key) {
        "(secret)".into()
    } else {
        gate::short(v)
    }
}
