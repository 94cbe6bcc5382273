//! A short per-node cache of live SSO sessions, for the handler endpoint (`handler`), which a
//! web server asks on every request an application gets: LemonLDAP::NG's handler keeps the
//! same (`handlerInternalCache`, 15 seconds by default). A session seen within the TTL is
//! answered without a store read. A logout on this node forgets its session at once (`logout`
//! and `end` call [`forget`]); a logout on another node sharing the store reaches this one
//! when the entry ages out, within the TTL. Entries are held behind `Arc` (no copy of the hash
//! per request) and the cache is bounded: when full it starts again empty. Nothing else
//! reads it: the portal, the OpenID Connect provider and the REST servers read the store.
use super::SsoSession;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The most sessions kept; a node that sees more starts again empty (each is then read once).
const MAX_ENTRIES: usize = 10_000;

type Entries = HashMap<String, (Arc<SsoSession>, Instant)>;

fn entries() -> &'static Mutex<Entries> {
    static CACHE: OnceLock<Mutex<Entries>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The session `id` when it was read from the store less than `ttl` ago.
pub fn get(id: &str, ttl: Duration) -> Option<Arc<SsoSession>> {
    let map = entries().lock().unwrap_or_else(|p| p.into_inner());
    map.get(id)
        .filter(|(_, at)| at.elapsed() < ttl)
        .map(|(s, _)| s.clone())
}

/// Keeps the session `id`, just read from the store.
pub fn put(id: &str, s: Arc<SsoSession>) {
    let mut map = entries().lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= MAX_ENTRIES && !map.contains_key(id) {
        map.clear();
    }
    map.insert(id.to_string(), (s, Instant::now()));
}

/// Forgets the session `id` (it ended on this node).
pub fn forget(id: &str) {
    let mut map = entries().lock().unwrap_or_else(|p| p.into_inner());
    map.remove(id);
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
        assert!(get(id, Duration::from_secs(15)).is_none());
        put(id, session(id));
        assert_eq!(get(id, Duration::from_secs(15)).unwrap().id(), id);
        assert!(get(id, Duration::ZERO).is_none(), "aged out");
        forget(id);
        assert!(get(id, Duration::from_secs(15)).is_none());
    }
}
