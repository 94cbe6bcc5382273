//! The time zone a page shows its dates in: the browser's (the cookie `limette_tz` that
//! `/static/timezone.js` sets from `Intl.DateTimeFormat().resolvedOptions().timeZone`), else the
//! configuration's `portalTimezone` (default `UTC`). A zone is an IANA name, read from the
//! system's compiled zones (`TZDIR`, else `/usr/share/zoneinfo`; `tzif` reads them, `rule` their
//! footer) and kept once read. A name that is malformed is ignored; a zone the system does not
//! know (an appliance without zone files) shows UTC, labelled "UTC": never an offset that is
//! not the zone's. This module owns no page: `page::Page` asks it for the local time of an epoch.
pub mod local;
pub mod rule;
pub mod tzif;

use crate::config::{value_string, AreaSettings};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tzif::Zone;

/// The cookie the browser's script sets to its time zone's name.
pub const COOKIE: &str = "limette_tz";
/// The most zones kept once read (names come from cookies: the cache must not grow without end).
const MAX_CACHED: usize = 600;

/// `portalTimezone`: the zone of the dates when the browser has not told its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The zone's IANA name (`UTC` by default).
    pub default: String,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Settings, String> {
        let v = raw
            .get("portalTimezone")
            .map(value_string)
            .unwrap_or_default()
            .trim()
            .to_string();
        match v.as_str() {
            "" => Ok(Settings {
                default: "UTC".into(),
            }),
            v if is_name(v) && load(v).is_some() => Ok(Settings {
                default: v.to_string(),
            }),
            v => Err(format!(
                "portalTimezone = {v:?} is not supported (expected a time zone this system knows, such as Europe/Paris or UTC)"
            )),
        }
    }
}

/// An instant as a page shows it: local seconds since the epoch and the zone's label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    /// The epoch shifted by the zone's offset at that instant.
    pub epoch: i64,
    /// `CET`, or `UTC+03:00` when the zone has no lettered abbreviation, or `UTC`.
    pub label: String,
}

/// `epoch` in the zone named `name` (a name already checked by `is_name`); UTC when unknown.
pub fn local(name: &str, epoch: i64) -> Local {
    let Some(zone) = load(name) else {
        return Local {
            epoch,
            label: "UTC".into(),
        };
    };
    let t = zone.at(epoch);
    let lettered = t.abbr.len() >= 3 && t.abbr.bytes().all(|b| b.is_ascii_alphabetic());
    let label = match (lettered, t.offset) {
        (true, _) => t.abbr,
        (false, 0) => "UTC".into(),
        (false, o) => {
            let sign = if o < 0 { '-' } else { '+' };
            let a = o.unsigned_abs();
            format!("UTC{sign}{:02}:{:02}", a / 3600, (a / 60) % 60)
        }
    };
    Local {
        epoch: epoch + i64::from(t.offset),
        label,
    }
}

/// The zone a request's page shows: the cookie's when it names a zone, else the default.
pub fn chosen(cookie: Option<&str>, default: &str) -> String {
    match cookie {
        Some(c) if is_name(c) => c.to_string(),
        _ => default.to_string(),
    }
}

/// An IANA zone name: parts of letters, digits, `_`, `+`, `-` (not starting with `.` or `-`),
/// joined by `/`, at most 64 characters. Nothing else reaches the file system.
pub fn is_name(s: &str) -> bool {
    s.len() <= 64
        && s.split('/').all(|p| {
            !p.is_empty()
                && p.as_bytes()[0].is_ascii_alphanumeric()
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-'))
        })
}

/// The zone `name`, read once and kept; `None` when the system does not know it (UTC and its
/// aliases need no file).
fn load(name: &str) -> Option<Arc<Zone>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<Arc<Zone>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(z) = cache.lock().ok().and_then(|c| c.get(name).cloned()) {
        return z;
    }
    let zone = read(name).map(Arc::new);
    if let Ok(mut c) = cache.lock() {
        if c.len() < MAX_CACHED {
            c.insert(name.to_string(), zone.clone());
        }
    }
    zone
}

fn read(name: &str) -> Option<Zone> {
    if matches!(
        name,
        "UTC" | "Etc/UTC" | "Zulu" | "Etc/Zulu" | "GMT" | "Etc/GMT"
    ) {
        return Zone::parse(&utc_tzif());
    }
    if !is_name(name) {
        return None;
    }
    let dir = std::env::var_os("TZDIR").unwrap_or_else(|| "/usr/share/zoneinfo".into());
    let path = std::path::Path::new(&dir).join(name);
    let file = std::fs::File::open(path).ok()?;
    let mut data = Vec::new();
    use std::io::Read as _;
    file.take(tzif::MAX_FILE as u64 + 1)
        .read_to_end(&mut data)
        .ok()?;
    (data.len() <= tzif::MAX_FILE).then_some(())?;
    Zone::parse(&data)
}

/// A version 1 TZif file of UTC alone (no transitions, one type).
fn utc_tzif() -> Vec<u8> {
    let mut f = b"TZif".to_vec();
    f.extend([0u8; 16]);
    for c in [0u32, 0, 0, 0, 1, 4] {
        f.extend(c.to_be_bytes());
    }
    f.extend([0, 0, 0, 0, 0, 0]);
    f.extend(b"UTC\0");
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_before_any_file_is_read() {
        for good in [
            "UTC",
            "Europe/Paris",
            "America/Argentina/Buenos_Aires",
            "Etc/GMT+3",
        ] {
            assert!(is_name(good), "{good}");
        }
        for bad in [
            "",
            "../etc/passwd",
            "Europe/../../x",
            "/etc/x",
            "Europe//Paris",
            "a b",
            "-x",
            "Europe/Paris;",
        ] {
            assert!(!is_name(bad), "{bad}");
        }
        assert_eq!(chosen(Some("../x"), "UTC"), "UTC");
        assert_eq!(chosen(Some("Europe/Paris"), "UTC"), "Europe/Paris");
        assert_eq!(chosen(None, "Asia/Tokyo"), "Asia/Tokyo");
    }

    #[test]
    fn a_known_zone_shifts_and_an_unknown_one_says_utc() {
        // 2024-07-01 12:00 UTC.
        let t = 1_719_835_200;
        assert_eq!(
            local("Europe/Paris", t),
            Local {
                epoch: t + 7200,
                label: "CEST".into()
            }
        );
        assert_eq!(
            local("Mars/Olympus", t),
            Local {
                epoch: t,
                label: "UTC".into()
            }
        );
        assert_eq!(
            local("UTC", t),
            Local {
                epoch: t,
                label: "UTC".into()
            }
        );
        // Dubai's abbreviation is "+04": shown as an offset.
        assert_eq!(local("Asia/Dubai", t).label, "UTC+04:00");
    }

    #[test]
    fn the_default_zone_must_be_known() {
        let conf = |v: &str| {
            let mut m = Map::new();
            m.insert("portalTimezone".into(), Value::String(v.into()));
            Settings::from_conf(&m)
        };
        assert_eq!(conf("").map(|s| s.default), Ok("UTC".into()));
        assert_eq!(
            conf("Europe/Paris").map(|s| s.default),
            Ok("Europe/Paris".into())
        );
        assert!(conf("Mars/Olympus").unwrap_err().contains("portalTimezone"));
        assert!(conf("../../etc/passwd").is_err());
    }
}
