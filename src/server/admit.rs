//! Who may hold what: open connections overall and per client address, and bodies being
//! read at once, overall and per client. Behind a trusted proxy the client is the address the
//! proxy forwards, so one busy client never locks out the proxy and everyone behind it; the
//! proxy's own connections count only against the overall ceiling. An IPv6 client is counted
//! by its /64, the block one host or one customer commonly gets.
//!
//! Reading slots are shared fairly: when all are taken, a client holding at least two fewer
//! than the busiest one takes a slot from it (the busiest client's latest body ends with
//! 503), so a few addresses feeding slow bodies can never keep everyone else's login out.
//!
//! Large bodies (over 64 KiB: only the REST servers take them, from the clients their rules
//! let in) also share a budget of bytes in hand, `maxReadingBytes`, from their head until
//! their answer is written: a flood of 8 MB uploads is refused (503) past it instead of
//! taking the memory of 128 of them, which the allocator then keeps.
//!
//! The book belongs to the reading loop alone (one thread), so it needs no lock; the loop
//! gives every count back when its connection or body ends.
use super::head::Reject;
use crate::config::server::ServerLimits;
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
/// A body of at most this many bytes (a form's, the most any path open to all takes) costs
/// nothing of `maxReadingBytes`.
pub const SMALL_BODY: u64 = 64 * 1024;

