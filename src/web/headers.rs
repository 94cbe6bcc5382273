//! The security headers of every answer, as LemonLDAP::NG 2.16's portal builds them from its
//! keys (`Portal/Main/Init.pm` for the fetch directives, `Portal/Main/Run.pm::sendHtml` for the
//! rest):
//!
//! - pages (`text/html`): `Content-Security-Policy` = `default-src`, `img-src`, `style-src`,
//!   `font-src`, `connect-src`, `script-src` from `cspDefault` ... `cspScript` (an empty key
//!   leaves its directive out), `form-action` from `cspFormAction` plus the origin of the URL
//!   the page's form leads to (`Response::with_form_target`, LemonLDAP::NG's `urldc`), and
//!   `frame-src` with exactly the origins of the iframes a page loads (the front-channel logout
//!   URLs of relying parties, `Response::with_frame_sources`) when it loads any, and
//!   `frame-ancestors`: `cspFrameAncestors` when set, else `'none'` (with `X-Frame-Options:
//!   DENY`) unless `portalAntiFrame` is 0; a page that relying parties embed names its own
//!   framers instead (`Response::with_frame_ancestors`: OpenID Connect Session Management's
//!   check-session page) and gets no `X-Frame-Options`;
//! - every answer: `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin`
//!   (LemonLDAP::NG sends none), `Cache-Control: no-store` (with `Pragma` and `Expires`)
//!   unless the handler chose its own caching (the static files), and
//!   `Strict-Transport-Security: max-age=<strictTransportSecurityMax_Age>` when the portal URL
//!   is https and the client came over https (a trusted proxy's `X-Forwarded-Proto` says so;
//!   RFC 6797 §7.2 forbids the header on plain http).
//!
//! Not sent: `X-XSS-Protection` (browsers dropped the filter it steered; OWASP advises against
//! it) and `X-Frame-Options: ALLOW-FROM`, which LemonLDAP::NG sends with `cspFrameAncestors`
//! and browsers ignore with a console error: `frame-ancestors` says it.
//!
//! The settings are parsed once per configuration (`Conf::area`) and refused, naming the key,
//! when a value cannot go into a header. The router applies them to whatever a handler or the
//! error table answered (`apply`), so no page can miss them.
use crate::config::{value_string, AreaSettings};
use crate::http::response::HeaderText;
use crate::http::Response;
use serde_json::{Map, Value};

/// The fetch directives and the keys they come from, in LemonLDAP::NG's order.
const FETCH: [(&str, &str); 6] = [
    ("default-src", "cspDefault"),
    ("img-src", "cspImg"),
    ("style-src", "cspStyle"),
    ("font-src", "cspFont"),
    ("connect-src", "cspConnect"),
    ("script-src", "cspScript"),
];

/// The caching headers of a dynamic answer (LemonLDAP::NG's, on pages and JSON alike).
const NO_STORE: [(&str, &str); 3] = [
    ("Cache-Control", "no-cache, no-store, must-revalidate"),
    ("Pragma", "no-cache"),
    ("Expires", "0"),
];

/// The header settings of one configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// `default-src ...;img-src ...;` and so on: the directives every page shares.
    fetch: String,
    /// `cspFormAction` (the origins a page's form leads to are added per page).
    form_action: String,
    /// The `frame-ancestors` sources, when the directive is sent.
    frame_ancestors: Option<String>,
    /// `X-Frame-Options: DENY` (portalAntiFrame without cspFrameAncestors).
    frame_deny: bool,
    /// `max-age` of `Strict-Transport-Security` (only with an https portal URL).
    hsts: Option<u64>,
}

impl Default for Policy {
    /// LemonLDAP::NG's defaults (`Common/Conf/DefaultValues.pm`) on an http portal.
    fn default() -> Policy {
        Policy {
            fetch: "default-src 'self';img-src 'self' data:;style-src 'self';font-src 'self';\
                    connect-src 'self';script-src 'self';"
                .into(),
            form_action: "*".into(),
            frame_ancestors: Some("'none'".into()),
            frame_deny: true,
            hsts: None,
        }
    }
}

