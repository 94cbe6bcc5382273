//! The public keys of a relying party that publishes them at a `jwks_uri`
//! (`oidcRPMetaDataOptionsJwksUri`, later LemonLDAP::NG's name; RFC 7591 2): fetched through
//! the outbound guard (`outboundAllowTo`) with request_uri's caps ([`FETCH_TIMEOUT`], no
//! redirect, 200 only) and a size cap ([`MAX_JWKS`]), never on a worker: a handler that finds
//! the keys missing asks [`needs_fetch`] and, when it answers a [`Fetch`], hands the request to
//! a fetcher (`Response::later`) which runs it, then answers. The set is cached per client
//! ([`TTL`], at most [`MAX_CLIENTS`] sets of at most [`MAX_KEYS`] keys); a JWT that no cached
//! key fitting its algorithm and `kid` verifies (the client rotated its keys) fetches the set
//! again, at most
//! once per client every [`REFETCH_INTERVAL`], so that random `kid`s cannot make Limette fetch
//! on every request. A set that cannot be fetched or does not read is logged and cached empty
//! for [`FAILED_TTL`]: the client's JWTs are refused meanwhile, and its URL is not hammered.
//! An RP with inline keys (`oidcRPMetaDataOptionsJwks`) uses those, never a fetch.
use crate::oidc::keys::{jwt, Alg};
use crate::oidc::settings::rp_keys::{parse_jwks, RpKey};
use crate::oidc::settings::Rp;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest a key set fetch may take, connection and whole answer included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest key set read (bytes): a larger one is refused whole.
pub const MAX_JWKS: usize = 64 * 1024;
/// The most keys a fetched set may hold.
pub const MAX_KEYS: usize = 32;
/// How long a fetched set is used before it is fetched again.
pub const TTL: Duration = Duration::from_secs(600);
/// How long a set that could not be fetched or read counts as empty before a new try.
pub const FAILED_TTL: Duration = Duration::from_secs(30);
/// The shortest time between two fetches made because a JWT named a key the set lacks.
pub const REFETCH_INTERVAL: Duration = Duration::from_secs(30);
/// The most clients whose sets are cached (the one that expires first makes room).
pub const MAX_CLIENTS: usize = 1024;

/// A fetch to run off the worker pool before the request can be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    /// The client whose keys these are.
    pub client_id: String,
    /// Its `jwks_uri`.
    pub uri: String,
}

impl Fetch {
    /// Fetches the set and caches it (slow: on a fetcher only).
    pub fn run(self) {
        let keys = match fetch(&self.uri) {
            Ok(keys) => Some(keys),
            Err(e) => {
                crate::log::warn(&format!(
                    "client {}: jwks_uri {}: {e}",
                    self.client_id, self.uri
                ));
                None
            }
        };
        store(&self.client_id, &self.uri, keys, Instant::now());
    }
}

/// One client's cached set.
#[derive(Debug, Clone)]
struct Entry {
    uri: String,
    keys: Vec<RpKey>,
    /// Until when the set is used.
    until: Instant,
    /// The last fetch made for a key the set lacked.
    refetched: Option<Instant>,
}

static CACHE: Mutex<Option<HashMap<String, Entry>>> = Mutex::new(None);

/// The keys that verify `rp`'s JWTs now: its inline `Jwks`, else the set fetched from its
/// `JwksUri` while it is cached (none when it was not fetched, or could not be).
pub fn keys(rp: &Rp) -> Vec<RpKey> {
    let Some(uri) = rp.jwks_uri.as_deref().filter(|_| rp.jwks.is_empty()) else {
        return rp.jwks.clone();
    };
    let Ok(cache) = CACHE.lock() else {
        return Vec::new();
    };
    cache
        .as_ref()
        .and_then(|c| c.get(&rp.client_id))
        .filter(|e| e.uri == uri && e.until > Instant::now())
        .map(|e| e.keys.clone())
        .unwrap_or_default()
}

/// Whether the keys to verify `token` (a JWT of `rp` signed with its own keys) must be
/// fetched first: `rp` has a `jwks_uri` and no inline keys, and its set is not cached, or has
/// expired, or has no key that fits the token's `alg` and `kid` and verifies its signature (a
/// rotated key, named by a new `kid` or by none) and no such fetch was made for this client in
/// the last [`REFETCH_INTERVAL`] (this one is then recorded). Fast: on a worker.
pub fn needs_fetch(rp: &Rp, token: &str) -> Option<Fetch> {
    let uri = rp.jwks_uri.as_deref().filter(|_| rp.jwks.is_empty())?;
    let header = jwt::peek_header(token)?;
    let alg = header
        .get("alg")
        .and_then(Value::as_str)
        .and_then(Alg::parse)?;
    alg.key_kind()?;
    let kid = header.get("kid").and_then(Value::as_str);
    let mut cache = CACHE.lock().ok()?;
    let entry = cache.as_mut().and_then(|c| c.get_mut(&rp.client_id));
    let verifies = |k: &RpKey| {
        k.fits(alg, kid) && jwt::verify(token, alg, jwt::VerifyKey::Public(&k.jwk)).is_ok()
    };
    decide(entry, uri, Instant::now(), verifies).then(|| Fetch {
        client_id: rp.client_id.clone(),
        uri: uri.to_string(),
    })
}

/// [`needs_fetch`]'s rule on the client's entry at `now`.
fn decide(
    entry: Option<&mut Entry>,
    uri: &str,
    now: Instant,
    verifies: impl Fn(&RpKey) -> bool,
) -> bool {
    let Some(e) = entry.filter(|e| e.uri == uri && e.until > now) else {
        return true;
    };
    if e.keys.iter().any(verifies) {
        return false;
    }
    let due = e.refetched.map_or(true, |t| {
        now.saturating_duration_since(t) >= REFETCH_INTERVAL
    });
    if due {
        e.refetched = Some(now);
    }
    due
}