/// The book of connections and bodies being read.
pub struct Admit {
    /// The limits in force.
    pub limits: ServerLimits,
    per_address: HashMap<IpAddr, usize>,
    reading: usize,
    /// The connections whose body is being read, by client key, oldest first.
    readers: HashMap<IpAddr, Vec<u64>>,
    /// Bytes of the large bodies in hand (`maxReadingBytes`).
    body_bytes: u64,
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
    pub fn new(limits: ServerLimits) -> Admit {
        Admit {
            limits,
            per_address: HashMap::new(),
            reading: 0,
            readers: HashMap::new(),
            body_bytes: 0,
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

    /// Takes a slot for reading the body of connection `id`, overall and for `client`;
    /// returns the key to give back, or 429 at the client's cap, 503 when every slot is taken
    /// (then [`Admit::victim`] may name a body to end to make room).
    pub fn read(&mut self, client: IpAddr, id: u64) -> Result<IpAddr, Reject> {
        let key = group(client);
        let held = self.readers.get(&key).map_or(0, Vec::len);
        if held >= self.limits.max_reading_per_address {
            refused(&format!("{client}: maxReadingPerAddress reached"));
            return Err(TOO_MANY);
        }
        if self.reading >= self.limits.max_reading {
            return Err(BUSY);
        }
        self.readers.entry(key).or_default().push(id);
        self.reading += 1;
        Ok(key)
    }

    /// Every slot is taken and `client` wants one: the body to end for it, the latest of the
    /// client holding the most, when that client holds at least two more than `client` does
    /// (so that clients holding as many, or one more, do not take slots from each other in
    /// turn); None (503 for `client`) otherwise.
    pub fn victim(&self, client: IpAddr) -> Option<u64> {
        let held = self.readers.get(&group(client)).map_or(0, Vec::len);
        let (_, ids) = self.readers.iter().max_by_key(|(_, ids)| ids.len())?;
        if ids.len() <= held + 1 {
            refused("maxReading reached");
            return None;
        }
        refused("maxReading reached: the busiest client's latest body ends for another");
        ids.last().copied()
    }

    /// Gives back the body slot of connection `id`, taken under `key` by `read`.
    pub fn done_reading(&mut self, key: IpAddr, id: u64) {
        if let Some(ids) = self.readers.get_mut(&key) {
            if let Some(i) = ids.iter().position(|x| *x == id) {
                ids.remove(i);
                self.reading = self.reading.saturating_sub(1);
            }
            if ids.is_empty() {
                self.readers.remove(&key);
            }
        }
    }

    /// Takes `size` bytes of `maxReadingBytes` for a body larger than [`SMALL_BODY`]
    /// (returns what it took, 0 for a small body), or 503 when the large bodies in hand would
    /// go over it. A body alone always fits (`maxBodySize` may be larger).
    pub fn take_bytes(&mut self, size: u64) -> Result<u64, Reject> {
        if size <= SMALL_BODY {
            return Ok(0);
        }
        if self.body_bytes > 0
            && self.body_bytes.saturating_add(size) > self.limits.max_reading_bytes
        {
            refused(&format!(
                "maxReadingBytes reached ({} bytes of large bodies in hand)",
                self.body_bytes
            ));
            return Err(BUSY);
        }
        self.body_bytes += size;
        Ok(size)
    }

    /// Gives back what `take_bytes` took.
    pub fn give_bytes(&mut self, held: u64) {
        self.body_bytes = self.body_bytes.saturating_sub(held);
    }

    /// Whether nothing is counted (for tests).
    pub fn is_empty(&self) -> bool {
        self.per_address.is_empty()
            && self.reading == 0
            && self.readers.is_empty()
            && self.body_bytes == 0
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
    use crate::config::values::IpRange;

    fn limits() -> ServerLimits {
        ServerLimits {
            max_connections: 3,
            max_connections_per_address: 2,
            max_reading: 3,
            max_reading_per_address: 1,
            trusted_proxies: vec![IpRange::parse("10.0.0.1").unwrap()],
            ..ServerLimits::default()
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
        let r1 = book.read(ip("192.0.2.1"), 1).unwrap();
        assert_eq!(book.read(ip("192.0.2.1"), 2).unwrap_err().status, 429);
        let r2 = book.read(ip("192.0.2.2"), 3).unwrap();
        let r3 = book.read(ip("192.0.2.3"), 4).unwrap();
        assert_eq!(book.read(ip("192.0.2.4"), 5).unwrap_err().status, 503);
        for (r, id) in [(r1, 1), (r2, 3), (r3, 4)] {
            book.done_reading(r, id);
        }
        book.done_reading(r1, 1);
        assert!(book.is_empty());
    }

    #[test]
    fn large_bodies_share_a_budget_of_bytes_and_one_always_fits() {
        let mut book = Admit::new(ServerLimits {
            max_reading_bytes: 1 << 20,
            ..ServerLimits::default()
        });
        assert_eq!(book.take_bytes(SMALL_BODY), Ok(0), "a form costs nothing");
        let big = book.take_bytes(8 << 20).unwrap();
        assert_eq!(big, 8 << 20, "alone, a body over the budget fits");
        assert_eq!(book.take_bytes(SMALL_BODY + 1), Err(BUSY));
        assert_eq!(book.take_bytes(100), Ok(0));
        book.give_bytes(big);
        let a = book.take_bytes(600 << 10).unwrap();
        assert_eq!(book.take_bytes(600 << 10), Err(BUSY));
        let b = book.take_bytes(400 << 10).unwrap();
        book.give_bytes(a);
        book.give_bytes(b);
        assert!(book.is_empty());
    }

    #[test]
    fn a_full_book_takes_a_slot_from_the_busiest_client_only() {
        let mut book = Admit::new(ServerLimits {
            max_reading: 4,
            max_reading_per_address: 3,
            ..ServerLimits::default()
        });
        for id in 1..=3 {
            book.read(ip("192.0.2.1"), id).unwrap();
        }
        book.read(ip("192.0.2.2"), 4).unwrap();
        // A newcomer ends the busiest client's latest body, not the other's.
        assert_eq!(book.read(ip("192.0.2.3"), 5).unwrap_err().status, 503);
        assert_eq!(book.victim(ip("192.0.2.3")), Some(3));
        book.done_reading(group(ip("192.0.2.1")), 3);
        book.read(ip("192.0.2.3"), 5).unwrap();
        // 1 holds 2, 2 and 3 hold 1 each: only a client holding none takes one from 1.
        assert_eq!(
            book.victim(ip("192.0.2.2")),
            None,
            "one less is near enough"
        );
        assert_eq!(book.victim(ip("192.0.2.4")), Some(2));
        book.done_reading(group(ip("192.0.2.1")), 2);
        book.read(ip("192.0.2.4"), 6).unwrap();
        // Now everyone holds one: nobody gives way, not even to a newcomer.
        assert_eq!(book.victim(ip("192.0.2.5")), None);
    }
}
