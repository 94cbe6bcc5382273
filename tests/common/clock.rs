//! Time moved forward in a portal under test: its debug route `/__test/clock` (the portal must
//! be started with `test_hooks()`) shifts the clock every expiry is judged by, so lifetimes of
//! minutes are tested in milliseconds and without sleeps.
use super::Portal;

/// Moves the portal's clock `secs` seconds forward; returns the total skew it reports.
pub fn advance(p: &Portal, secs: i64) -> i64 {
    let r = p
        .client()
        .get(&format!("/__test/clock?advance={secs}"), &[]);
    assert_eq!(r.status, 200, "clock hook (test hooks on?): {}", r.text());
    r.json()["skew"]
        .as_i64()
        .unwrap_or_else(|| panic!("no skew in {}", r.text()))
}
