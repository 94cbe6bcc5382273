//! Hostile input and faults against the real binary: oversized and trickled bodies, idle
//! connection floods, invalid UTF-8, deep JSON, huge request heads, CRLF aimed at headers,
//! path traversal in every id that reaches storage, and kill -9 during write bursts. Each
//! must get a clear 4xx quickly (or, for faults, leave consistent stores) while the server
//! keeps serving others.
use crate::common;

mod bounds;
mod clients;
mod faults;
mod fetches;
mod framing;
mod heads;
mod input;
mod slots;
mod soak;
mod stage;
mod store_faults;
mod traversal;

use common::{hostile, Portal};

/// Asserts the portal still answers a plain request (within the raw client's 10 s read
/// timeout: that detects a hang; speed is measured by `make bench`, not here).
pub fn assert_serving(p: &Portal) {
    let r = hostile::request(p.port, "GET", "/", "", b"").expect("portal still answers");
    assert_eq!(r.status, 401, "{}", r.text());
}

/// A portal with the REST session server on.
pub fn rest_portal() -> Portal {
    Portal::builder()
        .conf("restSessionServer", serde_json::json!(1))
        .start()
}
