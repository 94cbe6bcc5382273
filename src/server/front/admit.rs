//! Who may hold what: open connections overall (at the ceiling the oldest idle one is closed
//! to make room) and per client address, and requests being read at once, overall and per
//! client. Behind a trusted proxy the client is the address the proxy forwards, so one busy
//! client never locks out the proxy and everyone behind it; the proxy's own connections count
//! only against the overall ceiling.
//!
//! Every slot is a guard that gives itself back when dropped, so no path can leak one.
use super::head::Reject;
use crate::config::front::FrontLimits;
use crate::log;
use std::collections::HashMap;
use std::net::{IpAddr, Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The per-address caps were reached.
const TOO_MANY: Reject = Reject {
    status: 429,
    msg: "Too many requests from this address",
};
/// The overall caps were reached.
const BUSY: Reject = Reject {
    status: 503,
    msg: "Server busy, try again",
};

/// The shared book of connections and reads.
pub struct Admit {
    /// The limits in force.
    pub limits: FrontLimits,
    state: Mutex<State>,
    /// Set at shutdown: connections take no further request.
    closing: AtomicBool,
    /// Connections with a request in hand (from its first byte to its answer written).
    busy: AtomicUsize,
}

#[derive(Default)]
struct State {
    next_id: u64,
    conns: HashMap<u64, Conn>,
    per_address: HashMap<IpAddr, usize>,
    reading: usize,
    reading_per_client: HashMap<IpAddr, usize>,
}

struct Conn {
    /// The address counted in `per_address` (None for a trusted proxy).
    counted: Option<IpAddr>,
    /// A handle to close it from here.
    stream: TcpStream,
    /// Since when it waits for a request (None while a request is in hand).
    idle_since: Option<Instant>,
}

impl Admit {
    /// A book for these limits.
    pub fn new(limits: FrontLimits) -> Arc<Admit> {
        Arc::new(Admit {
            limits,
            state: Mutex::new(State::default()),
            closing: AtomicBool::new(false),
            busy: AtomicUsize::new(0),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves counters that are still consistent (each
        // change is one statement), so a poisoned lock is used as it is.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Admits a new connection from `peer`, closing the oldest idle one at the ceiling.
    pub fn connect(self: &Arc<Self>, peer: IpAddr, stream: &TcpStream) -> Result<ConnSlot, Reject> {
        let handle = stream.try_clone().map_err(|_| BUSY)?;
        let counted = (!self.limits.is_trusted(peer)).then_some(peer);
        let mut st = self.state();
        if let Some(ip) = counted {
            if st.per_address.get(&ip).copied().unwrap_or(0)
                >= self.limits.max_connections_per_address
            {
                drop(st);
                refused(&format!("{ip}: maxConnectionsPerAddress reached"));
                return Err(TOO_MANY);
            }
        }
        if st.conns.len() >= self.limits.max_connections && !st.close_oldest_idle() {
            drop(st);
            refused("maxConnections reached and no idle connection to close");
            return Err(BUSY);
        }
        st.next_id += 1;
        let id = st.next_id;
        let conn = Conn {
            counted,
            stream: handle,
            idle_since: Some(Instant::now()),
        };
        st.conns.insert(id, conn);
        if let Some(ip) = counted {
            *st.per_address.entry(ip).or_insert(0) += 1;
        }
        Ok(ConnSlot {
            admit: self.clone(),
            id,
        })
    }

    /// A slot for reading one request: overall, and for `client` when it is known.
    pub fn read(self: &Arc<Self>, client: Option<IpAddr>) -> Result<ReadSlot, Reject> {
        let mut st = self.state();
        if st.reading >= self.limits.max_reading {
            drop(st);
            refused("maxReading reached");
            return Err(BUSY);
        }
        st.reading += 1;
        drop(st);
        let mut slot = ReadSlot {
            admit: self.clone(),
            client: None,
        };
        if let Some(ip) = client {
            slot.name_client(ip)?;
        }
        Ok(slot)
    }

    /// At shutdown: no connection takes a further request, and the idle ones are closed.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let st = self.state();
        for c in st.conns.values().filter(|c| c.idle_since.is_some()) {
            let _ = c.stream.shutdown(Shutdown::Both);
        }
    }

    /// Whether the server is shutting down.
    pub fn closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Marks a request in hand until the guard is dropped (its answer written).
    pub fn busy(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::SeqCst);
        Busy(self.clone())
    }

    /// Waits until no connection has a request in hand, at most `limit`.
    pub fn wait_quiet(&self, limit: Duration) {
        let end = Instant::now() + limit;
        while self.busy.load(Ordering::SeqCst) > 0 && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl State {
    /// Closes the connection idle the longest; false when none is idle.
    fn close_oldest_idle(&mut self) -> bool {
        let oldest = self
            .conns
            .iter()
            .filter_map(|(id, c)| Some((*id, c.idle_since?)))
            .min_by_key(|(_, since)| *since);
        let Some((id, _)) = oldest else { return false };
        if let Some(c) = self.forget(id) {
            let _ = c.stream.shutdown(Shutdown::Both);
        }
        true
    }

    fn forget(&mut self, id: u64) -> Option<Conn> {
        let c = self.conns.remove(&id)?;
        if let Some(ip) = c.counted {
            decrement(&mut self.per_address, ip);
        }
        Some(c)
    }
}

fn decrement(map: &mut HashMap<IpAddr, usize>, ip: IpAddr) {
    if let Some(n) = map.get_mut(&ip) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(&ip);
        }
    }
}

/// One admitted connection; dropping it forgets it.
pub struct ConnSlot {
    admit: Arc<Admit>,
    id: u64,
}

impl ConnSlot {
    /// Marks the connection idle (waiting for a request) or busy.
    pub fn set_idle(&self, idle: bool) {
        if let Some(c) = self.admit.state().conns.get_mut(&self.id) {
            c.idle_since = idle.then(Instant::now);
        }
    }
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        self.admit.state().forget(self.id);
    }
}

/// A request in hand, from its first byte to its answer written.
pub struct Busy(Arc<Admit>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One request being read; dropping it gives the slots back.
pub struct ReadSlot {
    admit: Arc<Admit>,
    client: Option<IpAddr>,
}

impl ReadSlot {
    /// Counts this read against `ip` too (429 when that client is at its cap).
    pub fn name_client(&mut self, ip: IpAddr) -> Result<(), Reject> {
        let mut st = self.admit.state();
        let n = st.reading_per_client.entry(ip).or_insert(0);
        if *n >= self.admit.limits.max_reading_per_address {
            if *n == 0 {
                st.reading_per_client.remove(&ip);
            }
            drop(st);
            refused(&format!("{ip}: maxReadingPerAddress reached"));
            return Err(TOO_MANY);
        }
        *n += 1;
        self.client = Some(ip);
        Ok(())
    }
}

impl Drop for ReadSlot {
    fn drop(&mut self) {
        let mut st = self.admit.state();
        st.reading = st.reading.saturating_sub(1);
        if let Some(ip) = self.client {
            decrement(&mut st.reading_per_client, ip);
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
fn refused(what: &str) {
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
    use std::net::TcpListener;

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
    fn connections_are_capped_per_address_and_the_oldest_idle_makes_room() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let s = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let book = Admit::new(limits());
        let a1 = book.connect(ip("192.0.2.1"), &s).unwrap();
        let a2 = book.connect(ip("192.0.2.1"), &s).unwrap();
        assert_eq!(book.connect(ip("192.0.2.1"), &s).err().unwrap().status, 429);
        a1.set_idle(false);
        let proxy = book.connect(ip("10.0.0.1"), &s).unwrap();
        // At the ceiling: a2 is the only idle one and is closed for the newcomer.
        let b = book.connect(ip("192.0.2.2"), &s).unwrap();
        assert_eq!(book.state().conns.len(), 3);
        drop(a2); // its thread ends later: nothing counted twice
        proxy.set_idle(false);
        b.set_idle(false);
        assert_eq!(book.connect(ip("192.0.2.3"), &s).err().unwrap().status, 503);
        drop((a1, b, proxy));
        assert!(book.state().per_address.is_empty() && book.state().conns.is_empty());
    }

    #[test]
    fn reads_are_capped_per_client_and_overall() {
        let book = Admit::new(limits());
        let r1 = book.read(Some(ip("192.0.2.1"))).unwrap();
        assert_eq!(book.read(Some(ip("192.0.2.1"))).err().unwrap().status, 429);
        let r2 = book.read(None).unwrap();
        let r3 = book.read(Some(ip("192.0.2.2"))).unwrap();
        assert_eq!(book.read(None).err().unwrap().status, 503);
        drop((r1, r2, r3));
        assert_eq!(book.state().reading, 0);
        assert!(book.state().reading_per_client.is_empty());
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
