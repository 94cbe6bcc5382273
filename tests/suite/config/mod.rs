//! The configuration area, seen by its users: the REST configuration proxy (every row of the
//! contract's configuration section, on the File and the SQLite stores), the error references
//! and language files, a second instance reading the first through the REST configuration
//! client, and the `limette config` command line (round trip, refusals, concurrent saves,
//! saves taking effect in a running server).
use crate::common;

mod check;
mod cli;
mod conformance;
mod cookie_domain;
mod key_table;
mod llng_cli;
mod proxy;
mod remote;

use common::config::conf_with;
use common::{Portal, Resp};
use serde_json::{json, Map, Value};

/// The metadata keys every save sets.
pub const META: [&str; 6] = [
    "cfgNum",
    "cfgAuthor",
    "cfgAuthorIP",
    "cfgDate",
    "cfgLog",
    "cfgVersion",
];

/// A GET as a JSON client.
pub fn get(p: &Portal, path: &str) -> Resp {
    p.client().get_json(path)
}

/// The default configuration with the proxy on and two macros.
pub fn proxy_conf() -> Map<String, Value> {
    conf_with(&[
        ("restConfigServer", json!(1)),
        ("macros", json!({"UA": "$ENV{HTTP_USER_AGENT}", "A": "1"})),
    ])
}

/// A JSON error answer with its status, exact text and no-cache header.
pub fn assert_error(r: &Resp, status: u16, text: &str) {
    assert_eq!(r.status, status, "{}", r.text());
    assert_eq!(r.json(), json!({ "error": text }));
    assert!(r.header("cache-control").unwrap_or("").contains("no-store"));
}
