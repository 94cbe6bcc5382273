//! What the settings say about stores, as plain values: a store named by a spec (kind and
//! options, as `[portal] globalStorage` and friends give it), the SQLite file of a `dbiChain`,
//! LemonLDAP::NG's module names mapped to ours, and where notifications are stored. Opening the stores is `storage`'s; this file
//! only reads settings, so that the settings readers need nothing above them.
use serde_json::{Map, Value};
use std::path::PathBuf;

/// What `[portal] globalStorage`/`globalStorageOptions` (and friends) name.
#[derive(Debug, Clone)]
pub struct StorageSpec {
    /// `File`, `SQLite` or `REST` (LemonLDAP::NG's Apache::Session module names are accepted too).
    pub kind: String,
    /// The options object.
    pub options: Map<String, Value>,
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

/// Where notifications are stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageChoice {
    /// A folder of LemonLDAP::NG-named files.
    File {
        /// `dirName`.
        dir: PathBuf,
        /// `fileNameSeparator` (default `_`).
        separator: String,
    },
    /// A SQLite database file and table.
    Sqlite {
        /// From `dbiChain` (`dbi:SQLite:dbname=<path>`).
        path: PathBuf,
        /// `dbiTable` (default `notifications`).
        table: String,
    },
}

/// `notificationStorage` / `notificationStorageOptions`; errors name the key.
pub fn notification_storage(
    raw: &Map<String, Value>,
    separator: &str,
) -> Result<Option<StorageChoice>, String> {
    let kind = raw
        .get("notificationStorage")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    let empty = Map::new();
    let opts = match raw.get("notificationStorageOptions") {
        Some(Value::Object(m)) => m,
        _ => &empty,
    };
    let opt = |k: &str| {
        opts.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match kind.to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "file" => {
            let dir = opt("dirName")
                .ok_or("notificationStorageOptions: dirName is required for type File")?;
            let separator = opt("fileNameSeparator").unwrap_or(separator).to_string();
            Ok(Some(StorageChoice::File {
                dir: dir.into(),
                separator,
            }))
        }
        "sqlite" | "dbi" | "rdbi" | "cdbi" => {
            let chain = opt("dbiChain")
                .ok_or("notificationStorageOptions: dbiChain is required for type SQLite")?;
            let path = dbi_sqlite_path(chain)
                .map_err(|e| format!("notificationStorageOptions: dbiChain {e}"))?;
            let table = opt("dbiTable").unwrap_or("notifications").to_string();
            Ok(Some(StorageChoice::Sqlite {
                path: path.into(),
                table,
            }))
        }
        other => Err(format!(
            "notificationStorage: unknown type {other} (File or SQLite)"
        )),
    }
}

/// Where the notifications of a configuration are stored, as `storage::notifications::open`
/// takes it: `notificationStorage` (`None`: beside the configuration store) and the file name
/// separator (`fileNameSeparator`, default `_`). Errors name the key.
pub fn notification_store_of(
    raw: &Map<String, Value>,
) -> Result<(Option<StorageChoice>, String), String> {
    let separator = match raw.get("fileNameSeparator") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => "_".to_string(),
    };
    Ok((notification_storage(raw, &separator)?, separator))
}
