//! The configuration's `macros` and `groups`, compiled once per configuration and applied at
//! login as LemonLDAP::NG 2.16's portal does (`Portal/Main/Process.pm`): macros in sorted key
//! order, each stored in the session so later ones see it (`setMacros`); then, after the
//! directory's groups, each group whose rule holds appended to `groups` (joined with
//! `multiValuesSeparator`) and added to `hGroups` (`setLocalGroups`). An expression outside
//! the supported subset of the rule language is reported once when the configuration loads
//! and never evaluated: its macro stays unset, its group is never granted. Which session
//! keys exist otherwise is `session`'s business.
use crate::config::value_string;
use crate::http::Request;
use crate::log;
use crate::rules::{Env, Expression, Rule};
use serde_json::{json, Map, Value};

/// LemonLDAP::NG's default `multiValuesSeparator`.
pub const DEFAULT_SEPARATOR: &str = "; ";

/// The compiled `macros` and `groups` of one configuration.
#[derive(Debug, Clone, Default)]
pub struct Compiled {
    /// (name, expression), sorted by name.
    macros: Vec<(String, Expression)>,
    /// (name, rule), sorted by name.
    groups: Vec<(String, Rule)>,
    separator: String,
    groups_before_macros: bool,
}

impl Compiled {
    /// Compiles the `macros` and `groups` of a configuration (defaults merged), logging one
    /// error line per expression it cannot honour.
    pub fn from_conf(raw: &Map<String, Value>) -> Compiled {
        let (compiled, problems) = compile(raw);
        for (key, reason) in problems {
            log::error(&format!("{key}: {reason}: left unset"));
        }
        compiled
    }

    /// `multiValuesSeparator`: what joins the values of `groups`.
    pub fn separator(&self) -> &str {
        &self.separator
    }

    /// `groupsBeforeMacros`: the directory's groups are set before the macros run.
    pub fn groups_before_macros(&self) -> bool {
        self.groups_before_macros
    }

    /// True when a macro of that name compiled (it then owns that session key).
    pub fn has_macro(&self, name: &str) -> bool {
        self.macros.iter().any(|(n, _)| n == name)
    }

    /// Runs the macros in sorted order on the session being built: each result is stored
    /// (a string), an undefined one removes the key, as Perl's `undef` is never stored.
    pub fn apply_macros(&self, s: &mut Map<String, Value>, env: &Env) {
        for (name, expr) in &self.macros {
            match expr.value(s, env) {
                Some(v) => s.insert(name.clone(), Value::String(v)),
                None => s.remove(name),
            };
        }
    }

    /// `setLocalGroups`: keeps the groups already there, then appends each group whose rule
    /// holds (sorted order; a rule sees the groups granted before it).
    pub fn apply_groups(&self, s: &mut Map<String, Value>, env: &Env) {
        let mut groups = match s.get("groups") {
            None | Some(Value::Null) => String::new(),
            Some(v) => value_string(v),
        };
        if !matches!(s.get("hGroups"), Some(Value::Object(_))) {
            s.insert("hGroups".into(), Value::Object(Map::new()));
        }
        s.insert("groups".into(), json!(groups));
        for (name, rule) in &self.groups {
            if !rule.eval_with(s, env) {
                continue;
            }
            groups.push_str(&self.separator);
            groups.push_str(name);
            s.insert("groups".into(), json!(groups));
            if let Some(Value::Object(h)) = s.get_mut("hGroups") {
                h.insert(name.clone(), json!({ "name": name }));
            }
        }
        if let Some(rest) = groups.strip_prefix(self.separator.as_str()) {
            s.insert("groups".into(), json!(rest));
        }
    }
}

/// The problems `limette config check` reports: one (key path, one-line reason) per macro or
/// group expression outside the supported subset, e.g. `("macros/UA", "...")`.
pub fn check_macros_and_groups(raw: &Map<String, Value>) -> Vec<(String, String)> {
    compile(raw).1
}

/// The request variables expressions see as `$ENV{...}`.
pub fn request_env(req: &Request) -> Env {
    Env::from_request(
        req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        &req.ip(),
    )
}

