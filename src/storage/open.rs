//! THE opener of the stores, from their settings: the configuration store first (`open_conf`, it
//! names the others), then every other one at once (`open_stores`), and the notification store
//! (`open`, `resolve`), and the DBI user table (`open_users`). It sits beside the trait modules and the backends, which it names, so
//! that none of them names another to be opened.
use super::file::notifications::FileNotifications;
use super::notifications::NotificationStore;
use super::sqlite::notifications::SqliteNotifications;
use super::{file, rest, sqlite, users, ConfStore, SessionStore, StorageSpec};
use crate::config::local::{ConfBackend, LocalConf};
use crate::config::stores::StorageChoice;
use crate::config::stores::{dbi_sqlite_path, normalize_kind};
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// The stores of a running portal besides the configuration store (which names them).
pub struct Stores {
    /// SSO sessions and the internal kinds (`globalStorage`).
    pub global: Arc<dyn SessionStore>,
    /// Persistent sessions (`persistentStorage`).
    pub persistent: Arc<dyn SessionStore>,
    /// Notifications (`notificationStorage`).
    pub notifications: Arc<dyn NotificationStore>,
}

/// THE opener: every store a running portal uses, from the local settings (with the
/// configuration's storage keys adopted) and the configuration `raw`; `key` is the
/// configuration key for the REST session protocol. An error names the key at fault.
pub fn open_stores(
    local: &crate::config::local::LocalConf,
    raw: &Map<String, Value>,
    key: &str,
) -> std::result::Result<Stores, (&'static str, Error)> {
    let size = pool_size(local);
    let global =
        open_sessions(&local.global_storage, key, size).map_err(|e| ("globalStorage", e))?;
    let persistent = open_sessions(&local.persistent_storage, key, size)
        .map_err(|e| ("persistentStorage", e))?;
    let notifications = crate::config::stores::notification_store_of(raw)
        .map_err(Error::bad)
        .and_then(|(choice, sep)| open(local, choice.as_ref(), &sep))
        .map_err(|e| ("notificationStorage", e))?;
    Ok(Stores {
        global,
        persistent,
        notifications,
    })
}

/// Opens the configuration store named by the local file: with `open_sessions` and
/// `notifications::open` (the notification store), the openers of every store from its settings.
pub fn open_conf(local: &crate::config::local::LocalConf) -> Result<Arc<dyn ConfStore>> {
    Ok(match &local.conf_backend {
        crate::config::local::ConfBackend::File { dir } => {
            Arc::new(file::conf::FileConf::open(dir)?)
        }
        crate::config::local::ConfBackend::Sqlite { path, table } => {
            Arc::new(sqlite::conf::SqliteConf::open(path, table)?)
        }
        #[cfg(feature = "postgres")]
        crate::config::local::ConfBackend::Pg { source, table } => Arc::new(
            super::pg::conf::PgConf::open(source, table, pool_size(local))?,
        ),
        #[cfg(not(feature = "postgres"))]
        crate::config::local::ConfBackend::Pg { .. } => return Err(no_postgres()),
        crate::config::local::ConfBackend::Rest {
            base_url,
            user,
            password,
            timeout,
        } => Arc::new(crate::storage::rest::conf::RestConf::new(
            base_url,
            user.clone(),
            password.clone(),
            *timeout,
        )),
    })
}

/// The connections a database pool may open: one a worker, plus the purge and reload threads.
pub fn pool_size(local: &crate::config::local::LocalConf) -> usize {
    local.threads + 2
}

/// The refusal of a PostgreSQL store by a build without the client.
#[cfg(not(feature = "postgres"))]
pub fn no_postgres() -> Error {
    Error::bad("this build has no PostgreSQL client (build with the postgres feature)")
}

