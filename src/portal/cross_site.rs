//! Whether a browser says a request comes from another site: the check of the portal's JSON
//! posts that change state (JSON login, JSON logout), which carry no form token (as
//! LemonLDAP::NG's `requireToken` exempts them) and would otherwise rely on `SameSite` alone:
//! with `sameSite = None`, or from a sibling subdomain (same site, so any `SameSite` cookie
//! travels), a page elsewhere could log a user out, or log them in as someone else, with a
//! `fetch` whose `Accept` header needs no preflight.
//!
//! Refused: an `Origin` header that is not the portal's origin (`null` included), or
//! `Sec-Fetch-Site` of `cross-site` or `same-site`. Requests with neither (curl, scripts,
//! LemonLDAP::NG's command-line login) are what they always were: only a browser sends them,
//! and a browser that sends them says where the request comes from.
use super::Origin;
use crate::config::Conf;
use crate::http::Request;

/// True when the browser that sent `req` says it comes from outside the portal's origin.
pub fn refused(conf: &Conf, req: &Request) -> bool {
    if let Some(site) = req.header("sec-fetch-site") {
        let site = site.trim().to_ascii_lowercase();
        if site == "cross-site" || site == "same-site" {
            return true;
        }
    }
    match req.header("origin") {
        None => false,
        Some(origin) => {
            let portal = Origin::parse(&conf.portal);
            portal.is_none() || Origin::parse(origin.trim()) != portal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(headers: &[(&str, &str)]) -> Request {
        let mut r = Request::new(crate::http::Method::Post, "/");
        for (k, v) in headers {
            r = r.with_header(k, v);
        }
        r
    }

    #[test]
    fn a_browser_that_says_it_is_elsewhere_is_refused() {
        let conf = Conf::of_json(serde_json::json!({"portal": "https://auth.example.com/"}));
        let no = |h: &[(&str, &str)]| !refused(&conf, &req(h));
        assert!(no(&[]));
        assert!(no(&[("origin", "https://auth.example.com")]));
        assert!(no(&[("origin", "https://AUTH.example.com:443")]));
        assert!(no(&[("sec-fetch-site", "same-origin")]));
        assert!(no(&[("sec-fetch-site", "none")]));
        assert!(!no(&[("origin", "https://evil.example.org")]));
        assert!(!no(&[("origin", "https://app.example.com")]));
        assert!(!no(&[("origin", "http://auth.example.com")]));
        assert!(!no(&[("origin", "null")]));
        assert!(!no(&[("sec-fetch-site", "cross-site")]));
        assert!(!no(&[("sec-fetch-site", "same-site")]));
        assert!(!no(&[
            ("origin", "https://auth.example.com"),
            ("sec-fetch-site", "same-site")
        ]));
    }
}
