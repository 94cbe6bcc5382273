//! Sessions in SQLite: one table `sessions(kind, id, a_session)` holding the JSON document.
use super::Db;
use crate::error::Result;
use crate::storage::{check_id, Kind, Session, SessionStore};
use rusqlite::{params, OptionalExtension};
use std::path::Path;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS sessions (
    kind TEXT NOT NULL, id TEXT NOT NULL, a_session TEXT NOT NULL, PRIMARY KEY (kind, id));";

/// Sessions in one SQLite file.
pub struct SqliteSessions {
    db: Db,
}

impl SqliteSessions {
    /// Opens (and creates) the database.
    pub fn open(path: &Path) -> Result<SqliteSessions> {
        Ok(SqliteSessions {
            db: Db::open(path, 4, SCHEMA)?,
        })
    }
}

/// Creates a record only if its id is free (`create`, and each row of `create_all`).
const CREATE: &str = "INSERT OR IGNORE INTO sessions (kind, id, a_session) VALUES (?1, ?2, ?3)";

impl SessionStore for SqliteSessions {
    fn get(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        check_id(id)?;
        let c = self.db.conn()?;
        let row: Option<String> = c
            .prepare_cached("SELECT a_session FROM sessions WHERE kind = ?1 AND id = ?2")?
            .query_row(params![kind.as_str(), id], |r| r.get(0))
            .optional()?;
        row.map(|t| crate::storage::decode_session(&t)).transpose()
    }

    fn put(&self, kind: Kind, id: &str, data: &Session) -> Result<()> {
        check_id(id)?;
        let c = self.db.writer()?;
        c.prepare_cached(
            "INSERT OR REPLACE INTO sessions (kind, id, a_session) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![
            kind.as_str(),
            id,
            crate::storage::encode_session(data)?
        ])?;
        Ok(())
    }

    fn update(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        check_id(id)?;
        let c = self.db.writer()?;
        let n = c
            .prepare_cached("UPDATE sessions SET a_session = ?3 WHERE kind = ?1 AND id = ?2")?
            .execute(params![
                kind.as_str(),
                id,
                crate::storage::encode_session(data)?
            ])?;
        Ok(n == 1)
    }

    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        check_id(id)?;
        let c = self.db.writer()?;
        let n = c.prepare_cached(CREATE)?.execute(params![
            kind.as_str(),
            id,
            crate::storage::encode_session(data)?
        ])?;
        Ok(n == 1)
    }

    fn create_all(&self, kind: Kind, records: &[(&str, &Session)]) -> Result<bool> {
        let rows = crate::storage::encode_rows(records)?;
        let mut c = self.db.writer()?;
        // One transaction: dropped without its commit (an id taken), it writes nothing.
        let tx = c.transaction()?;
        {
            let mut st = tx.prepare_cached(CREATE)?;
            for (id, json) in &rows {
                if st.execute(params![kind.as_str(), id, json])? != 1 {
                    return Ok(false);
                }
            }
        }
        tx.commit()?;
        Ok(true)
    }

    fn delete(&self, kind: Kind, id: &str) -> Result<bool> {
        check_id(id)?;
        let c = self.db.writer()?;
        let n = c
            .prepare_cached("DELETE FROM sessions WHERE kind = ?1 AND id = ?2")?
            .execute(params![kind.as_str(), id])?;
        Ok(n > 0)
    }

    fn take(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        check_id(id)?;
        let c = self.db.writer()?;
        // One statement: the row is deleted and returned atomically.
        let row: Option<String> = c
            .prepare_cached("DELETE FROM sessions WHERE kind = ?1 AND id = ?2 RETURNING a_session")?
            .query_row(params![kind.as_str(), id], |r| r.get(0))
            .optional()?;
        row.map(|t| crate::storage::decode_session(&t)).transpose()
    }

    fn ids(&self, kind: Kind) -> Result<Vec<String>> {
        let c = self.db.conn()?;
        let mut st = c.prepare_cached("SELECT id FROM sessions WHERE kind = ?1 ORDER BY id")?;
        let rows = st.query_map(params![kind.as_str()], |r| r.get::<_, String>(0))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(Into::into)
    }

    fn describe(&self) -> String {
        format!("SQLite {}", self.db.path())
    }
}
