//! What the settings say about stores, as plain values: a store named by a spec (kind and
//! options, as `[portal] globalStorage` and friends give it), the SQLite file of a `dbiChain`,
//! and LemonLDAP::NG's module names mapped to ours. Opening the stores is `storage`'s; this file
//! only reads settings, so that the settings readers need nothing above them.
use serde_json::{Map, Value};

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
