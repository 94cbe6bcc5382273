//! The DBI user table on SQLite (`dbi:SQLite:dbname=PATH`), a file LemonLDAP::NG's
//! `DBD::SQLite` may share. Unlike Limette's own SQLite stores this one creates nothing when
//! it opens (`limette db init` does, `create`), changes no journal mode and keeps no file
//! open between statements it does not need: a few idle connections are kept for reuse,
//! each opened read-write without creating the file, so a missing file is a database out of
//! reach (503), never an empty user table made in its place.
use crate::error::{Error, Result};
use crate::storage::users::{
    check_batch, create_ddl, insert_statements, like_pattern, Layout, NewUser, Stored, UserTable,
};
use rusqlite::{params_from_iter, Connection, OpenFlags, OptionalExtension};
use serde_json::{Map, Value};
use std::sync::Mutex;
use std::time::Duration;

/// How long a statement waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Idle connections kept.
const IDLE: usize = 8;

/// The user table(s) of one SQLite file.
pub struct SqliteUsers {
    path: String,
    layout: Layout,
    create: bool,
    idle: Mutex<Vec<Connection>>,
}

impl SqliteUsers {
    /// The table(s) of `path` (nothing opened yet).
    pub fn open(path: &str, layout: Layout, create: bool) -> SqliteUsers {
        SqliteUsers {
            path: path.to_string(),
            layout,
            create,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` on a connection (an idle one, or a new one), keeping it for reuse after.
    fn with<T>(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> Result<T> {
        let conn = self
            .idle
            .lock()
            .map_err(|_| Error::internal("sqlite connection lock poisoned"))?
            .pop();
        let mut conn = match conn {
            Some(c) => c,
            None => self.connect()?,
        };
        let out = f(&mut conn).map_err(|e| self.fail(e))?;
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < IDLE {
                idle.push(conn);
            }
        }
        Ok(out)
    }

    fn connect(&self) -> Result<Connection> {
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if self.create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let c = Connection::open_with_flags(&self.path, flags).map_err(|e| self.fail(e))?;
        c.busy_timeout(BUSY_TIMEOUT).map_err(|e| self.fail(e))?;
        Ok(c)
    }

    /// Out of reach (a missing or unreadable file, a lock held past the timeout) is 503;
    /// anything else is a storage failure. The message names the file, not the values.
    fn fail(&self, e: rusqlite::Error) -> Error {
        use rusqlite::ErrorCode as C;
        let detail = format!("users in {}: {e}", self.path);
        match &e {
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(
                    f.code,
                    C::CannotOpen | C::DatabaseBusy | C::DatabaseLocked | C::NotADatabase
                ) =>
            {
                Error::Unavailable(detail)
            }
            _ => Error::Storage(detail),
        }
    }

    fn row_of(
        &self,
        stmt: &mut rusqlite::Statement,
        arg: &str,
    ) -> rusqlite::Result<Option<Map<String, Value>>> {
        let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
        let password = &self.layout.password_col;
        stmt.query_row([arg], |r| {
            let mut m = Map::new();
            for (i, name) in names.iter().enumerate() {
                if name.eq_ignore_ascii_case(password) {
                    continue;
                }
                if let Some(v) = json_of(r.get_ref(i)?) {
                    m.insert(name.clone(), v);
                }
            }
            Ok(m)
        })
        .optional()
    }
}

/// A column's value as JSON; NULL and blobs are left out (LemonLDAP::NG exports only defined
/// values, and a blob is no attribute text).
fn json_of(v: rusqlite::types::ValueRef) -> Option<Value> {
    use rusqlite::types::ValueRef as V;
    match v {
        V::Null | V::Blob(_) => None,
        V::Integer(i) => Some(Value::from(i)),
        V::Real(f) => serde_json::Number::from_f64(f).map(Value::Number),
        V::Text(t) => Some(Value::String(String::from_utf8_lossy(t).into_owned())),
    }
}

impl UserTable for SqliteUsers {
    fn password(&self, login: &str) -> Result<Option<Option<String>>> {
        let l = &self.layout;
        let sql = format!(
            "SELECT {} FROM {} WHERE {} = ?1",
            l.password_col, l.auth_table, l.login_col
        );
        self.with(|c| {
            c.prepare_cached(&sql)?
                .query_row([login], |r| r.get::<_, Option<String>>(0))
                .optional()
        })
    }

    fn row(&self, column: &str, value: &str) -> Result<Option<Map<String, Value>>> {
        if !crate::util::is_sql_name(column) {
            return Err(Error::bad(format!("invalid column name {column}")));
        }
        let sql = format!(
            "SELECT * FROM {} WHERE {column} = ?1",
            self.layout.user_table
        );
        self.with(|c| {
            let mut st = c.prepare_cached(&sql)?;
            self.row_of(&mut st, value)
        })
    }

    fn set_password(&self, login: &str, stored: &str) -> Result<bool> {
        let l = &self.layout;
        let sql = format!(
            "UPDATE {} SET {} = ?1 WHERE {} = ?2",
            l.auth_table, l.password_col, l.login_col
        );
        self.with(|c| c.execute(&sql, [stored, login]).map(|n| n > 0))
    }

    fn insert(&self, users: &[NewUser]) -> Result<()> {
        check_batch(&self.layout, users)?;
        let l = &self.layout;
        let exists = format!("SELECT 1 FROM {} WHERE {} = ?1", l.auth_table, l.login_col);
        let dup = self.with(|c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            for u in users {
                let there = tx
                    .prepare_cached(&exists)?
                    .query_row([&u.login], |_| Ok(()))
                    .optional()?;
                if there.is_some() {
                    return Ok(Some(u.login.clone()));
                }
                for (sql, args) in insert_statements(l, u, '?') {
                    tx.execute(&sql, params_from_iter(args.iter()))?;
                }
            }
            tx.commit().map(|()| None)
        })?;
        match dup {
            Some(login) => Err(Error::Conflict(format!("user {login} already exists"))),
            None => Ok(()),
        }
    }

    fn delete(&self, login: &str) -> Result<bool> {
        let l = &self.layout;
        self.with(|c| {
            let tx = c.transaction()?;
            let mut n = tx.execute(
                &format!("DELETE FROM {} WHERE {} = ?1", l.auth_table, l.login_col),
                [login],
            )?;
            if !l.one_table() {
                n += tx.execute(
                    &format!("DELETE FROM {} WHERE {} = ?1", l.user_table, l.pivot),
                    [login],
                )?;
            }
            tx.commit().map(|()| n > 0)
        })
    }

    fn list(&self, search: Option<&str>, offset: usize, limit: usize) -> Result<Vec<Stored>> {
        let l = &self.layout;
        let sql = format!(
            "SELECT {login}, {pw} FROM {t} WHERE {login} LIKE ?1 ESCAPE '\\' \
             ORDER BY {login} LIMIT ?2 OFFSET ?3",
            login = l.login_col,
            pw = l.password_col,
            t = l.auth_table
        );
        let pattern = like_pattern(search.unwrap_or(""));
        let found: Vec<(String, Option<String>)> = self.with(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let rows = st.query_map(
                rusqlite::params![pattern, limit as i64, offset as i64],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)),
            )?;
            rows.collect()
        })?;
        let mut out = Vec::with_capacity(found.len());
        for (login, password) in found {
            let row = self.row(&l.pivot, &login)?.unwrap_or_default();
            out.push(Stored {
                login,
                password,
                row,
            });
        }
        Ok(out)
    }

    fn columns(&self, table: &str) -> Result<Vec<String>> {
        if !crate::util::is_sql_name(table) {
            return Err(Error::bad(format!("invalid table name {table}")));
        }
        let exists = "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1 COLLATE NOCASE";
        self.with(|c| {
            let there = c.query_row(exists, [table], |_| Ok(())).optional()?;
            if there.is_none() {
                return Ok(Vec::new());
            }
            let st = c.prepare(&format!("SELECT * FROM {table} LIMIT 0"))?;
            Ok(st.column_names().iter().map(|s| s.to_string()).collect())
        })
    }

    fn create(&self, extra: &[String]) -> Result<()> {
        let ddl = create_ddl(&self.layout, extra, "TEXT")?;
        // A new file is made 0600 before SQLite opens it (it holds password hashes; SQLite
        // gives its journal files the database's mode).
        match crate::storage::file::create_new(std::path::Path::new(&self.path)) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::storage(format!("{}: {e}", self.path))),
        }
        self.with(|c| c.execute_batch(&ddl))
    }

    fn label(&self) -> String {
        self.path.clone()
    }
}