impl AreaSettings for Policy {
    fn from_conf(raw: &Map<String, Value>) -> Result<Policy, String> {
        let text = |key: &str| -> Result<String, String> {
            let v = raw.get(key).map(value_string).unwrap_or_default();
            if v.chars().any(char::is_control) {
                return Err(format!(
                    "{key} = {v:?} is not supported (a control character cannot go into a header)"
                ));
            }
            Ok(v.trim().to_string())
        };
        let mut fetch = String::new();
        for (directive, key) in FETCH {
            let v = text(key)?;
            if !v.is_empty() {
                fetch.push_str(&format!("{directive} {v};"));
            }
        }
        let ancestors = text("cspFrameAncestors")?;
        let anti_frame = crate::config::truthy(raw.get("portalAntiFrame"));
        let (frame_ancestors, frame_deny) = if !ancestors.is_empty() {
            (Some(ancestors), false)
        } else if anti_frame {
            (Some("'none'".to_string()), true)
        } else {
            (None, false)
        };
        let https = text("portal")?.to_ascii_lowercase().starts_with("https://");
        Ok(Policy {
            fetch,
            form_action: text("cspFormAction")?,
            frame_ancestors,
            frame_deny,
            hsts: hsts_max_age(&text("strictTransportSecurityMax_Age")?)?.filter(|_| https),
        })
    }
}

/// `strictTransportSecurityMax_Age`: seconds; empty or 0 sends no header (as LemonLDAP::NG,
/// which tests the value for truth).
fn hsts_max_age(v: &str) -> Result<Option<u64>, String> {
    match v {
        "" | "0" => Ok(None),
        v => v.parse::<u64>().map(Some).map_err(|_| {
            format!("strictTransportSecurityMax_Age = {v} is not supported (expected seconds)")
        }),
    }
}

impl Policy {
    /// The `Content-Security-Policy` of a page whose forms lead to `targets` (origins), whose
    /// iframes load from `frames` (origins: exactly those in `frame-src`, sent only then), and
    /// which names its own framers when `own` is given (none: `'none'`).
    pub fn csp(&self, targets: &[String], frames: &[String], own: Option<&[String]>) -> String {
        let mut csp = format!("{}form-action {}", self.fetch, self.form_action);
        for t in targets {
            csp.push(' ');
            csp.push_str(t);
        }
        csp.push(';');
        if !frames.is_empty() {
            csp.push_str(&format!("frame-src {};", frames.join(" ")));
        }
        match own {
            Some([]) => csp.push_str("frame-ancestors 'none';"),
            Some(origins) => csp.push_str(&format!("frame-ancestors {};", origins.join(" "))),
            None => {
                if let Some(a) = &self.frame_ancestors {
                    csp.push_str(&format!("frame-ancestors {a};"));
                }
            }
        }
        csp
    }
}

/// Adds the headers to an answer; `https` says whether the client reached the portal over
/// https (for `Strict-Transport-Security`).
pub fn apply(policy: &Policy, resp: &mut Response, https: bool) {
    let page = resp
        .header("Content-Type")
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/html"));
    let own_caching = resp.header("Cache-Control").is_some();
    add(resp, "X-Content-Type-Options", "nosniff".into());
    add(resp, "Referrer-Policy", "same-origin".into());
    if let (Some(age), true) = (policy.hsts, https) {
        add(
            resp,
            "Strict-Transport-Security",
            format!("max-age={age}").into(),
        );
    }
    if !own_caching {
        for (k, v) in NO_STORE {
            add(resp, k, v.into());
        }
    }
    if page {
        let csp = policy.csp(
            &resp.form_targets,
            &resp.frame_sources,
            resp.frame_ancestors.as_deref(),
        );
        add(resp, "Content-Security-Policy", csp.into());
        if policy.frame_deny && resp.frame_ancestors.is_none() {
            add(resp, "X-Frame-Options", "DENY".into());
        }
    }
}

