//! One virtual host as LemonLDAP::NG's handler compiles it (`Handler::Main::Reload`): its
//! `locationRules` (keys other than `default` tried in Perl's sorted order, the first regex
//! that matches the access-control URI decides; `(?#...)` comments order them and
//! `(?#AuthnLevel=N)` asks a level), its special rules, its `exportedHeaders` (value
//! expressions, an empty one sending an empty value) and its `vhostOptions`. Anything that
//! does not compile (a regex, a rule outside the rules language, a header expression or name)
//! makes the whole virtual host deny every request, with a finding naming the key.
use crate::rules::{Expression, Rule};
use regex_lite::Regex;
use serde_json::{Map, Value};

/// What a location rule does (LemonLDAP::NG's `conditionSub`).
#[derive(Debug, Clone)]
pub enum Access {
    /// `accept`, `deny` or an expression over the session.
    Rule(Rule),
    /// `unprotect`: no session needed; a session there gets its headers.
    Unprotect,
    /// `skip`: no session looked at, no headers.
    Skip,
    /// `logout_sso [url]` (also `logout [url]` and, see the guide, `logout_app_sso [url]`):
    /// the SSO session ends, then the portal sends the browser to the URL (the portal's).
    Logout(Option<String>),
}

/// One compiled `locationRules` key.
#[derive(Debug, Clone)]
pub struct Location {
    /// The path regex, comments removed.
    pub re: Regex,
    /// Its rule.
    pub access: Access,
    /// `(?#AuthnLevel=N)` in the key.
    pub level: Option<i64>,
}

/// The `vhostOptions` that change the handler's answer; `None`: the global value.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `vhostHttps` (-1: global `https`, then the request's scheme).
    pub https: Option<bool>,
    /// `vhostPort` (-1: global `port`, then the request's port).
    pub port: Option<u16>,
    /// `vhostMaintenance` (-1 or unset: global `maintenance`).
    pub maintenance: Option<bool>,
    /// `vhostAuthnLevel`: the least `authenticationLevel` a session needs here.
    pub authn_level: Option<i64>,
}

/// A compiled virtual host.
#[derive(Debug, Clone)]
pub struct Vhost {
    /// Its locations, in evaluation order.
    pub locations: Vec<Location>,
    /// The `default` rule (deny when absent).
    pub default: Access,
    /// Exported headers by name, sorted; `None`: an empty value.
    pub headers: Vec<(String, Option<Expression>)>,
    /// Its options.
    pub options: Options,
    /// Why it denies everything, when something did not compile.
    pub broken: Vec<String>,
}

impl Vhost {
    /// The location that decides for `uri`: its access and level, or the default's.
    pub fn route(&self, uri: &str) -> (&Access, Option<i64>) {
        match self.locations.iter().find(|l| l.re.is_match(uri)) {
            Some(l) => (&l.access, l.level),
            None => (&self.default, None),
        }
    }
}

/// Compiles the virtual host `host` from its rules, headers and options.
pub fn compile(
    host: &str,
    rules: Option<&Value>,
    headers: Option<&Value>,
    options: Options,
) -> Vhost {
    let mut broken = Vec::new();
    let empty = Map::new();
    let rules = match rules {
        Some(Value::Object(m)) => m,
        _ => {
            broken.push(format!("locationRules/{host}: not a hash of rules"));
            &empty
        }
    };
    let locations = compile_locations(host, rules, &mut broken);
    let default = match rules.get("default").map(crate::config::value_string) {
        None => Access::Rule(Rule::deny()),
        Some(src) => parse_access(&src).unwrap_or_else(|e| {
            broken.push(format!(
                "locationRules/{host}/default: rule {src:?} does not parse ({e})"
            ));
            Access::Rule(Rule::deny())
        }),
    };
    let headers = compile_headers(host, headers, &mut broken);
    Vhost {
        locations,
        default,
        headers,
        options,
        broken,
    }
}

/// The keys other than `default`, in Perl's sorted order; each that does not compile is said
/// in `broken`.
fn compile_locations(
    host: &str,
    rules: &Map<String, Value>,
    broken: &mut Vec<String>,
) -> Vec<Location> {
    let mut keys: Vec<&String> = rules.keys().filter(|k| *k != "default").collect();
    crate::util::sort::sort(&mut keys);
    let mut locations = Vec::new();
    for key in keys {
        let src = crate::config::value_string(&rules[key.as_str()]);
        let access = parse_access(&src);
        let re = Regex::new(&strip_comments(key));
        match (re, access) {
            (Ok(re), Ok(access)) => locations.push(Location {
                re,
                access,
                level: authn_level(key),
            }),
            (Err(e), _) => broken.push(format!(
                "locationRules/{host}/{key}: the regular expression does not compile ({e})"
            )),
            (_, Err(e)) => broken.push(format!(
                "locationRules/{host}/{key}: rule {src:?} does not parse ({e})"
            )),
        }
    }
    locations
}

