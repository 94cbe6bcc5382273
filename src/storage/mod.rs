//! The stores behind small object-safe traits: sessions by kind, numbered configurations (and
//! notifications, in `notifications`' own trait). Backends: `file` (one JSON document per
//! record, atomic temp-file-and-rename writes), `sqlite` (the only rusqlite user) and `rest`
//! (a remote session server, through `upstream`). Every id is validated before it can reach a
//! path or a query: see `util::is_safe_id`.
#[cfg(test)]
pub mod contract;
pub mod file;
pub mod rest;
pub mod sqlite;

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::sync::Arc;

/// A session: LemonLDAP::NG's hash of keys.
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
    /// Creates or replaces a session.
    fn put(&self, kind: Kind, id: &str, data: &Session) -> Result<()>;
    /// Replaces a session only if it still exists; `false` when it is gone. A refresh or a merge
    /// uses it so that a session deleted meanwhile (a logout) is never brought back.
    fn update(&self, kind: Kind, id: &str, data: &Session) -> Result<bool>;
    /// Creates a session only if the id is free; `false` when it already exists.
    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool>;
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
    /// Saves `conf` as number latest+1 (written into its `cfgNum`) atomically: concurrent
    /// savers never get the same number. Read-only stores refuse.
    fn save(&self, conf: &Map<String, Value>) -> Result<u64>;
    /// A short description for logs and the CLI.
    fn describe(&self) -> String;
}

/// Checks an id before it reaches a path or a query.
pub fn check_id(id: &str) -> Result<()> {
    if crate::util::is_safe_id(id) {
        Ok(())
    } else {
        Err(Error::bad("Invalid identifier"))
    }
}

/// What `[portal] globalStorage`/`globalStorageOptions` (and friends) name.
#[derive(Debug, Clone)]
pub struct StorageSpec {
    /// `File`, `SQLite` or `REST` (LemonLDAP::NG's Apache::Session module names are accepted too).
    pub kind: String,
    /// The options object.
    pub options: Map<String, Value>,
}

/// Opens a session store from its spec; `key` is the configuration key for the REST protocol.
pub fn open_sessions(spec: &StorageSpec, key: &str) -> Result<Arc<dyn SessionStore>> {
    let opt = |k: &str| {
        spec.options
            .get(k)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    match normalize_kind(&spec.kind).as_str() {
        "file" => {
            let dir = opt("Directory").ok_or_else(|| Error::bad("Directory option is required"))?;
            Ok(Arc::new(file::sessions::FileSessions::open(dir.as_ref())?))
        }
        "sqlite" => {
            let source =
                opt("DataSource").ok_or_else(|| Error::bad("DataSource option is required"))?;
            let path = dbi_sqlite_path(&source).map_err(Error::bad)?;
            Ok(Arc::new(sqlite::sessions::SqliteSessions::open(
                path.as_ref(),
            )?))
        }
        "rest" => Ok(Arc::new(rest::RestSessions::new(&spec.options, key)?)),
        other => Err(Error::bad(format!("unknown storage type {other}"))),
    }
}

/// The one database driver of `dbiChain` / `DataSource` (PostgreSQL comes later).
pub const DBI_DRIVERS: &[&str] = &["SQLite"];

/// The file of a SQLite `dbiChain`/`DataSource` (`dbi:SQLite:dbname=<file>`, the `dbi` prefix
/// in any case, `dbname=` or `database=`), or a plain path. Another driver is refused by name.
pub fn dbi_sqlite_path(chain: &str) -> Result<String, String> {
    let chain = chain.trim();
    let Some(after) = chain
        .get(..4)
        .filter(|p| p.eq_ignore_ascii_case("dbi:"))
        .and_then(|_| chain.get(4..))
    else {
        return if chain.is_empty() {
            Err("empty database path".into())
        } else {
            Ok(chain.to_string())
        };
    };
    let (driver, params) = after.split_once(':').unwrap_or((after, ""));
    if !DBI_DRIVERS.contains(&driver) {
        return Err(format!(
            "{chain} is not supported (driver {driver}; supported: {})",
            DBI_DRIVERS.join(", ")
        ));
    }
    let path = params
        .split(';')
        .find_map(|p| {
            let (k, v) = p.split_once('=')?;
            matches!(k.trim(), "dbname" | "database" | "db").then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| params.trim().to_string());
    if path.is_empty() {
        return Err(format!("{chain}: no database file"));
    }
    Ok(path)
}

/// Maps LemonLDAP::NG module names to ours (`Apache::Session::File` -> `file`).
pub fn normalize_kind(kind: &str) -> String {
    let k = kind
        .rsplit("::")
        .next()
        .unwrap_or(kind)
        .to_ascii_lowercase();
    match k.as_str() {
        "browseable" | "file" => "file".into(),
        "sqlite" | "sqlite3" => "sqlite".into(),
        "rest" => "rest".into(),
        other => other.into(),
    }
}
