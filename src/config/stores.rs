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

/// The database drivers of `dbiChain` / `DataSource`: `Pg` only in builds with the `postgres`
/// feature (the release and static builds).
pub const DBI_DRIVERS: &[&str] = if cfg!(feature = "postgres") {
    &["SQLite", "Pg"]
} else {
    &["SQLite"]
};

/// A PostgreSQL data source: the `key=value` pairs of a `DBI:Pg:` chain as DBD::Pg reads them
/// (libpq's names), with the user and password given beside it (`dbiUser`/`dbiPassword`,
/// `UserName`/`Password`). Only the parameters Limette honours are accepted (`pg_params`).
#[derive(Clone, PartialEq, Eq)]
pub struct PgSource {
    /// `(key, value)` in the chain's order, keys lower-cased, `database`/`db` read as `dbname`.
    pub params: Vec<(String, String)>,
    /// The role (`user=` in the chain, else `dbiUser`/`UserName`).
    pub user: Option<String>,
    /// Its password (`password=` in the chain, else `dbiPassword`/`Password`).
    pub password: Option<String>,
}

impl std::fmt::Debug for PgSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgSource")
            .field("params", &self.params)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl PgSource {
    /// One parameter's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A key naming this database for sharing one pool and for logs (no password).
    pub fn label(&self) -> String {
        let mut out = format!(
            "PostgreSQL {}",
            self.get("dbname").unwrap_or("(default database)")
        );
        if let Some(h) = self.get("host") {
            out.push_str(&format!(" on {h}"));
        }
        if let Some(p) = self.get("port") {
            out.push_str(&format!(":{p}"));
        }
        if let Some(u) = &self.user {
            out.push_str(&format!(" as {u}"));
        }
        out
    }
}

/// The parameters of a `DBI:Pg:` chain Limette honours; another one is refused by name.
/// `sslmode`: Limette has no TLS client for the database, so only the modes that allow a
/// connection in clear are accepted (reach the database over its local Unix socket, or a
/// trusted network); `require` and the `verify-*` modes are refused rather than weakened.
pub const PG_PARAMS: &[&str] = &[
    "dbname",
    "host",
    "port",
    "user",
    "password",
    "connect_timeout",
    "application_name",
    "sslmode",
];

/// Whether a chain names the PostgreSQL driver (`dbi:Pg:`, the `dbi` prefix in any case).
pub fn is_dbi_pg(chain: &str) -> bool {
    let c = chain.trim();
    c.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("dbi:"))
        && c.get(4..)
            .is_some_and(|r| r.starts_with("Pg:") || r == "Pg")
}

/// Reads a `DBI:Pg:` chain (`dbname=sso;host=/run/postgresql;port=5432`), with the user and
/// password given beside it; errors say what is wrong and what is supported.
pub fn dbi_pg_source(
    chain: &str,
    user: Option<&str>,
    password: Option<&str>,
) -> Result<PgSource, String> {
    if !is_dbi_pg(chain) {
        return Err(format!("{chain} is not a DBI:Pg: chain"));
    }
    if !cfg!(feature = "postgres") {
        return Err(format!(
            "{chain} is not supported (this build has no PostgreSQL client: build with the \
             postgres feature, as the release and static builds are)"
        ));
    }
    let rest = chain.trim().get(7..).unwrap_or("");
    let mut params: Vec<(String, String)> = Vec::new();
    for part in rest.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("{chain}: {part} is not key=value"))?;
        let k = match k.trim().to_ascii_lowercase().as_str() {
            "database" | "db" => "dbname".to_string(),
            other => other.to_string(),
        };
        if !PG_PARAMS.contains(&k.as_str()) {
            return Err(format!(
                "{chain}: parameter {k} is not supported (supported: {})",
                PG_PARAMS.join(", ")
            ));
        }
        params.retain(|(old, _)| *old != k);
        params.push((k, v.trim().to_string()));
    }
    let src = PgSource {
        user: pick(&params, "user", user),
        password: pick(&params, "password", password),
        params: params
            .into_iter()
            .filter(|(k, _)| k != "user" && k != "password")
            .collect(),
    };
    match src.get("sslmode") {
        None | Some("disable" | "allow" | "prefer") => {}
        Some(m) => {
            return Err(format!(
                "{chain}: sslmode={m} is not supported (Limette has no TLS client for the \
                 database: connect over the local Unix socket, host=/run/postgresql, or a \
                 trusted network with sslmode=disable)"
            ))
        }
    }
    if let Some(p) = src.get("port") {
        p.parse::<u16>()
            .map_err(|_| format!("{chain}: port={p} is not a port number"))?;
    }
    if let Some(t) = src.get("connect_timeout") {
        t.parse::<u64>()
            .map_err(|_| format!("{chain}: connect_timeout={t} is not a number of seconds"))?;
    }
    Ok(src)
}

fn pick(params: &[(String, String)], key: &str, beside: Option<&str>) -> Option<String> {
    params
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .or_else(|| beside.map(str::to_string))
        .filter(|s| !s.is_empty())
}

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
    if driver != "SQLite" {
        return Err(format!(
            "{chain} is not supported here (driver {driver}; a SQLite store takes DBI:SQLite; \
             drivers Limette has: {})",
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
        "pgjson" => "pg".into(),
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
    /// A PostgreSQL table (`dbiChain` `DBI:Pg:...`).
    Pg {
        /// The data source, with `dbiUser`/`dbiPassword`.
        source: PgSource,
        /// `dbiTable` (default `notifications`).
        table: String,
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
            let table = opt("dbiTable").unwrap_or("notifications").to_string();
            if is_dbi_pg(chain) && kind.eq_ignore_ascii_case("dbi") {
                let source = dbi_pg_source(chain, opt("dbiUser"), opt("dbiPassword"))
                    .map_err(|e| format!("notificationStorageOptions: dbiChain {e}"))?;
                return Ok(Some(StorageChoice::Pg { source, table }));
            }
            let path = dbi_sqlite_path(chain)
                .map_err(|e| format!("notificationStorageOptions: dbiChain {e}"))?;
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

/// Where the notifications of a configuration are stored, as `storage::open::open`
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
