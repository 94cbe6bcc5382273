//! The SSO cookie as the contract fixes it: `<cookieName>=<id>; path=/; HttpOnly; SameSite=Lax`,
//! `domain=` when configured, `Secure` when `securedCookie` is on; as LemonLDAP::NG's
//! `cookie()`, `HttpOnly` follows `httpOnly` and `SameSite` follows `sameSite` (empty: `Lax`).
//! The portal's own cookies (a login held back) follow `sameSite` and `securedCookie` and are
//! always `HttpOnly`: no script of the portal reads them.
use crate::config::Conf;
use crate::http::Request;

/// The cookie that carries a session id.
pub fn sso(conf: &Conf, id: &str) -> String {
    named(conf, &conf.cookie_name, id, None)
}

/// The session id the request's SSO cookie carries; `None` without one (or with the cleared
/// value `0`).
pub fn sso_id(conf: &Conf, req: &Request) -> Option<String> {
    req.cookie(&conf.cookie_name)
        .filter(|v| !v.is_empty() && v != "0")
}

/// The cookie that clears the SSO cookie.
pub fn clear_sso(conf: &Conf) -> String {
    named(
        conf,
        &conf.cookie_name,
        "0",
        Some("Wed, 21 Oct 2015 00:00:00 GMT"),
    )
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

fn named(conf: &Conf, name: &str, value: &str, expires: Option<&str>) -> String {
    let mut c = format!("{name}={value}");
    if let Some(d) = &conf.domain {
        c.push_str(&format!("; domain={d}"));
    }
    c.push_str("; path=/");
    if let Some(e) = expires {
        c.push_str(&format!("; expires={e}"));
    }
    if conf.http_only {
        c.push_str("; HttpOnly");
    }
    c.push_str(&format!("; SameSite={}", conf.same_site.as_str()));
    if conf.secured_cookie {
        c.push_str("; Secure");
    }
    c
}
