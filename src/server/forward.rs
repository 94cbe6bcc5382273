//! Who a request comes from, for the address rules (`*AllowFrom`), the session's `ipAddr`
//! and the caps per client: the socket peer; behind a trusted proxy (`trustedProxies`) the
//! client its `X-Forwarded-For` names, and a 400 when it names none (its request is not taken
//! for the proxy's own); and nobody known when a peer that is not a trusted proxy forwards
//! for someone anyway (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`): a proxy Limette was not
//! told of, say an nginx on loopback, whose clients must never count as loopback. Such a peer
//! is logged once, in bounded memory.
//!
//! The reading loop alone (one thread) keeps the list of peers logged, so it needs no lock.
use super::admit::{group, refused};
use super::head::Reject;
use crate::config::server::ServerLimits;
use crate::log;
use std::collections::HashSet;
use std::net::IpAddr;

/// A trusted proxy's request that names no valid client.
pub const BAD_FORWARD: Reject = Reject::bad("X-Forwarded-For missing or invalid");

/// Untrusted peers that sent `X-Forwarded-For` and were logged, at most this many (then one
/// line a second, through [`refused`]).
const WARNED_MAX: usize = 1024;

/// The peers that forwarded without being trusted, as far as they were logged.
pub struct Forwarders {
    warned: HashSet<IpAddr>,
    warned_max: usize,
}

impl Default for Forwarders {
    fn default() -> Forwarders {
        Forwarders {
            warned: HashSet::new(),
            warned_max: WARNED_MAX,
        }
    }
}

impl Forwarders {
    /// Who a request from `peer` comes from, for the address rules, given its
    /// `X-Forwarded-For` values and whether it carries any other proxy's header
    /// (`Forwarded`, `X-Real-IP`): the peer; behind a trusted proxy the client it names (400
    /// when it names none); None, unknown, when an untrusted peer forwards for someone (the
    /// first time logged).
    pub fn origin(
        &mut self,
        limits: &ServerLimits,
        peer: IpAddr,
        xff: &[&str],
        proxied: bool,
    ) -> Result<Option<IpAddr>, Reject> {
        if limits.is_trusted(peer) {
            return match forwarded_client(limits, peer, xff) {
                Some(ip) => Ok(Some(ip)),
                None => {
                    refused(&format!(
                        "{peer}: a trusted proxy sent no valid X-Forwarded-For (400)"
                    ));
                    Err(BAD_FORWARD)
                }
            };
        }
        if xff.is_empty() && !proxied {
            return Ok(Some(peer));
        }
        self.warn_untrusted(peer);
        Ok(None)
    }

    /// Logs once per peer (at most [`WARNED_MAX`] of them, then at most a line a second) that
    /// an untrusted peer forwards for others.
    fn warn_untrusted(&mut self, peer: IpAddr) {
        let key = group(peer);
        if self.warned.contains(&key) {
            return;
        }
        let what = format!(
            "{peer} sends X-Forwarded-For but is not in trustedProxies: its clients count as \
             unknown addresses, which the address rules (*AllowFrom) refuse"
        );
        if self.warned.len() < self.warned_max {
            self.warned.insert(key);
            log::warn(&what);
        } else {
            refused(&what);
        }
    }
}

/// The client behind a trusted proxy: the rightmost `X-Forwarded-For` entry that is not
/// itself a trusted proxy (entries to its left are the client's word, not the proxy's), or
/// the leftmost when every entry is a trusted proxy (the client is one of those addresses).
/// None when the peer is not trusted, or the header names no usable address (absent, empty,
/// or an entry that is not an address on the way).
pub fn forwarded_client(limits: &ServerLimits, peer: IpAddr, xff: &[&str]) -> Option<IpAddr> {
    if !limits.is_trusted(peer) {
        return None;
    }
    let entries: Vec<&str> = xff
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let mut last = None;
    for entry in entries.iter().rev() {
        let ip: IpAddr = entry.parse().ok()?;
        if !limits.is_trusted(ip) {
            return Some(ip);
        }
        last = Some(ip);
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::values::IpRange;

    fn limits() -> ServerLimits {
        ServerLimits {
            trusted_proxies: vec![IpRange::parse("10.0.0.1").unwrap()],
            ..ServerLimits::default()
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_forwarded_client_is_believed_from_trusted_proxies_only() {
        let l = limits();
        let xff = ["203.0.113.9, 198.51.100.7", "10.0.0.1"];
        assert_eq!(
            forwarded_client(&l, ip("10.0.0.1"), &xff),
            Some(ip("198.51.100.7"))
        );
        assert_eq!(forwarded_client(&l, ip("192.0.2.1"), &xff), None);
        assert_eq!(forwarded_client(&l, ip("10.0.0.1"), &["junk"]), None);
        assert_eq!(
            forwarded_client(&l, ip("10.0.0.1"), &["1.2.3.4, junk"]),
            None
        );
        assert_eq!(forwarded_client(&l, ip("10.0.0.1"), &[""]), None);
        assert_eq!(forwarded_client(&l, ip("10.0.0.1"), &[]), None);
        assert_eq!(
            forwarded_client(&l, ip("10.0.0.1"), &["junk, 10.0.0.1"]),
            None
        );
        assert_eq!(
            forwarded_client(&l, ip("10.0.0.1"), &["10.0.0.1"]),
            Some(ip("10.0.0.1")),
            "a client on the proxy's own address"
        );
    }

    #[test]
    fn an_untrusted_forwarder_has_unknown_clients_and_a_trusted_one_needs_the_header() {
        let (l, mut f) = (limits(), Forwarders::default());
        let xff = ["198.51.100.7"];
        let peer = ip("127.0.0.1");
        assert_eq!(f.origin(&l, peer, &[], false), Ok(Some(peer)));
        assert_eq!(f.origin(&l, peer, &xff, false), Ok(None));
        assert_eq!(f.origin(&l, peer, &[], true), Ok(None));
        assert_eq!(f.warned.len(), 1, "logged once per peer");
        let proxy = ip("10.0.0.1");
        assert_eq!(
            f.origin(&l, proxy, &xff, false),
            Ok(Some(ip("198.51.100.7")))
        );
        assert_eq!(f.origin(&l, proxy, &[], false), Err(BAD_FORWARD));
        assert_eq!(f.origin(&l, proxy, &["x"], true), Err(BAD_FORWARD));
        f.warned_max = 4;
        for i in 0..10u32 {
            let peer = IpAddr::from(std::net::Ipv4Addr::from(0x0a01_0000 + i));
            assert_eq!(f.origin(&l, peer, &xff, false), Ok(None));
        }
        assert_eq!(f.warned.len(), 4, "bounded");
    }
}