/// Opens a session store from its spec; `key` is the configuration key for the REST protocol,
/// `size` the connections a database pool may open.
pub fn open_sessions(spec: &StorageSpec, key: &str, size: usize) -> Result<Arc<dyn SessionStore>> {
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
        "pg" => {
            let source =
                opt("DataSource").ok_or_else(|| Error::bad("DataSource option is required"))?;
            let source = crate::config::stores::dbi_pg_source(
                &source,
                opt("UserName").as_deref(),
                opt("Password").as_deref(),
            )
            .map_err(Error::bad)?;
            let table = opt("TableName").unwrap_or_else(|| "sessions".into());
            #[cfg(feature = "postgres")]
            return Ok(Arc::new(super::pg::sessions::PgSessions::open(
                &source, &table, size,
            )?));
            #[cfg(not(feature = "postgres"))]
            {
                let _ = (source, table, size);
                Err(no_postgres())
            }
        }
        other => Err(Error::bad(format!("unknown storage type {other}"))),
    }
}

/// Opens the notification store the settings name (`resolve`).
pub fn open(
    local: &LocalConf,
    choice: Option<&StorageChoice>,
    separator: &str,
) -> Result<Arc<dyn NotificationStore>> {
    open_sized(&resolve(local, choice, separator), pool_size(local))
}

/// Opens a resolved storage choice (a database pool of a few connections: the CLI, tests).
pub fn open_choice(choice: &StorageChoice) -> Result<Arc<dyn NotificationStore>> {
    open_sized(choice, 4)
}

/// Opens a resolved storage choice; `size`: the connections a database pool may open.
pub fn open_sized(choice: &StorageChoice, size: usize) -> Result<Arc<dyn NotificationStore>> {
    let _ = size;
    Ok(match choice {
        StorageChoice::File { dir, separator } => {
            Arc::new(FileNotifications::open(dir, separator)?)
        }
        StorageChoice::Sqlite { path, table } => Arc::new(SqliteNotifications::open(path, table)?),
        #[cfg(feature = "postgres")]
        StorageChoice::Pg { source, table } => Arc::new(
            super::pg::notifications::PgNotifications::open(source, table, size)?,
        ),
        #[cfg(not(feature = "postgres"))]
        StorageChoice::Pg { .. } => return Err(no_postgres()),
    })
}

/// The storage in force: `notificationStorage` when set, else beside the configuration store
/// (a `notifications` folder next to the configuration folder, or a `notifications` table in
/// the configuration database, SQLite or PostgreSQL; with a REST configuration, a folder in the data folder).
pub fn resolve(
    local: &LocalConf,
    choice: Option<&StorageChoice>,
    separator: &str,
) -> StorageChoice {
    if let Some(c) = choice {
        return c.clone();
    }
    match &local.conf_backend {
        ConfBackend::File { dir } => {
            let parent = dir.parent().map(PathBuf::from).unwrap_or_default();
            StorageChoice::File {
                dir: parent.join("notifications"),
                separator: separator.to_string(),
            }
        }
        ConfBackend::Sqlite { path, .. } => StorageChoice::Sqlite {
            path: path.clone(),
            table: "notifications".into(),
        },
        ConfBackend::Pg { source, .. } => StorageChoice::Pg {
            source: source.clone(),
            table: "notifications".into(),
        },
        ConfBackend::Rest { .. } => StorageChoice::File {
            dir: local.data_dir.join("notifications"),
            separator: separator.to_string(),
        },
    }
}

/// The DBI user table(s) of `source` (`storage::users`), with `size` connections at most;
/// nothing connects yet (a database out of reach fails the first statement,
/// `Error::Unavailable`).
/// `create`: the SQLite file may be made (`limette db init`); otherwise a missing file is a
/// database out of reach.
pub fn open_users(
    source: &users::Source,
    layout: users::Layout,
    size: usize,
    create: bool,
) -> Result<Arc<dyn users::UserTable>> {
    match source {
        users::Source::Sqlite(path) => Ok(Arc::new(super::sqlite::users::SqliteUsers::open(
            path, layout, create,
        ))),
        #[cfg(feature = "postgres")]
        users::Source::Pg(src) => Ok(Arc::new(super::pg::users::PgUsers::open(
            src, layout, size,
        )?)),
        #[cfg(not(feature = "postgres"))]
        users::Source::Pg(_) => {
            let _ = size;
            Err(Error::internal("this build has no PostgreSQL client"))
        }
    }
}
