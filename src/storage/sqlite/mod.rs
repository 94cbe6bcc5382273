//! SQLite backends (the only users of rusqlite): WAL journal, a busy timeout, schema created on
//! open, a small pool of connections so readers do not queue behind one lock, and one writer
//! connection behind a mutex: SQLite takes one writer at a time anyway, and writers queued on
//! the mutex wake at once, where writers racing for the database lock would back off in the
//! busy handler's sleeps (milliseconds each: the tail latency of concurrent writes).
pub mod conf;
pub mod notifications;
pub mod sessions;
pub mod users;

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

/// The pages the write-ahead log gathers before the writer that commits past them copies them
/// into the database and syncs it (SQLite's default is 1,000). Under a stream of writes the
/// same few pages (the tables' last leaves, their upper levels) are in every batch: fewer,
/// larger copies copy them fewer times, and the committing writer, which every other writer
/// waits for, pays the copy and the sync a tenth as often (the HS256 flow on SQLite: about
/// 12 % more requests a second in alternating runs). The price is the tail: each copy is ten
/// times longer for the writers queued behind it (under the bench's saturating load, the p99
/// of SQLite writes went from 11-25 ms to 22-54 ms). The log file keeps the size it reached
/// (about 40 MB): cutting it back after each copy (`journal_size_limit`) took the gain away in
/// the same runs.
const WAL_PAGES: i64 = 10_000;

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
                c.pragma_update(None, "journal_mode", "WAL")
                    .and_then(|()| c.execute_batch(schema))
                    .map_err(|e| unreadable(path, e))?;
            }
            c.pragma_update(None, "synchronous", "NORMAL")?;
            c.pragma_update(None, "wal_autocheckpoint", WAL_PAGES)?;
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

/// The error of a database the first connection could not read. SQLite is built without
/// UTF-16, and reads a UTF-16 database (its header's encoding, at byte 56: 1 UTF-8, 2 UTF-16le,
/// 3 UTF-16be) as a "malformed database schema": such a database is named as what it is, with
/// the way to convert it. LemonLDAP::NG's DBI modules make UTF-8 databases; a UTF-16 one comes
/// from elsewhere. The header is read only then, never at a plain open: closing any descriptor
/// of a database file drops every POSIX lock this process holds on it, and a UTF-16 file is
/// one that no connection of this process can be holding.
fn unreadable(path: &Path, e: rusqlite::Error) -> Error {
    use std::io::Read;
    let corrupt = matches!(&e, rusqlite::Error::SqliteFailure(f, _)
        if f.code == rusqlite::ErrorCode::DatabaseCorrupt);
    let mut head = Vec::with_capacity(100);
    let read = corrupt
        && std::fs::File::open(path)
            .and_then(|f| f.take(100).read_to_end(&mut head))
            .is_ok();
    match utf16_name(&head) {
        Some(name) if read => Error::storage(format!(
            "{}: the database's text is {name}; Limette reads UTF-8 SQLite databases \
             (copy it into one: sqlite3 OLD .dump | sqlite3 NEW)",
            path.display()
        )),
        _ => e.into(),
    }
}

/// The UTF-16 encoding an SQLite header names, if any.
fn utf16_name(head: &[u8]) -> Option<&'static str> {
    if head.len() < 60 || !head.starts_with(b"SQLite format 3\0") {
        return None;
    }
    match u32::from_be_bytes([head[56], head[57], head[58], head[59]]) {
        2 => Some("UTF-16le"),
        3 => Some("UTF-16be"),
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::utf16_name;

    #[test]
    fn the_header_names_a_utf16_database() {
        let header = |encoding: u8| {
            let mut h = b"SQLite format 3\0".to_vec();
            h.resize(100, 0);
            h[59] = encoding;
            h
        };
        assert_eq!(utf16_name(&header(1)), None);
        assert_eq!(utf16_name(&header(2)), Some("UTF-16le"));
        assert_eq!(utf16_name(&header(3)), Some("UTF-16be"));
        // A new (empty) file, a short one, and one that is not SQLite are left to SQLite.
        assert_eq!(utf16_name(b""), None);
        assert_eq!(utf16_name(&header(2)[..40]), None);
        let mut other = header(2);
        other[0] = b'X';
        assert_eq!(utf16_name(&other), None);
    }
}