/// Compiles everything it can and lists what it cannot.
fn compile(raw: &Map<String, Value>) -> (Compiled, Vec<(String, String)>) {
    let mut problems = Vec::new();
    let macros = compile_table(raw, "macros", Expression::parse, &mut problems);
    let groups = compile_table(raw, "groups", Rule::parse, &mut problems);
    let separator = match raw.get("multiValuesSeparator") {
        None | Some(Value::Null) => DEFAULT_SEPARATOR.to_string(),
        Some(v) => value_string(v),
    };
    let compiled = Compiled {
        macros,
        groups,
        separator,
        groups_before_macros: crate::config::truthy(raw.get("groupsBeforeMacros")),
    };
    (compiled, problems)
}

/// One table (name -> expression text), compiled with `parse`, sorted by name.
fn compile_table<T>(
    raw: &Map<String, Value>,
    key: &str,
    parse: fn(&str) -> Result<T, String>,
    problems: &mut Vec<(String, String)>,
) -> Vec<(String, T)> {
    let table = match raw.get(key) {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Object(t)) => t,
        Some(_) => {
            problems.push((key.to_string(), "not an object".into()));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (name, v) in table {
        let path = format!("{key}/{name}");
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(_) | Value::Bool(_) => value_string(v),
            _ => {
                problems.push((path, "not a string".into()));
                continue;
            }
        };
        match parse(&text) {
            Ok(compiled) => out.push((name.clone(), compiled)),
            Err(e) => problems.push((
                path,
                format!("not in the supported expression subset ({e})"),
            )),
        }
    }
    crate::util::sort::sort_by(&mut out, |a, b| a.0.cmp(&b.0));
    out
}

impl crate::config::AreaSettings for Compiled {
    fn from_conf(raw: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        Ok(Compiled::from_conf(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn macros_run_in_sorted_order_and_see_earlier_ones() {
        let c = Compiled::from_conf(&map(json!({"macros": {
            "b": "$a . '-b'", "a": "uc($uid)", "c": "$z", "z": "'late'", "uid": "$missing"
        }})));
        let mut s = map(json!({"uid": "dwho", "c": "old"}));
        c.apply_macros(&mut s, Env::empty());
        assert_eq!(s.get("a"), Some(&json!("DWHO")));
        assert_eq!(s.get("b"), Some(&json!("DWHO-b")));
        assert_eq!(s.get("c"), None, "z runs after c: undefined, so removed");
        assert_eq!(s.get("uid"), None, "an undefined macro removes the key");
        assert_eq!(s.get("z"), Some(&json!("late")));
    }

    #[test]
    fn groups_append_to_directory_groups() {
        let c = Compiled::from_conf(&map(json!({"groups": {
            "admins": "$uid eq 'dwho'", "b_after": "inGroup('admins')", "never": "0"
        }})));
        let mut s =
            map(json!({"uid": "dwho", "groups": "users", "hGroups": {"users": {"name": "users"}}}));
        c.apply_groups(&mut s, Env::empty());
        assert_eq!(s["groups"], json!("users; admins; b_after"));
        assert_eq!(
            s["hGroups"],
            json!({"users": {"name": "users"}, "admins": {"name": "admins"}, "b_after": {"name": "b_after"}})
        );
        let sep = Compiled::from_conf(&map(json!({"multiValuesSeparator": "|",
            "groups": {"admins": "1"}})));
        let mut s = map(json!({}));
        sep.apply_groups(&mut s, Env::empty());
        assert_eq!(
            s["groups"],
            json!("admins"),
            "the leading separator is removed"
        );
        let mut s = map(json!({}));
        Compiled::from_conf(&Map::new()).apply_groups(&mut s, Env::empty());
        assert_eq!((&s["groups"], &s["hGroups"]), (&json!(""), &json!({})));
    }

    #[test]
    fn problems_name_the_key() {
        let raw = map(json!({
            "macros": {"ok": "lc($uid)", "bad": "encode_base64($uid)", "obj": {"a": 1}},
            "groups": {"g": "$uid eq", "fine": "accept"}
        }));
        let p = check_macros_and_groups(&raw);
        let keys: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["macros/bad", "macros/obj", "groups/g"]);
        assert!(
            p[0].1.contains("unknown word 'encode_base64'"),
            "{}",
            p[0].1
        );
        let c = Compiled::from_conf(&raw);
        assert!(c.has_macro("ok") && !c.has_macro("bad"));
        let p = check_macros_and_groups(&map(json!({"macros": "x"})));
        assert_eq!(p, vec![("macros".to_string(), "not an object".to_string())]);
        assert!(check_macros_and_groups(&Map::new()).is_empty());
    }
}
