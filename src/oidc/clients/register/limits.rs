//! The bounds of dynamic registration, which is open to anyone once on: a rate per client
//! address (`oidcServiceDynamicRegistrationRate` registrations a minute; IPv6 addresses count
//! by their /64, which one host usually holds whole), a size for the metadata
//! (`oidcServiceDynamicRegistrationMaxSize` bytes), a number of self-registered relying parties
//! (`oidcServiceDynamicRegistrationMaxClients`), and a number of configuration versions made
//! by registrations that are kept (`oidcServiceDynamicRegistrationKeptVersions`; older ones
//! made by registrations are removed, never a version saved otherwise). Defaults live in
//! `config::defaults`; the handler in `register` applies them.
use crate::oidc::settings::registration::PREFIX;
use crate::storage::ConfStore;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// The start of `cfgAuthor` of a version saved by a registration.
pub const AUTHOR: &str = "OpenID Connect Registration (";

/// The rate window, in seconds.
const WINDOW: i64 = 60;

/// Addresses followed at once; past it, new addresses are refused until windows end (the
/// table never grows without bound, and a flood from many addresses fails closed).
const MAX_ADDRESSES: usize = 10_000;

/// Per-address counts of the current window: address key -> (window start, count).
static SEEN: Mutex<Option<HashMap<IpAddr, (i64, u32)>>> = Mutex::new(None);

/// Counts a request from `ip` at `now`: `Ok` when under `rate`, else `Err(seconds)` to wait.
pub fn admit(ip: Option<IpAddr>, rate: u32, now: i64) -> Result<(), i64> {
    // An unknown address counts as one address: all of them together.
    let key = ip.map_or(IpAddr::from([0u8; 16]), address_key);
    let Ok(mut seen) = SEEN.lock() else {
        return Err(WINDOW);
    };
    let seen = seen.get_or_insert_with(HashMap::new);
    if !seen.contains_key(&key) && seen.len() >= MAX_ADDRESSES {
        seen.retain(|_, (start, _)| now - *start < WINDOW);
        if seen.len() >= MAX_ADDRESSES {
            return Err(WINDOW);
        }
    }
    let entry = seen.entry(key).or_insert((now, 0));
    if now - entry.0 >= WINDOW || now < entry.0 {
        *entry = (now, 0);
    }
    if entry.1 >= rate {
        return Err((entry.0 + WINDOW - now).clamp(1, WINDOW));
    }
    entry.1 += 1;
    Ok(())
}

/// What a rate is counted on: the address, an IPv6 one by its /64.
fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none() => {
            let s = v6.segments();
            IpAddr::from([s[0], s[1], s[2], s[3], 0, 0, 0, 0])
        }
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// How many self-registered relying parties a configuration document holds.
pub fn registered(doc: &Map<String, Value>) -> usize {
    doc.get("oidcRPMetaDataOptions")
        .and_then(|o| o.as_object())
        .map_or(0, |o| o.keys().filter(|k| k.starts_with(PREFIX)).count())
}

/// Removes the versions made by registrations beyond the newest `keep` of them, never the
/// newest version of all nor one whose author is not a registration (or cannot be read).
/// Returns how many were removed; a store that cannot remove keeps them all (logged once
/// per call). `keep` 0: nothing removed.
pub fn prune(store: &dyn ConfStore, keep: usize) -> usize {
    if keep == 0 {
        return 0;
    }
    let Ok(mut nums) = store.numbers() else {
        return 0;
    };
    crate::util::sort::sort(&mut nums);
    // The newest version is the one just saved (or a newer one): never removed.
    nums.pop();
    let by_registration: Vec<u64> = nums
        .into_iter()
        .filter(|n| {
            store.load_cfg_fields(*n).is_ok_and(|f| {
                f.get("cfgAuthor")
                    .and_then(|a| a.as_str())
                    .is_some_and(|a| a.starts_with(AUTHOR))
            })
        })
        .collect();
    // The newest kept is the one just saved, so `keep - 1` older ones stay beside it.
    let extra = by_registration.len().saturating_sub(keep - 1);
    let mut removed = 0;
    for num in by_registration.into_iter().take(extra) {
        match store.remove(num) {
            Ok(true) => removed += 1,
            Ok(false) => {}
            Err(e) => {
                crate::log::warn(&format!(
                    "registration: configuration {num} not removed: {e}"
                ));
                break;
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_per_address_and_per_minute() {
        let a: IpAddr = "192.0.2.7".parse().unwrap();
        let b: IpAddr = "192.0.2.8".parse().unwrap();
        let t = 1_000_000;
        assert_eq!(admit(Some(a), 2, t), Ok(()));
        assert_eq!(admit(Some(a), 2, t + 1), Ok(()));
        assert_eq!(admit(Some(a), 2, t + 10), Err(50));
        assert_eq!(admit(Some(b), 2, t + 10), Ok(()));
        assert_eq!(admit(Some(a), 2, t + 60), Ok(()));
        assert_eq!(admit(Some(b), 0, t + 10), Err(60));
        // One /64 is one address.
        let v6 = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        assert_eq!(admit(v6("2001:db8::1"), 1, t), Ok(()));
        assert!(admit(v6("2001:db8::2:3"), 1, t).is_err());
        assert_eq!(admit(v6("2001:db8:0:1::1"), 1, t), Ok(()));
    }

    fn prune_keeps_what_it_must(store: &dyn ConfStore) {
        let save = |author: &str| {
            let mut m = serde_json::Map::new();
            m.insert("cfgAuthor".into(), serde_json::json!(author));
            store.save(&m).unwrap()
        };
        let reg = "OpenID Connect Registration (x)";
        // 1 by hand, 2-4 registrations, 5 by hand, 6-7 registrations.
        for a in ["admin", reg, reg, reg, "admin", reg, reg] {
            save(a);
        }
        assert_eq!(prune(store, 0), 0, "0 keeps all");
        assert_eq!(prune(store, 3), 2);
        assert_eq!(store.numbers().unwrap(), [1, 4, 5, 6, 7]);
        assert_eq!(prune(store, 1), 2);
        assert_eq!(store.numbers().unwrap(), [1, 5, 7]);
        // The newest is never removed, whoever saved it; numbering goes on past it.
        assert_eq!(prune(store, 1), 0);
        assert_eq!(save("admin"), 8);
    }

    #[test]
    fn prune_removes_only_old_registration_versions_on_file_and_sqlite() {
        let dir =
            std::env::temp_dir().join(format!("limette-prune-{}", crate::util::random_hex(6)));
        let file = crate::storage::file::conf::FileConf::open(&dir.join("f")).unwrap();
        prune_keeps_what_it_must(&file);
        let db = dir.join("c.db");
        let sqlite = crate::storage::sqlite::conf::SqliteConf::open(&db, "lmConfig").unwrap();
        prune_keeps_what_it_must(&sqlite);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn registered_clients_are_counted_by_name() {
        let doc = serde_json::json!({"oidcRPMetaDataOptions":
            {"register-1": {}, "register-2-2": {}, "rp1": {}}});
        assert_eq!(registered(doc.as_object().unwrap()), 2);
    }
}
