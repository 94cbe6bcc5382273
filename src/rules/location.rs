//! `locationRules`: per virtual host, an ordered list of (path regex, rule) and a default, as
//! LemonLDAP::NG's handler compiles them: keys other than `default` are tried in sorted order
//! (a leading `(?#comment)` exists to steer that order), the first regex that matches the path
//! decides, `default` (deny when absent) otherwise. Compiled once per configuration
//! ([`Rules`], kept with it); a key or rule that does not compile is logged and denies. Both
//! `/mysession?authorizationfor` and the portal's menu of applications ask [`Rules::allows`].
use super::{Env, Rule};
use crate::log;
use regex_lite::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The compiled `locationRules` of a configuration (`Conf::area`), by lowercase virtual host.
#[derive(Debug, Default)]
pub struct Rules(pub HashMap<String, VhostRules>);

impl crate::config::AreaSettings for Rules {
    fn from_conf(raw: &Map<String, Value>) -> Result<Self, String> {
        Ok(Rules(compile_all(raw.get("locationRules"))))
    }
}

impl Rules {
    /// Whether the user with these attributes may reach the absolute `url` (false for a URL
    /// that does not parse or names an unknown virtual host).
    pub fn allows(&self, url: &str, attrs: &Map<String, Value>, env: &Env) -> bool {
        Url::parse(url).is_some_and(|u| authorize(&self.0, &u, attrs, env))
    }
}

/// What a location rule says.
#[derive(Debug, Clone)]
pub enum Access {
    /// `accept`, `deny` or an expression over the user's session.
    Rule(Rule),
    /// `unprotect` / `skip`: no session needed, always allowed.
    Open,
    /// `logout_sso`, `logout_app`, `logout_app_sso`: the handler logs out; never "authorized".
    Logout,
}

impl Access {
    fn parse(where_: &str, src: &str) -> Access {
        let word = src.trim();
        let lower = word.to_ascii_lowercase();
        if lower == "unprotect" || lower == "skip" {
            return Access::Open;
        }
        if lower.starts_with("logout_sso") || lower.starts_with("logout_app") {
            return Access::Logout;
        }
        match Rule::parse(word) {
            Ok(r) => Access::Rule(r),
            Err(e) => {
                log::error(&format!(
                    "locationRules {where_}: rule does not parse ({e}): denied"
                ));
                Access::Rule(Rule::deny())
            }
        }
    }

    fn allows(&self, attrs: &Map<String, Value>, env: &Env) -> bool {
        match self {
            Access::Rule(r) => r.eval_with(attrs, env),
            Access::Open => true,
            Access::Logout => false,
        }
    }
}

/// The compiled rules of one virtual host.
#[derive(Debug, Clone)]
pub struct VhostRules {
    /// (path regex, rule), in evaluation order. `None` regex: a key that did not compile,
    /// which matches every path and denies.
    entries: Vec<(Option<Regex>, Access)>,
    default: Access,
}

/// Compiles `locationRules` (an object of virtual host -> object of key -> rule).
pub fn compile_all(raw: Option<&Value>) -> HashMap<String, VhostRules> {
    let mut out = HashMap::new();
    if let Some(Value::Object(hosts)) = raw {
        for (host, rules) in hosts {
            if let Value::Object(rules) = rules {
                out.insert(host.to_ascii_lowercase(), compile(host, rules));
            } else {
                log::error(&format!(
                    "locationRules {host}: not an object: every path denied"
                ));
                out.insert(host.to_ascii_lowercase(), VhostRules::deny_all());
            }
        }
    }
    out
}

fn compile(host: &str, rules: &Map<String, Value>) -> VhostRules {
    let mut keys: Vec<&String> = rules.keys().filter(|k| *k != "default").collect();
    crate::util::sort::sort(&mut keys);
    let text = |v: &Value| crate::config::value_string(v);
    let entries = keys
        .into_iter()
        .map(|k| {
            let where_ = format!("{host} {k}");
            let re = Regex::new(strip_comment(k)).map_err(|e| {
                log::error(&format!(
                    "locationRules {where_}: bad regular expression ({e}): denied"
                ));
            });
            match re {
                Ok(re) => {
                    let src = rules.get(k.as_str()).map(text).unwrap_or_default();
                    (Some(re), Access::parse(&where_, &src))
                }
                Err(()) => (None, Access::Rule(Rule::deny())),
            }
        })
        .collect();
    let default = match rules.get("default") {
        Some(v) => Access::parse(&format!("{host} default"), &text(v)),
        None => Access::Rule(Rule::deny()),
    };
    VhostRules { entries, default }
}

impl VhostRules {
    fn deny_all() -> VhostRules {
        VhostRules {
            entries: Vec::new(),
            default: Access::Rule(Rule::deny()),
        }
    }

