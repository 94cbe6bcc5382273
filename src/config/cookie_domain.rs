//! Whether the SSO cookie can work at all: a cookie whose `Domain` (`domain`) neither equals
//! the portal's host nor is a parent domain of it is refused by every browser (RFC 6265 5.3
//! step 6, 5.1.3), so every login would come back to an empty form and nobody, the
//! administrator included, could reach the console to undo it. Saves refuse such a pair
//! (`storage::save::check`: console, `limette config set`, every writer); `limette config check`
//! and start-up report it. Pure: the portal URL and the domain in, the reason out.
use std::net::IpAddr;

/// `Err(reason)` when a cookie with `Domain=domain` cannot be set by `portal`'s host. An empty
/// domain (host-only cookie) always works. Compared as browsers do: case-insensitively, a
/// leading dot ignored, the port left out; an IP-address host accepts only its own address as
/// domain (no parent domain exists for an address).
pub fn check(portal: &str, domain: &str) -> Result<(), String> {
    let wanted = domain.trim_start_matches('.').to_ascii_lowercase();
    if domain.is_empty() {
        return Ok(());
    }
    let Some(host) = host_of(portal) else {
        return Err(format!(
            "portal = {portal}: no host to check domain = {domain} against"
        ));
    };
    let is_ip = host
        .trim_matches(|c| c == '[' || c == ']')
        .parse::<IpAddr>()
        .is_ok();
    let covered = host == wanted || (!is_ip && host.ends_with(&format!(".{wanted}")));
    if covered && !wanted.is_empty() {
        return Ok(());
    }
    let why = if is_ip {
        "the portal is reached by an IP address, whose cookies take no other domain"
    } else {
        "it is neither the portal's host nor a parent domain of it"
    };
    Err(format!(
        "domain = {domain} would lock everybody out of portal = {portal} (host {host}): {why}, so \
         browsers refuse the SSO cookie and every login returns to the form; set domain to \
         {host} or a parent domain of it, or leave it empty (a cookie for the portal's host only)"
    ))
}

/// The host of an http(s) URL, lowercase, without user, port or path (an IPv6 address keeps
/// its brackets).
fn host_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = if authority.starts_with('[') {
        authority.split_inclusive(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_portal_host_must_be_the_domain_or_under_it() {
        let ok = |p: &str, d: &str| check(p, d).is_ok();
        assert!(ok("https://auth.example.com/", "example.com"));
        assert!(ok("https://auth.example.com/", ".Example.COM"));
        assert!(ok("https://Auth.Example.com:8443/", "auth.example.com"));
        assert!(ok("http://127.0.0.1:8080/", ""));
        assert!(ok("http://127.0.0.1:8080/", "127.0.0.1"));
        assert!(ok("http://user@auth.example.com/x", "example.com"));
        assert!(!ok("https://auth.example.com/", "example.org"));
        assert!(!ok("https://auth.example.com/", "ample.com"));
        assert!(!ok("https://example.com/", "auth.example.com"));
        assert!(!ok("http://127.0.0.1:8080/", "example.com"));
        assert!(!ok("http://127.0.0.1:8080/", "0.0.1"));
        assert!(!ok("http://[::1]:8080/", "example.com"));
        assert!(!ok("https://auth.example.com/", "."));
        let e = check("http://127.0.0.1:8080/", "example.org").unwrap_err();
        assert!(
            e.contains("domain = example.org") && e.contains("IP address"),
            "{e}"
        );
    }
}