/// A rule's text as LemonLDAP::NG's `conditionSub` reads it: a trailing `(?#N)` dropped, the
/// special words case-insensitive, anything else a rule of the rules language.
pub fn parse_access(src: &str) -> Result<Access, String> {
    let mut text = src.trim();
    if let Some(i) = text.rfind("(?#") {
        let tail = &text[i + 3..];
        let digits = tail.strip_suffix(')').unwrap_or("");
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            text = text[..i].trim_end();
        }
    }
    let lower = text.to_ascii_lowercase();
    let (word, rest) = match lower.split_once(char::is_whitespace) {
        Some((w, _)) => (w, text[w.len()..].trim()),
        None => (lower.as_str(), ""),
    };
    let url = (!rest.is_empty()).then(|| rest.to_string());
    Ok(match word {
        "accept" if rest.is_empty() => Access::Rule(Rule::accept()),
        "deny" if rest.is_empty() => Access::Rule(Rule::deny()),
        "unprotect" if rest.is_empty() => Access::Unprotect,
        "skip" if rest.is_empty() => Access::Skip,
        "logout" | "logout_sso" | "logout_app_sso" => Access::Logout(url),
        // LemonLDAP::NG's handlers other than Apache's accept `logout_app` (they cannot
        // replace the application's answer): the application's own logout runs.
        "logout_app" => Access::Rule(Rule::accept()),
        _ => Access::Rule(Rule::parse(text)?),
    })
}

/// The exported headers of a virtual host, sorted by name.
fn compile_headers(
    host: &str,
    raw: Option<&Value>,
    broken: &mut Vec<String>,
) -> Vec<(String, Option<Expression>)> {
    let Some(Value::Object(map)) = raw else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, v) in map {
        if !is_token(name) {
            broken.push(format!("exportedHeaders/{host}/{name}: not a header name"));
            continue;
        }
        let src = crate::config::value_string(v);
        if src.trim().is_empty() {
            out.push((name.clone(), None));
            continue;
        }
        match Expression::parse(&src) {
            Ok(e) => out.push((name.clone(), Some(e))),
            Err(e) => broken.push(format!(
                "exportedHeaders/{host}/{name}: {src:?} does not parse ({e})"
            )),
        }
    }
    crate::util::sort::sort_by(&mut out, |a, b| a.0.cmp(&b.0));
    out
}

/// An HTTP header name (RFC 9110 §5.6.2 token).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The key without its `(?#...)` comments (the regex engine has none; they only order keys
/// and carry `AuthnLevel`).
fn strip_comments(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut rest = key;
    while let Some(i) = rest.find("(?#") {
        out.push_str(&rest[..i]);
        match rest[i..].find(')') {
            // `j` indexes the one-byte ')': `j + 1` is a char boundary.
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `(?#AuthnLevel=N)` in a key.
fn authn_level(key: &str) -> Option<i64> {
    let tail = key.split("(?#AuthnLevel=").nth(1)?;
    tail.split(')').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn special_rules_and_comments() {
        let kind = |s: &str| match parse_access(s) {
            Ok(Access::Rule(r)) => format!("rule:{}", r.eval(&Map::new())),
            Ok(Access::Unprotect) => "unprotect".into(),
            Ok(Access::Skip) => "skip".into(),
            Ok(Access::Logout(u)) => format!("logout:{}", u.unwrap_or_default()),
            Err(_) => "error".into(),
        };
        assert_eq!(kind("Accept"), "rule:true");
        assert_eq!(kind("deny(?#3)"), "rule:false");
        assert_eq!(kind("SKIP"), "skip");
        assert_eq!(kind("unprotect"), "unprotect");
        assert_eq!(kind("logout_sso"), "logout:");
        assert_eq!(
            kind("logout_sso https://x.example/bye"),
            "logout:https://x.example/bye"
        );
        assert_eq!(kind("logout_app_sso"), "logout:");
        assert_eq!(kind("logout_app"), "rule:true");
        assert_eq!(kind("$uid eq"), "error");
        assert_eq!(strip_comments("(?#1)^/a(?#AuthnLevel=3)b"), "^/ab");
        assert_eq!(authn_level("^/a(?#AuthnLevel=3)"), Some(3));
    }

    #[test]
    fn order_levels_and_broken_rules() {
        let v = compile(
            "h",
            Some(
                &json!({"(?#2)^/a": "deny", "(?#1)^/ab": "skip", "^/x(?#AuthnLevel=5)": "accept", "default": "unprotect"}),
            ),
            Some(&json!({"Auth-User": "$uid", "Empty": ""})),
            Options::default(),
        );
        assert!(v.broken.is_empty(), "{:?}", v.broken);
        assert!(matches!(v.route("/abc").0, Access::Skip));
        assert!(matches!(v.route("/a").0, Access::Rule(_)));
        assert_eq!(v.route("/x").1, Some(5));
        assert!(matches!(v.route("/other").0, Access::Unprotect));
        assert_eq!(v.headers[0].0, "Auth-User");
        let bad = compile(
            "h",
            Some(&json!({"^/b": "$uid eq", "(": "accept"})),
            Some(&json!({"Bad Name": "$uid", "X": "$uid eq"})),
            Options::default(),
        );
        assert_eq!(bad.broken.len(), 4, "{:?}", bad.broken);
        assert!(bad.broken.iter().any(|b| b.contains("locationRules/h/^/b")));
    }
}
