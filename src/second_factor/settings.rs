//! The second factors' settings, parsed once per configuration (`Conf::area`): the engine's
//! `sf*` keys and, for every factor of [`super::FACTORS`], its generic `<prefix>2f*` keys
//! (activation and self-registration rules, authentication level, label, logo, removal,
//! TTL), as LemonLDAP::NG 2.16's `2F/Engines/Default.pm`, `Main/SecondFactor.pm` and
//! `2F/Register/Base.pm` read them. A factor's own keys (the TOTP interval, the WebAuthn
//! relying party) are its own settings type. A rule that does not parse refuses the
//! configuration, naming the key.
use crate::config::{int_setting, truthy, value_string};
use crate::rules::Rule;
use serde_json::{Map, Value};

/// The engine's settings and the enabled factors.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `sfRequired`: a user no factor applies to registers one before the session is released.
    pub required: Option<Rule>,
    /// `sfOnlyUpgrade`: the factor is asked only when a service needs a higher level.
    pub only_upgrade: bool,
    /// `sfManagerRule` (default `1`): who may list and remove devices in the console.
    pub manager_rule: Option<Rule>,
    /// `sfLoginTimeout || formTimeout`: seconds a pending login waits for its factor.
    pub login_timeout: i64,
    /// `sfRegisterTimeout // formTimeout`: seconds a registration in progress lives.
    pub register_timeout: i64,
    /// `max2FDevices`: devices a user may hold.
    pub max_devices: usize,
    /// `max2FDevicesNameLength`: a device name is cut to this.
    pub max_name_len: usize,
    /// The factors enabled (`<prefix>2fActivation` not off), in `FACTORS` order.
    pub modules: Vec<Module>,
    /// `sfRemovedMsgRule` with its notification (`None`: nobody is told).
    pub removed: Option<Removed>,
}

/// The notification of expired devices removed (`sfRemoved*`).
#[derive(Debug, Clone)]
pub struct Removed {
    /// `sfRemovedMsgRule`: who is told.
    pub rule: Rule,
    /// `sfRemovedNotifRef` (`RemoveSF`).
    pub reference: String,
    /// `sfRemovedNotifTitle`.
    pub title: String,
    /// `sfRemovedNotifMsg`, with `_removedSF_` and `_nameSF_`.
    pub message: String,
}

/// What a factor's activation rule is.
#[derive(Debug, Clone)]
pub enum Activation {
    /// `1`: the user has a device of the factor's type (LemonLDAP::NG rewrites it to
    /// `has2f("TYPE")`).
    HasDevice,
    /// Another rule, on the session (with `_2fDevices`, so `has2f()` works).
    Rule(Rule),
}

/// One enabled factor's generic settings (`<prefix>2f*`).
#[derive(Debug, Clone)]
pub struct Module {
    /// The factor's prefix (`totp`): the keys' prefix and the paths' (`/totp2fcheck`).
    pub prefix: &'static str,
    /// The `type` of its devices in `_2fDevices` (`TOTP`).
    pub kind: &'static str,
    /// `<prefix>2fActivation`.
    pub activation: Activation,
    /// `<prefix>2fSelfRegistration` (`None`: users cannot register one).
    pub self_registration: Option<Rule>,
    /// `<prefix>2fAuthnLevel`: the session's level once the factor passed (`None`: unchanged).
    pub authn_level: Option<i64>,
    /// `<prefix>2fLabel` (`None`: the translated name).
    pub label: Option<String>,
    /// `<prefix>2fLogo`: a file under `/static/common/modules/` (`None`: the text alone).
    pub logo: Option<String>,
    /// `<prefix>2fUserCanRemoveKey`.
    pub user_can_remove: bool,
    /// `<prefix>2fTTL`: seconds a device lives (`None`: for ever).
    pub ttl: Option<i64>,
}

impl Settings {
    /// The enabled factor of that prefix.
    pub fn module(&self, prefix: &str) -> Option<&Module> {
        self.modules.iter().find(|m| m.prefix == prefix)
    }

    /// The enabled factor whose devices have that type (ignoring case).
    pub fn module_of_kind(&self, kind: &str) -> Option<&Module> {
        self.modules
            .iter()
            .find(|m| m.kind.eq_ignore_ascii_case(kind))
    }

    /// Whether any factor is enabled.
    pub fn any(&self) -> bool {
        !self.modules.is_empty()
    }
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        let form = int_setting(raw, "formTimeout")?.unwrap_or(120);
        let mut modules = Vec::new();
        for f in super::FACTORS {
            if let Some(m) = module(raw, f.prefix(), f.kind())? {
                modules.push(m);
            }
        }
        Ok(Settings {
            required: rule(raw, "sfRequired", "0")?,
            only_upgrade: truthy(raw.get("sfOnlyUpgrade")),
            manager_rule: rule(raw, "sfManagerRule", "1")?,
            login_timeout: int_setting(raw, "sfLoginTimeout")?
                .filter(|n| *n > 0)
                .unwrap_or(form),
            register_timeout: int_setting(raw, "sfRegisterTimeout")?.unwrap_or(form),
            max_devices: count(raw, "max2FDevices", 10)?,
            max_name_len: count(raw, "max2FDevicesNameLength", 20)?,
            modules,
            removed: removed(raw)?,
        })
    }
}

