//! A short per-node cache of live SSO sessions, for the handler endpoint (`handler`), which a
//! web server asks on every request an application gets: LemonLDAP::NG's handler keeps the
//! same (`handlerInternalCache`, 15 seconds by default). A session seen within the TTL is
//! answered without a store read. A logout on this node forgets its session at once (`logout`
//! and `end` call [`forget`]); a logout on another node sharing the store reaches this one
//! when the entry ages out, within the TTL. Entries are held behind `Arc` (no copy of the hash
//! per request); aged ones are swept out at most once a TTL, and the cache is bounded: when
//! full it starts again empty. Nothing else reads it: the portal, the OpenID Connect provider
//! and the REST servers read the store.
use super::SsoSession;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The most sessions kept; a node that sees more starts again empty (each is then read once).
const MAX_ENTRIES: usize = 10_000;

/// The sessions by id, each with when it was read; when aged ones were last swept out.
struct Entries {
    map: HashMap<String, (Arc<SsoSession>, Instant)>,
    swept: Instant,
}

impl Entries {
    fn new() -> Entries {
        Entries {
            map: HashMap::new(),
            swept: Instant::now(),
        }
    }

    fn get(&self, id: &str, ttl: Duration) -> Option<Arc<SsoSession>> {
        self.map
            .get(id)
            .filter(|(_, at)| at.elapsed() < ttl)
            .map(|(s, _)| s.clone())
    }

    fn put(&mut self, id: &str, s: Arc<SsoSession>, ttl: Duration) {
        if self.swept.elapsed() >= ttl {
            self.map.retain(|_, (_, at)| at.elapsed() < ttl);
            self.swept = Instant::now();
        }
        if self.map.len() >= MAX_ENTRIES && !self.map.contains_key(id) {
            self.map.clear();
        }
        self.map.insert(id.to_string(), (s, Instant::now()));
    }
}

fn entries() -> std::sync::MutexGuard<'static, Entries> {
    static CACHE: OnceLock<Mutex<Entries>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Entries::new()));
    cache.lock().unwrap_or_else(|p| p.into_inner())
}

/// The session `id` when it was read from the store less than `ttl` ago.
pub fn get(id: &str, ttl: Duration) -> Option<Arc<SsoSession>> {
    entries().get(id, ttl)
}

/// Keeps the session `id`, just read from the store; entries older than `ttl` go, at most
/// once a `ttl`.
pub fn put(id: &str, s: Arc<SsoSession>, ttl: Duration) {
    entries().put(id, s, ttl);
}

/// Forgets the session `id` (it ended on this node).
pub fn forget(id: &str) {
    entries().map.remove(id);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    fn session(id: &str) -> Arc<SsoSession> {
        let mut m = Map::new();
        m.insert("_session_id".into(), json!(id));
        Arc::new(SsoSession::from(m))
    }

    #[test]
    fn kept_within_the_ttl_and_forgotten_at_logout() {
        let id = "cache-test-a";
        let ttl = Duration::from_secs(15);
        assert!(get(id, ttl).is_none());
        put(id, session(id), ttl);
        assert_eq!(get(id, ttl).unwrap().id(), id);
        assert!(get(id, Duration::ZERO).is_none(), "aged out");
        forget(id);
        assert!(get(id, ttl).is_none());
    }

    #[test]
    fn aged_entries_are_swept_out_and_the_cache_is_bounded() {
        let mut c = Entries::new();
        c.put("old", session("old"), Duration::from_secs(15));
        // A TTL of zero: everything kept so far has aged.
        c.put("new", session("new"), Duration::ZERO);
        assert_eq!(c.map.keys().collect::<Vec<_>>(), ["new"]);
        let ttl = Duration::from_secs(15);
        let mut c = Entries::new();
        for i in 0..MAX_ENTRIES {
            c.put(&format!("s{i}"), session("s"), ttl);
        }
        assert_eq!(c.map.len(), MAX_ENTRIES);
        c.put("one more", session("x"), ttl);
        assert_eq!(c.map.len(), 1);
    }
}
