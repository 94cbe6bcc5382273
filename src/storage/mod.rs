//! The stores behind small object-safe traits: sessions by kind, numbered configurations and
//! notifications (`notifications`), opened from their settings in `open`, outside the trait and backend modules: the
//! configuration store first (`open::open_conf`, it names the others), then every other one at
//! once (`open::open_stores`).
//! Backends: `file` (one JSON document per record, atomic temp-file-and-rename writes),
//! `sqlite` (the only rusqlite user), `pg` (PostgreSQL in LemonLDAP::NG's tables, with the
//! `postgres` feature), `rest` (a remote session server, and `rest::conf` a
//! remote configuration, through `upstream`) and `memory` (tests, and the REST store's
//! internal kinds); `save` is the one path that writes a configuration. Every id is validated
//! before it can reach a path or a query: see `util::is_safe_id`.
#[cfg(test)]
pub mod contract;
pub mod file;
pub mod memory;
pub mod notifications;
pub mod open;
#[cfg(feature = "postgres")]
pub mod pg;
pub mod rest;
pub mod save;
pub mod sqlite;
pub mod users;

pub use crate::config::stores::{dbi_sqlite_path, normalize_kind, StorageSpec, DBI_DRIVERS};
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// A stored session record, as every store keeps it: LemonLDAP::NG's hash of keys, for every
/// `Kind` (SSO, persistent, OpenID Connect, pending). This is the storage edge's type: the
/// domain's live SSO session is `sso::SsoSession`, which wraps one and is what the areas are
/// handed (`sso::lookup`, `sso::from_cookie`); the other kinds are records their owners read.
pub type Session = Map<String, Value>;

/// Which family of records a session belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// SSO sessions (`global`).
    Global,
    /// Persistent sessions, one per user (`persistent`).
    Persistent,
    /// OpenID Connect codes, access and refresh tokens.
    Oidc,
    /// Short-lived portal records: pending logins, CSRF tokens.
    Pending,
}

impl Kind {
    /// The name used in paths and tables.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Global => "global",
            Kind::Persistent => "persistent",
            Kind::Oidc => "oidc",
            Kind::Pending => "pending",
        }
    }

    /// Parses a REST session type (`global` or `persistent` only: the others are internal).
    pub fn from_rest(s: &str) -> Option<Kind> {
        match s {
            "global" => Some(Kind::Global),
            "persistent" => Some(Kind::Persistent),
            _ => None,
        }
    }

    /// Every kind.
    pub const ALL: [Kind; 4] = [Kind::Global, Kind::Persistent, Kind::Oidc, Kind::Pending];
}

/// A session backend. Implementations must make `put`, `create` and `take` atomic with respect
/// to other workers and processes sharing the same storage.
pub trait SessionStore: Send + Sync {
    /// The session, or `None` when absent.
    fn get(&self, kind: Kind, id: &str) -> Result<Option<Session>>;
    /// Whether the session is there, without reading it: this default asks `get`; the file
    /// and memory stores look for it only (a file that is there and not empty; whether its
    /// JSON reads is for `get` to say).
    fn exists(&self, kind: Kind, id: &str) -> Result<bool> {
        Ok(self.get(kind, id)?.is_some())
    }
    /// Creates or replaces a session.
    fn put(&self, kind: Kind, id: &str, data: &Session) -> Result<()>;
    /// Replaces a session only if it still exists; `false` when it is gone. A refresh or a merge
    /// uses it so that a session deleted meanwhile (a logout) is never brought back.
    fn update(&self, kind: Kind, id: &str, data: &Session) -> Result<bool>;
    /// Creates a session only if the id is free; `false` when it already exists.
    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool>;
    /// Creates several sessions, in order, each only if its id is free: all of them, or none
    /// and `false` when an id is taken. The SQL stores write them at once (SQLite in one
    /// transaction, PostgreSQL in one `INSERT`: a code's token family and its tokens, one
    /// commit instead of three); this default creates them one by one and removes those it
    /// made when one is refused or fails, so a reader may see the first before the last, never
    /// the last without the first.
    fn create_all(&self, kind: Kind, records: &[(&str, &Session)]) -> Result<bool> {
        for (id, _) in records {
            check_id(id)?;
        }
        for (i, (id, data)) in records.iter().enumerate() {
            let made = self.create(kind, id, data);
            if !matches!(made, Ok(true)) {
                for (undo, _) in &records[..i] {
                    let _ = self.delete(kind, undo);
                }
                return made;
            }
        }
        Ok(true)
    }
    /// Deletes; `false` when it did not exist.
    fn delete(&self, kind: Kind, id: &str) -> Result<bool>;
    /// Removes and returns the session in one atomic step: of two concurrent callers, exactly
    /// one gets it (single-use codes).
    fn take(&self, kind: Kind, id: &str) -> Result<Option<Session>>;
    /// Every id of a kind.
    fn ids(&self, kind: Kind) -> Result<Vec<String>>;
    /// A short description for logs and the CLI.
    fn describe(&self) -> String;
}

/// A store of numbered configurations.
pub trait ConfStore: Send + Sync {
    /// The numbers available, ascending.
    fn numbers(&self) -> Result<Vec<u64>>;
    /// The highest number, if any (a cheap check for the reload loop).
    fn latest(&self) -> Result<Option<u64>> {
        Ok(self.numbers()?.into_iter().max())
    }
    /// One configuration as stored; `NotFound` when absent.
    fn load(&self, num: u64) -> Result<Map<String, Value>>;
    /// At least the `cfg*` fields of one configuration (what `GET /config/latest` answers,
    /// which every handler polls); a store may read only those. `NotFound` when absent.
    fn load_cfg_fields(&self, num: u64) -> Result<Map<String, Value>> {
        self.load(num)
    }
    /// Saves `conf` as number latest+1 (written into its `cfgNum`) atomically: concurrent
    /// savers never get the same number. Read-only stores refuse.
    fn save(&self, conf: &Map<String, Value>) -> Result<u64>;
    /// Removes version `num`: `true` when it was there and is gone, `false` when absent or
    /// when the store cannot remove (the default: a read-only or remote store keeps every
    /// version). Only dynamic registration's bound on its own versions calls it.
    fn remove(&self, num: u64) -> Result<bool> {
        let _ = num;
        Ok(false)
    }
    /// A short description for logs and the CLI.
    fn describe(&self) -> String;
}

/// A session row's JSON text as a session (the SQL backends store one JSON object a row).
pub fn decode_session(text: &str) -> Result<Session> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(Error::storage("session row is not a JSON object")),
    }
}

/// A session as a row's JSON text.
pub fn encode_session(data: &Session) -> Result<String> {
    serde_json::to_string(data).map_err(Error::internal)
}

/// The rows of a `create_all` on an SQL store: each id checked, each session as its JSON
/// text, before anything is written.
pub fn encode_rows<'a>(records: &[(&'a str, &Session)]) -> Result<Vec<(&'a str, String)>> {
    records
        .iter()
        .map(|(id, data)| {
            check_id(id)?;
            Ok((*id, encode_session(data)?))
        })
        .collect()
}

/// Checks an id before it reaches a path or a query.
pub fn check_id(id: &str) -> Result<()> {
    if crate::util::is_safe_id(id) {
        Ok(())
    } else {
        Err(Error::bad("Invalid identifier"))
    }
}