    /// Whether the user with these attributes may reach `path` (path and query); `env` is
    /// what `$ENV{...}` reads.
    pub fn allows(&self, path: &str, attrs: &Map<String, Value>, env: &Env) -> bool {
        for (re, access) in &self.entries {
            match re {
                Some(re) if !re.is_match(path) => continue,
                _ => return access.allows(attrs, env),
            }
        }
        self.default.allows(attrs, env)
    }
}

/// Removes leading `(?#...)` comments, which only order the keys.
fn strip_comment(key: &str) -> &str {
    let mut k = key;
    while let Some(rest) = k.strip_prefix("(?#") {
        match rest.find(')') {
            // `i` is the byte index of the one-byte ')', so `i + 1` is a char boundary.
            Some(i) => k = &rest[i + 1..],
            None => break,
        }
    }
    k
}

/// The authorization answer for a full URL: its host's rules, path and query; false for an
/// unknown host (a `host:port` is a different virtual host, as in LemonLDAP::NG).
pub fn authorize(
    vhosts: &HashMap<String, VhostRules>,
    url: &Url,
    attrs: &Map<String, Value>,
    env: &Env,
) -> bool {
    match vhosts.get(&url.host) {
        Some(rules) => rules.allows(&url.path, attrs, env),
        None => false,
    }
}

/// The parts of an absolute http(s) URL that rules look at.
#[derive(Debug, PartialEq)]
pub struct Url {
    /// Lowercase host, with `:port` when one was written.
    pub host: String,
    /// Path and query, `/` at least.
    pub path: String,
}

impl Url {
    /// Parses `http(s)://host[:port][/path][?query]`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Url> {
        let rest = s
            .strip_prefix("http://")
            .or_else(|| s.strip_prefix("https://"))?;
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (host, tail) = rest.split_at(end);
        let host = host.rsplit_once('@').map(|(_, h)| h).unwrap_or(host);
        let valid = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'_');
        if host.is_empty() || !host.bytes().all(valid) {
            return None;
        }
        let tail = tail.split('#').next().unwrap_or("");
        let path = if tail.starts_with('/') {
            tail.to_string()
        } else {
            format!("/{tail}")
        };
        Some(Url {
            host: host.to_ascii_lowercase(),
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vhosts() -> HashMap<String, VhostRules> {
        compile_all(Some(&json!({
            "test1.example.com": {
                "^/admin": "inGroup(\"timelords\")",
                "^/deny": "deny",
                "^/open": "unprotect",
                "^/bye": "logout_sso",
                "(?#1)^/ordered": "deny",
                "(?#2)^/ord": "accept",
                "^/broken": "$uid eq",
                "default": "accept"
            },
            "strict.example.com": {"^/public": "accept"},
            "Bad.example.com": {"(": "accept", "default": "accept"}
        })))
    }

    fn user(uid: &str, groups: &str) -> Map<String, Value> {
        let Value::Object(m) = json!({"uid": uid, "groups": groups}) else {
            unreachable!()
        };
        m
    }

    #[test]
    fn decisions() {
        let v = vhosts();
        let dwho = user("dwho", "timelords; users");
        let rtyler = user("rtyler", "users");
        let url = |s: &str| Url::parse(s).unwrap();
        let cases = [
            ("http://test1.example.com/", &dwho, true),
            ("http://test1.example.com/admin/x", &dwho, true),
            ("http://test1.example.com/admin/x", &rtyler, false),
            ("http://test1.example.com/deny", &dwho, false),
            ("http://test1.example.com/open", &rtyler, true),
            ("http://test1.example.com/bye", &dwho, false),
            ("http://test1.example.com/ordered", &dwho, false),
            ("http://test1.example.com/ord", &dwho, true),
            ("http://test1.example.com/broken", &dwho, false),
            ("https://TEST1.example.com?x=1", &dwho, true),
            ("http://test1.example.com:8080/", &dwho, false),
            ("http://unknown.example.com/", &dwho, false),
            ("http://strict.example.com/public", &dwho, true),
            ("http://strict.example.com/other", &dwho, false),
            ("http://bad.example.com/anything", &dwho, false),
        ];
        for (u, who, want) in cases {
            assert_eq!(authorize(&v, &url(u), who, Env::empty()), want, "{u}");
        }
    }

    #[test]
    fn urls() {
        assert_eq!(
            Url::parse("http://a.b:81/x?y#z"),
            Some(Url {
                host: "a.b:81".into(),
                path: "/x?y".into()
            })
        );
        for bad in [
            "notanurl",
            "ftp://a/",
            "http://",
            "http:// a/",
            "http://a b/",
        ] {
            assert_eq!(Url::parse(bad), None, "{bad}");
        }
    }
}
