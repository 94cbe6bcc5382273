//! SQLite backends (the only users of rusqlite): WAL journal, a busy timeout, schema created on
//! open, a small pool of connections so readers do not queue behind one lock, and one writer
//! connection behind a mutex: SQLite takes one writer at a time anyway, and writers queued on
//! the mutex wake at once, where writers racing for the database lock would back off in the
//! busy handler's sleeps (milliseconds each: the tail latency of concurrent writes).
pub mod conf;
pub mod notifications;
pub mod sessions;

use crate::error::{Error, Result};
use rusqlite::Connection;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        Error::Storage(format!("sqlite: {e}"))
    }
}

/// How long a writer waits for another one before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A few connections to one database file.
pub struct Db {
    conns: Vec<Mutex<Connection>>,
    writer: Mutex<Connection>,
    next: AtomicUsize,
    path: String,
}

impl Db {
    /// Opens `size` connections and runs `schema` once.
    pub fn open(path: &Path, size: usize, schema: &str) -> Result<Db> {
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() {
                crate::storage::file::ensure_dir(parent)?;
            }
        }
        // Created 0600 before SQLite opens it: SQLite gives its journal files the database's
        // mode, and the database holds sessions and tokens.
        match crate::storage::file::create_new(path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::storage(format!("{}: {e}", path.display()))),
        }
        let mut conns = Vec::new();
        for i in 0..=size.max(1) {
            let c = Connection::open(path)
                .map_err(|e| Error::storage(format!("{}: {e}", path.display())))?;
            c.busy_timeout(BUSY_TIMEOUT)?;
            if i == 0 {
                c.pragma_update(None, "journal_mode", "WAL")?;
                c.execute_batch(schema)?;
            }
            c.pragma_update(None, "synchronous", "NORMAL")?;
            conns.push(Mutex::new(c));
        }
        // The first connection (the one that set WAL up) writes; the others read.
        let writer = Mutex::new(
            conns
                .remove(0)
                .into_inner()
                .map_err(|_| Error::internal("sqlite connection lock poisoned"))?,
        );
        Ok(Db {
            conns,
            writer,
            next: AtomicUsize::new(0),
            path: path.display().to_string(),
        })
    }

    /// A reading connection, preferring a free one.
    pub fn conn(&self) -> Result<MutexGuard<'_, Connection>> {
        let n = self.conns.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            if let Ok(g) = self.conns[(start + i) % n].try_lock() {
                return Ok(g);
            }
        }
        self.conns[start % n]
            .lock()
            .map_err(|_| Error::internal("sqlite connection lock poisoned"))
    }

    /// The writer connection: every statement that changes the database goes through it.
    pub fn writer(&self) -> Result<MutexGuard<'_, Connection>> {
        self.writer
            .lock()
            .map_err(|_| Error::internal("sqlite connection lock poisoned"))
    }

    /// The database path, for descriptions.
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// Quotes an SQL identifier that was validated as `[A-Za-z0-9_]+`.
pub fn check_table(name: &str) -> Result<String> {
    if !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        Ok(name.to_string())
    } else {
        Err(Error::bad(format!("invalid table name {name}")))
    }
}
