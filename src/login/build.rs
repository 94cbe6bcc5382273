//! Build the session, the pipeline's fourth step: the SSO session of an authenticated user
//! (LemonLDAP::NG's `setSessionInfo`, `setMacros`, `setGroups`, `setLocalGroups`): its
//! bookkeeping keys, the exported attributes, macros and groups, the authentication level and
//! `_whatToTrace`. Built, not stored: the holds may keep it back, and `release` stores it.
//! It reads the request for the client's address and the `$ENV{...}` of rules only.
use crate::config::Conf;
use crate::http::Request;
use crate::storage::Session;
use crate::util;
use serde_json::{json, Map, Value};

/// Builds (without storing) the SSO session of an authenticated user.
pub fn build(
    conf: &Conf,
    req: &Request,
    user: &str,
    attrs: &Map<String, Value>,
    module: &str,
) -> Session {
    let now = util::now();
    let id = util::random_hex(32);
    let mut s = Map::new();
    s.insert("_session_id".into(), json!(id));
    s.insert("_session_kind".into(), json!("SSO"));
    s.insert("_utime".into(), json!(now));
    s.insert("_startTime".into(), json!(util::timestamp14(now)));
    s.insert("_updateTime".into(), json!(util::timestamp14(now)));
    s.insert("_lastAuthnUTime".into(), json!(now));
    s.insert("_lastSeen".into(), json!(now));
    s.insert("_user".into(), json!(user));
    s.insert("_auth".into(), json!(module));
    s.insert("_userDB".into(), json!(module));
    s.insert("_language".into(), json!("en"));
    // The level LemonLDAP::NG's module would give (Demo: 1, or 2 behind https; REST:
    // restAuthnLevel): relying parties with an AuthnLevel compare against it.
    let level = crate::directory::for_conf(conf).authn_level();
    s.insert("authenticationLevel".into(), json!(level));
    s.insert("ipAddr".into(), json!(req.ip()));
    export_attributes(conf, req, attrs, &mut s);
    apply_macros_and_groups(conf, req, attrs, &mut s);
    // A `_whatToTrace` macro names the user itself (LemonLDAP::NG sets that key nowhere
    // else); otherwise it is the `whatToTrace` attribute, the login name when that is empty.
    let by_macro = conf
        .area::<super::macros::Compiled>()
        .has_macro("_whatToTrace")
        && s.get("_whatToTrace")
            .is_some_and(|v| !crate::config::value_string(v).is_empty());
    if !by_macro {
        let trace = s
            .get(&conf.what_to_trace)
            .map(crate::config::value_string)
            .unwrap_or_else(|| user.to_string());
        s.insert(
            "_whatToTrace".into(),
            json!(if trace.is_empty() {
                user.to_string()
            } else {
                trace
            }),
        );
    }
    s
}

/// After a second factor raised the level (LemonLDAP::NG's `SecondFactor::_verify`): the
/// macros and the configuration's groups computed again on the session, so that those that
/// read `$authenticationLevel` see the new one; the groups de-duplicated.
pub fn after_level_change(conf: &Conf, req: &Request, s: &mut Session) {
    let env = super::macros::request_env(req);
    let compiled = conf.area::<super::macros::Compiled>();
    compiled.apply_macros(s, &env);
    compiled.apply_groups(s, &env);
    let sep = compiled.separator().to_string();
    let groups = s
        .get("groups")
        .map(crate::config::value_string)
        .unwrap_or_default();
    let mut seen: Vec<&str> = Vec::new();
    for g in groups.split(sep.as_str()).filter(|g| !g.is_empty()) {
        if !seen.contains(&g) {
            seen.push(g);
        }
    }
    let joined = seen.join(&sep);
    s.insert("groups".into(), json!(joined));
}

/// LemonLDAP::NG's order after the attributes: macros and the directory's groups (in the
/// order `groupsBeforeMacros` says), then the configuration's `groups`.
fn apply_macros_and_groups(
    conf: &Conf,
    req: &Request,
    attrs: &Map<String, Value>,
    s: &mut Session,
) {
    let env = super::macros::request_env(req);
    let compiled = conf.area::<super::macros::Compiled>();
    if compiled.groups_before_macros() {
        directory_groups(attrs, compiled.separator(), s);
        compiled.apply_macros(s, &env);
    } else {
        compiled.apply_macros(s, &env);
        directory_groups(attrs, compiled.separator(), s);
    }
    compiled.apply_groups(s, &env);
}

/// The exported variables of a configuration (session key -> attribute, or `HTTP_*` for a
/// request header), parsed once when it is built.
#[derive(Debug)]
pub struct Exports {
    /// `demoExportedVars`: used with the Demo directory only.
    demo: Vec<(String, String)>,
    /// `restExportedVars`, then `exportedVars`.
    others: Vec<(String, String)>,
}

impl crate::config::AreaSettings for Exports {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        let vars = |key: &str| match raw.get(key) {
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| (k.clone(), crate::config::value_string(v)))
                .collect(),
            _ => Vec::new(),
        };
        let mut others = vars("restExportedVars");
        others.extend(vars("exportedVars"));
        Ok(Exports {
            demo: vars("demoExportedVars"),
            others,
        })
    }
}

/// Copies directory attributes through `demoExportedVars`/`exportedVars` (session key ->
/// attribute) and request headers for `exportedVars` values naming `HTTP_*`.
fn export_attributes(conf: &Conf, req: &Request, attrs: &Map<String, Value>, s: &mut Session) {
    let exports = conf.area::<Exports>();
    let mut vars: Vec<(String, String)> = Vec::new();
    if conf.area::<crate::directory::Settings>().is_demo() {
        vars.extend(exports.demo.iter().cloned());
    }
    vars.extend(exports.others.iter().cloned());
    if !vars.iter().any(|(k, _)| k == "UA") {
        vars.push(("UA".into(), "HTTP_USER_AGENT".into()));
    }
    for (name, source) in vars {
        if let Some(h) = source.strip_prefix("HTTP_") {
            if let Some(v) = req.header(&h.replace('_', "-")) {
                s.insert(name, json!(v));
            }
        } else if let Some(v) = attrs.get(&source) {
            s.insert(name, v.clone());
        }
    }
    // Attributes not mapped but present keep their name when nothing maps them (REST bridge);
    // groups are the business of `directory_groups`.
    for (k, v) in attrs {
        if k != "groups" && k != "hGroups" && !s.contains_key(k) {
            s.insert(k.clone(), v.clone());
        }
    }
}

/// The directory's groups, as LemonLDAP::NG's Demo backend adds them (`setGroups`): appended
/// to a `groups` a macro may have set, joined with `multiValuesSeparator`, and keyed in
/// `hGroups`.
fn directory_groups(attrs: &Map<String, Value>, separator: &str, s: &mut Session) {
    let found: Vec<String> = match attrs.get("groups") {
        Some(Value::Array(a)) => a.iter().map(crate::config::value_string).collect(),
        Some(Value::String(g)) => g
            .split([';', ','])
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    let mut groups = s
        .get("groups")
        .map(crate::config::value_string)
        .unwrap_or_default();
    let mut hgroups = match s.remove("hGroups") {
        Some(Value::Object(h)) => h,
        _ => Map::new(),
    };
    for g in found {
        if !groups.is_empty() {
            groups.push_str(separator);
        }
        groups.push_str(&g);
        hgroups.insert(g.clone(), json!({ "name": g }));
    }
    s.insert("groups".into(), json!(groups));
    s.insert("hGroups".into(), Value::Object(hgroups));
}
