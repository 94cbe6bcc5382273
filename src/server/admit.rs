//! Who may hold what: open connections overall and per client address, and bodies being
//! read at once, overall and per client. Behind a trusted proxy the client is the address the
//! proxy forwards, so one busy client never locks out the proxy and everyone behind it; the
//! proxy's own connections count only against the overall ceiling. An IPv6 client is counted
//! by its /64, the block one host or one customer commonly gets.
//!
//! The book belongs to the reading loop alone (one thread), so it needs no lock; the loop
//! gives every count back when its connection or body ends.
use super::head::Reject;
use crate::config::front::FrontLimits;
use crate::log;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicU64, Ordering};

/// The per-address caps were reached.
pub const TOO_MANY: Reject = Reject {
    status: 429,
    msg: "Too many requests from this address",
};
/// The overall caps were reached.
pub const BUSY: Reject = Reject {
    status: 503,
    msg: "Server busy, try again",
};

/// The book of connections and bodies being read.
pub struct Admit {
    /// The limits in force.
    pub limits: FrontLimits,
    per_address: HashMap<IpAddr, usize>,
    reading: usize,
    reading_per_client: HashMap<IpAddr, usize>,
}

/// The key an address is counted under: an IPv4 address (an IPv4-mapped IPv6 one as IPv4),
/// or an IPv6 address's /64.
pub fn group(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

impl Admit {
    /// A book for these limits.
    pub fn new(limits: FrontLimits) -> Admit {
        Admit {
            limits,
            per_address: HashMap::new(),
            reading: 0,
            reading_per_client: HashMap::new(),
        }
    }

    /// Counts a new connection from `peer` against its address; returns the key it is
    /// counted under (None for a trusted proxy), or 429 when that address is at its cap.
    /// The overall ceiling is the loop's, which can make room by closing an idle connection.
    pub fn connect(&mut self, peer: IpAddr) -> Result<Option<IpAddr>, Reject> {
        if self.limits.is_trusted(peer) {
            return Ok(None);
        }
        let key = group(peer);
        if !take(
            &mut self.per_address,
            key,
            self.limits.max_connections_per_address,
        ) {
            refused(&format!("{peer}: maxConnectionsPerAddress reached"));
            return Err(TOO_MANY);
        }
        Ok(Some(key))
    }

    /// Gives back a connection counted under `key`.
    pub fn disconnect(&mut self, key: Option<IpAddr>) {
        if let Some(key) = key {
            decrement(&mut self.per_address, key);
        }
    }

    /// Takes a slot for reading one body, overall and for `client`; returns the key to give
    /// back, or 503 / 429 at the caps.
    pub fn read(&mut self, client: IpAddr) -> Result<IpAddr, Reject> {
        if self.reading >= self.limits.max_reading {
            refused("maxReading reached");
            return Err(BUSY);
        }
        let key = group(client);
        if !take(
            &mut self.reading_per_client,
            key,
            self.limits.max_reading_per_address,
        ) {
            refused(&format!("{client}: maxReadingPerAddress reached"));
            return Err(TOO_MANY);
        }
        self.reading += 1;
        Ok(key)
    }

    /// Gives back a body slot taken by `read`.
    pub fn done_reading(&mut self, key: IpAddr) {
        self.reading = self.reading.saturating_sub(1);
        decrement(&mut self.reading_per_client, key);
    }

    /// Whether nothing is counted (for tests).
    pub fn is_empty(&self) -> bool {
        self.per_address.is_empty() && self.reading == 0 && self.reading_per_client.is_empty()
    }
}

/// Counts one more under `key` unless it holds `cap` already (false then, nothing counted).
fn take(map: &mut HashMap<IpAddr, usize>, key: IpAddr, cap: usize) -> bool {
    let n = map.entry(key).or_insert(0);
    if *n >= cap {
        if *n == 0 {
            map.remove(&key);
        }
        return false;
    }
    *n += 1;
    true
}

fn decrement(map: &mut HashMap<IpAddr, usize>, ip: IpAddr) {
    if let Some(n) = map.get_mut(&ip) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(&ip);
        }
    }
}

/// The client behind a trusted proxy: the rightmost `X-Forwarded-For` entry that is not
/// itself a trusted proxy (entries to its left are the client's word, not the proxy's).
/// None when the peer is not trusted, or the header names no usable address.
pub fn forwarded_client(limits: &FrontLimits, peer: IpAddr, xff: &[&str]) -> Option<IpAddr> {
    if !limits.is_trusted(peer) {
        return None;
    }
    let entries: Vec<&str> = xff
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    for entry in entries.iter().rev() {
        let ip: IpAddr = entry.parse().ok()?;
        if !limits.is_trusted(ip) {
            return Some(ip);
        }
    }
    None
}

/// Logs a refusal: at most one line a second, with the count of those not logged.
pub fn refused(what: &str) {
    static LAST: AtomicU64 = AtomicU64::new(0);
    static QUIET: AtomicU64 = AtomicU64::new(0);
    let now = crate::util::now().max(0) as u64;
    let last = LAST.load(Ordering::Relaxed);
    if now > last
        && LAST
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        let quiet = QUIET.swap(0, Ordering::Relaxed);
        let more = if quiet > 0 {
            format!(" ({quiet} more refusals in the last seconds)")
        } else {
            String::new()
        };
        log::warn(&format!("connection refused: {what}{more}"));
    } else {
        QUIET.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::front::IpRange;

    fn limits() -> FrontLimits {
        FrontLimits {
            max_connections: 3,
            max_connections_per_address: 2,
            max_reading: 3,
            max_reading_per_address: 1,
            trusted_proxies: vec![IpRange::parse("10.0.0.1").unwrap()],
            ..FrontLimits::default()
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn connections_are_capped_per_address_and_trusted_proxies_are_not() {
        let mut book = Admit::new(limits());
        let a1 = book.connect(ip("192.0.2.1")).unwrap();
        let _a2 = book.connect(ip("::ffff:192.0.2.1")).unwrap();
        assert_eq!(book.connect(ip("192.0.2.1")).unwrap_err().status, 429);
        for _ in 0..5 {
            assert_eq!(book.connect(ip("10.0.0.1")), Ok(None));
        }
        book.disconnect(a1);
        assert!(book.connect(ip("192.0.2.1")).is_ok());
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let mut book = Admit::new(limits());
        book.connect(ip("2001:db8:1:2::1")).unwrap();
        book.connect(ip("2001:db8:1:2:ffff::9")).unwrap();
        assert_eq!(book.connect(ip("2001:db8:1:2::7")).unwrap_err().status, 429);
        assert!(book.connect(ip("2001:db8:1:3::1")).is_ok());
        assert_eq!(group(ip("2001:db8:1:2:a:b:c:d")), ip("2001:db8:1:2::"));
        assert_eq!(group(ip("::ffff:10.1.2.3")), ip("10.1.2.3"));
    }

    #[test]
    fn reads_are_capped_per_client_and_overall() {
        let mut book = Admit::new(limits());
        let r1 = book.read(ip("192.0.2.1")).unwrap();
        assert_eq!(book.read(ip("192.0.2.1")).unwrap_err().status, 429);
        let r2 = book.read(ip("192.0.2.2")).unwrap();
        let r3 = book.read(ip("192.0.2.3")).unwrap();
        assert_eq!(book.read(ip("192.0.2.4")).unwrap_err().status, 503);
        for r in [r1, r2, r3] {
            book.done_reading(r);
        }
        assert!(book.is_empty());
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
        assert_eq!(forwarded_client(&l, ip("10.0.0.1"), &[]), None);
    }
}