/// Caches what a fetch got (`None`: it failed, the set counts as empty for [`FAILED_TTL`]). A
/// failed refetch of a set still in its time keeps it: the keys were good a moment ago.
fn store(client_id: &str, uri: &str, keys: Option<Vec<RpKey>>, now: Instant) {
    let Ok(mut guard) = CACHE.lock() else {
        return;
    };
    let cache = guard.get_or_insert_with(HashMap::new);
    let old = cache.remove(client_id).filter(|e| e.uri == uri);
    let refetched = old.as_ref().and_then(|e| e.refetched);
    let entry = match (keys, old) {
        (Some(keys), _) => Entry {
            uri: uri.to_string(),
            keys,
            until: now + TTL,
            refetched,
        },
        (None, Some(e)) if e.until > now && !e.keys.is_empty() => e,
        (None, _) => Entry {
            uri: uri.to_string(),
            keys: Vec::new(),
            until: now + FAILED_TTL,
            refetched,
        },
    };
    if cache.len() >= MAX_CLIENTS {
        let first = cache
            .iter()
            .min_by_key(|(_, e)| e.until)
            .map(|(k, _)| k.clone());
        if let Some(k) = first {
            cache.remove(&k);
        }
    }
    cache.insert(client_id.to_string(), entry);
}

/// GETs a key set through the outbound guard and reads it (RFC 7517 5): at most one byte more
/// than [`MAX_JWKS`] is read, and an answer that has it is refused whole.
fn fetch(uri: &str) -> Result<Vec<RpKey>, String> {
    read(&crate::upstream::get_capped(
        uri,
        FETCH_TIMEOUT,
        MAX_JWKS,
        "the key set",
    )?)
}

/// A fetched key set, read as strictly as an inline one, with at most [`MAX_KEYS`] keys.
fn read(body: &[u8]) -> Result<Vec<RpKey>, String> {
    let doc: Value =
        serde_json::from_slice(body).map_err(|e| format!("the key set is not JSON: {e}"))?;
    let count = doc
        .get("keys")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if count > MAX_KEYS {
        return Err(format!("the key set holds more than {MAX_KEYS} keys"));
    }
    if !doc.is_object() {
        return Err("the key set is not a JSON object".into());
    }
    parse_jwks(&doc).map_err(|e| format!("the key set does not read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::keys::{KeyKind, PrivateKey};

    fn key(kid: &str) -> RpKey {
        let (pem, _) = crate::oidc::keys::keygen::generate(KeyKind::Ec).unwrap();
        let k = PrivateKey::from_pem(KeyKind::Ec, &pem, kid).unwrap();
        RpKey {
            jwk: k.public().clone(),
            alg: None,
        }
    }

    fn entry(keys: Vec<RpKey>, until: Instant) -> Entry {
        Entry {
            uri: "https://rp/jwks".into(),
            keys,
            until,
            refetched: None,
        }
    }

    #[test]
    fn a_missing_or_old_set_is_fetched_an_unknown_kid_once_in_a_while() {
        let now = Instant::now();
        let uri = "https://rp/jwks";
        let kid = |want: &'static str| move |k: &RpKey| k.fits(Alg::ES256, Some(want));
        assert!(decide(None, uri, now, kid("a")));
        let mut old = entry(vec![key("a")], now);
        assert!(decide(Some(&mut old), uri, now, kid("a")));
        let mut e = entry(vec![key("a")], now + TTL);
        assert!(!decide(Some(&mut e), uri, now, kid("a")));
        assert!(decide(Some(&mut e), "https://rp/other", now, kid("a")));
        // An unknown kid: one fetch, then none until the interval has passed.
        assert!(decide(Some(&mut e), uri, now, kid("b")));
        assert!(!decide(Some(&mut e), uri, now, kid("c")));
        let later = now + Duration::from_secs(29);
        assert!(!decide(Some(&mut e), uri, later, |_| false));
        assert!(decide(Some(&mut e), uri, now + REFETCH_INTERVAL, kid("d")));
    }

    #[test]
    fn sets_are_read_strictly_and_bounded() {
        let one = serde_json::json!({"keys": [key("a").jwk.to_json()]});
        assert_eq!(read(one.to_string().as_bytes()).unwrap().len(), 1);
        assert!(read(b"{nope").unwrap_err().contains("not JSON"));
        assert!(read(b"\"{}\"").is_err());
        let many: Vec<Value> = (0..=MAX_KEYS).map(|_| key("").jwk.to_json()).collect();
        let many = serde_json::json!({ "keys": many }).to_string();
        assert!(read(many.as_bytes()).unwrap_err().contains("more than"));
    }

    #[test]
    fn a_failed_fetch_keeps_a_fresh_set_and_empties_an_old_one() {
        let now = Instant::now();
        let (uri, id) = ("https://rp/jwks", "rp-jwks-unit");
        store(id, uri, Some(vec![key("a")]), now);
        store(id, uri, None, now);
        let rp = Rp {
            client_id: id.into(),
            jwks_uri: Some(uri.into()),
            ..Rp::default()
        };
        assert_eq!(keys(&rp).len(), 1);
        store(id, uri, None, now + TTL + Duration::from_secs(1));
        let guard = CACHE.lock().unwrap();
        let e = guard.as_ref().unwrap().get(id).unwrap();
        assert!(e.keys.is_empty());
    }
}