/// `sfRemovedMsgRule` and its notification keys. LemonLDAP::NG's information page (without
/// `sfRemovedUseNotif`, or without notifications) is not implemented: refused.
fn removed(raw: &Map<String, Value>) -> Result<Option<Removed>, String> {
    let Some(rule) = rule(raw, "sfRemovedMsgRule", "0")? else {
        return Ok(None);
    };
    if !truthy(raw.get("sfRemovedUseNotif")) || !truthy(raw.get("notification")) {
        return Err(
            "sfRemovedMsgRule: only told by a notification (sfRemovedUseNotif = 1 and \
                    notification = 1); the information page is not implemented"
                .into(),
        );
    }
    let text = |k: &str, default: &str| {
        raw.get(k)
            .map(value_string)
            .filter(|v| !v.trim().is_empty())
            .unwrap_or_else(|| default.to_string())
    };
    Ok(Some(Removed {
        rule,
        reference: text("sfRemovedNotifRef", "RemoveSF"),
        title: text("sfRemovedNotifTitle", "Second factor notification"),
        message: text(
            "sfRemovedNotifMsg",
            "_removedSF_ expired second factor(s) has/have been removed (_nameSF_)!",
        ),
    }))
}

/// A factor's generic keys; `None` when its activation is off.
fn module(
    raw: &Map<String, Value>,
    prefix: &'static str,
    kind: &'static str,
) -> Result<Option<Module>, String> {
    let key = |k: &str| format!("{prefix}2f{k}");
    let activation = match raw.get(&key("Activation")).map(value_string) {
        None => return Ok(None),
        Some(v) if v.trim() == "1" => Activation::HasDevice,
        Some(_) => match rule(raw, &key("Activation"), "0")? {
            None => return Ok(None),
            Some(r) => Activation::Rule(r),
        },
    };
    let text = |k: &str| {
        raw.get(&key(k))
            .map(value_string)
            .filter(|v| !v.trim().is_empty())
    };
    Ok(Some(Module {
        prefix,
        kind,
        activation,
        self_registration: rule(raw, &key("SelfRegistration"), "0")?,
        authn_level: int_setting(raw, &key("AuthnLevel"))?.filter(|n| *n > 0),
        label: text("Label"),
        logo: text("Logo"),
        user_can_remove: raw
            .get(&key("UserCanRemoveKey"))
            .map_or(true, |v| truthy(Some(v))),
        ttl: int_setting(raw, &key("TTL"))?.filter(|n| *n > 0),
    }))
}

/// A `boolOrExpr` key: `None` when off (`0`, empty, absent with an off default), the rule
/// otherwise (`1` is the rule that always holds).
fn rule(raw: &Map<String, Value>, key: &str, default: &str) -> Result<Option<Rule>, String> {
    let src = raw
        .get(key)
        .map(value_string)
        .unwrap_or_else(|| default.to_string());
    match src.trim() {
        "" | "0" => Ok(None),
        "1" => Ok(Some(Rule::accept())),
        text => Rule::parse(text)
            .map(Some)
            .map_err(|e| format!("{key}: the rule does not parse: {e}")),
    }
}

/// A non-negative count with a default.
fn count(raw: &Map<String, Value>, key: &str, default: i64) -> Result<usize, String> {
    let n = int_setting(raw, key)?.unwrap_or(default);
    Ok(usize::try_from(n.max(0)).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::AreaSettings;
    use serde_json::json;

    fn parse(v: Value) -> Result<Settings, String> {
        let Value::Object(m) = v else { unreachable!() };
        Settings::from_conf(&m)
    }

    #[test]
    fn defaults_are_llng_ones() {
        let s = parse(json!({})).unwrap();
        assert!(s.required.is_none() && !s.only_upgrade && s.manager_rule.is_some());
        assert_eq!((s.login_timeout, s.register_timeout), (120, 120));
        assert_eq!((s.max_devices, s.max_name_len), (10, 20));
        assert!(!s.any());
    }

    #[test]
    fn totp_enabled_by_flag_or_rule() {
        let s = parse(json!({"totp2fActivation": 1, "totp2fAuthnLevel": "5",
            "sfLoginTimeout": 30, "formTimeout": 200}))
        .unwrap();
        let m = s.module("totp").unwrap();
        assert!(matches!(m.activation, Activation::HasDevice));
        assert_eq!((m.authn_level, m.user_can_remove), (Some(5), true));
        assert_eq!((s.login_timeout, s.register_timeout), (30, 200));
        let s = parse(json!({"totp2fActivation": "$uid eq 'dwho' and has2f('TOTP')"})).unwrap();
        assert!(matches!(
            s.module("totp").unwrap().activation,
            Activation::Rule(_)
        ));
        assert!(parse(json!({"totp2fActivation": "$uid eq"}))
            .unwrap_err()
            .contains("totp2fActivation"));
        assert!(parse(json!({"totp2fActivation": 0}))
            .unwrap()
            .module("totp")
            .is_none());
    }

    #[test]
    fn removed_devices_are_told_by_notification_only() {
        assert!(parse(json!({"sfRemovedMsgRule": 0}))
            .unwrap()
            .removed
            .is_none());
        let page = parse(json!({"sfRemovedMsgRule": 1})).unwrap_err();
        assert!(page.contains("sfRemovedMsgRule"), "{page}");
        assert!(parse(json!({"sfRemovedMsgRule": 1, "sfRemovedUseNotif": 1})).is_err());
        let s = parse(
            json!({"sfRemovedMsgRule": "$uid eq 'dwho'", "sfRemovedUseNotif": 1,
            "notification": 1, "sfRemovedNotifRef": "Gone"}),
        )
        .unwrap();
        let r = s.removed.unwrap();
        assert_eq!(
            (r.reference.as_str(), r.title.as_str()),
            ("Gone", "Second factor notification")
        );
    }
}