/// Adds a header the handler did not set itself.
fn add(resp: &mut Response, name: &'static str, value: HeaderText) {
    if resp.header(name).is_none() {
        resp.headers.push((name.into(), value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(v: Value) -> Result<Policy, String> {
        let mut raw = crate::config::defaults::defaults();
        raw.insert("portal".into(), json!("http://auth.example.com/"));
        for (k, v) in v.as_object().unwrap() {
            raw.insert(k.clone(), v.clone());
        }
        Policy::from_conf(&raw)
    }

    #[test]
    fn the_defaults_give_lemonldap_ngs_policy() {
        let p = policy(json!({})).unwrap();
        assert_eq!(p, Policy::default());
        assert_eq!(
            p.csp(&[], &[], None),
            "default-src 'self';img-src 'self' data:;style-src 'self';font-src 'self';\
             connect-src 'self';script-src 'self';form-action *;frame-ancestors 'none';"
        );
        let csp = p.csp(&["https://app.example.com".into()], &[], None);
        assert!(
            csp.contains("form-action * https://app.example.com;"),
            "{csp}"
        );
        let frames = ["https://a.example".to_string(), "http://b:8080".to_string()];
        let csp = p.csp(&[], &frames, None);
        assert!(
            csp.contains("frame-src https://a.example http://b:8080;"),
            "{csp}"
        );
    }

    #[test]
    fn the_defaults_are_lemonldap_ngs() {
        let keys = crate::config::support::llng_keys();
        let ours = crate::config::defaults::defaults();
        for (_, key) in FETCH {
            assert_eq!(
                Some(&ours[key]),
                keys.get(key).unwrap().default().as_ref(),
                "{key}"
            );
        }
        for key in ["cspFormAction", "cspFrameAncestors", "portalAntiFrame"] {
            assert_eq!(
                Some(&ours[key]),
                keys.get(key).unwrap().default().as_ref(),
                "{key}"
            );
        }
    }

    #[test]
    fn keys_change_the_policy() {
        let p =
            policy(json!({"cspScript": "'self' https://cdn.example.com", "cspFont": ""})).unwrap();
        let csp = p.csp(&[], &[], None);
        assert!(
            csp.contains("script-src 'self' https://cdn.example.com;"),
            "{csp}"
        );
        assert!(!csp.contains("font-src"), "{csp}");
        let p = policy(json!({"portalAntiFrame": 0})).unwrap();
        assert!(!p.csp(&[], &[], None).contains("frame-ancestors") && !p.frame_deny);
        let p = policy(json!({"cspFrameAncestors": "https://a.example.com"})).unwrap();
        assert!(p
            .csp(&[], &[], None)
            .ends_with("frame-ancestors https://a.example.com;"));
        assert!(!p.frame_deny);
    }

    #[test]
    fn hsts_needs_an_https_portal_and_seconds() {
        let age = json!({"strictTransportSecurityMax_Age": "31536000"});
        assert_eq!(policy(age.clone()).unwrap().hsts, None);
        let mut https = age.clone();
        https["portal"] = json!("https://auth.example.com/");
        assert_eq!(policy(https).unwrap().hsts, Some(31_536_000));
        let e = policy(json!({"strictTransportSecurityMax_Age": "a year"})).unwrap_err();
        assert!(
            e.starts_with("strictTransportSecurityMax_Age = a year"),
            "{e}"
        );
        let e = policy(json!({"cspScript": "'self'\r\nSet-Cookie: x=1"})).unwrap_err();
        assert!(e.starts_with("cspScript = "), "{e}");
    }

    #[test]
    fn apply_adds_page_headers_to_pages_only() {
        let p = Policy::default();
        let mut page = Response::html(200, "<p>x</p>");
        apply(&p, &mut page, true);
        assert!(page.header("content-security-policy").is_some());
        assert_eq!(page.header("x-frame-options"), Some("DENY"));
        assert_eq!(page.header("strict-transport-security"), None);
        let mut asset = Response::bytes(200, "text/css", "x")
            .with_header("Cache-Control", "public, max-age=3600");
        apply(&p, &mut asset, false);
        assert_eq!(asset.header("content-security-policy"), None);
        assert_eq!(asset.header("cache-control"), Some("public, max-age=3600"));
        assert_eq!(asset.header("x-content-type-options"), Some("nosniff"));
    }

    #[test]
    fn a_page_may_name_its_own_framers() {
        let p = Policy::default();
        let rps = [
            "https://rp.example/cb".to_string(),
            "http://b:8080/x".into(),
        ];
        let mut page = Response::html(200, "<p>x</p>").with_frame_ancestors(&rps);
        apply(&p, &mut page, false);
        let csp = page.header("content-security-policy").unwrap();
        assert!(
            csp.ends_with("frame-ancestors https://rp.example http://b:8080;"),
            "{csp}"
        );
        assert_eq!(page.header("x-frame-options"), None);
        let mut none = Response::html(200, "<p>x</p>").with_frame_ancestors(&[]);
        apply(&p, &mut none, false);
        let csp = none.header("content-security-policy").unwrap();
        assert!(csp.ends_with("frame-ancestors 'none';"), "{csp}");
    }
}
