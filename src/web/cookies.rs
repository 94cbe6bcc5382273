//! The SSO cookie as the contract fixes it: `<cookieName>=<id>; path=/; HttpOnly; SameSite=Lax`,
//! `domain=` when configured, `Secure` when `securedCookie` is on; as LemonLDAP::NG's
//! `cookie()`, `HttpOnly` follows `httpOnly` and `SameSite` follows `sameSite` (empty: `Lax`).
//! The portal's own cookies (a login held back) follow `sameSite` and `securedCookie` and are
//! always `HttpOnly`: no script of the portal reads them.
//!
//! Beside the SSO cookie, always set and cleared with it, goes the browser-state cookie
//! `<cookieName>opbs` (OpenID Connect Session Management 1.0, section 3; LemonLDAP::NG 2.16
//! has none: its check-session script reads the SSO cookie itself, which `httpOnly` hides). It
//! carries `sso::browser_state` of the session, never its id, and is never `HttpOnly`: the
//! check-session page's script reads it. Otherwise it is the SSO cookie's twin (domain,
//! `SameSite`, `Secure`).
use crate::config::Conf;
use crate::http::Request;

/// The suffix of the browser-state cookie's name: `<cookieName>opbs`.
pub const BROWSER_STATE: &str = "opbs";

/// The cookies of a session: the SSO cookie with its id, the browser-state cookie with
/// `browser_state` (`sso::browser_state` of that id).
pub fn sso(conf: &Conf, id: &str, browser_state: &str) -> [String; 2] {
    [
        named(conf, &conf.cookie_name, id, None, conf.http_only),
        named(conf, &state_name(conf), browser_state, None, false),
    ]
}

/// The session id the request's SSO cookie carries; `None` without one (or with the cleared
/// value `0`).
pub fn sso_id(conf: &Conf, req: &Request) -> Option<String> {
    req.cookie(&conf.cookie_name)
        .filter(|v| !v.is_empty() && v != "0")
}

/// The cookies that clear the SSO cookie and the browser-state cookie.
pub fn clear_sso(conf: &Conf) -> [String; 2] {
    let past = Some("Wed, 21 Oct 2015 00:00:00 GMT");
    [
        named(conf, &conf.cookie_name, "0", past, conf.http_only),
        named(conf, &state_name(conf), "0", past, false),
    ]
}

/// The browser-state cookie's name.
pub fn state_name(conf: &Conf) -> String {
    format!("{}{BROWSER_STATE}", conf.cookie_name)
}

/// A cookie of the portal's own (pending login, ...), host-only.
pub fn portal_cookie(conf: &Conf, name: &str, value: &str, clear: bool) -> String {
    let mut c = format!(
        "{name}={value}; path=/; HttpOnly; SameSite={}",
        conf.same_site.as_str()
    );
    if clear {
        c.push_str("; expires=Wed, 21 Oct 2015 00:00:00 GMT");
    }
    if conf.secured_cookie {
        c.push_str("; Secure");
    }
    c
}

fn named(conf: &Conf, name: &str, value: &str, expires: Option<&str>, http_only: bool) -> String {
    let mut c = format!("{name}={value}");
    if let Some(d) = &conf.domain {
        c.push_str(&format!("; domain={d}"));
    }
    c.push_str("; path=/");
    if let Some(e) = expires {
        c.push_str(&format!("; expires={e}"));
    }
    if http_only {
        c.push_str("; HttpOnly");
    }
    c.push_str(&format!("; SameSite={}", conf.same_site.as_str()));
    if conf.secured_cookie {
        c.push_str("; Secure");
    }
    c
}
