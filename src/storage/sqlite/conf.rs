//! Numbered configurations in SQLite: LemonLDAP::NG's `lmConfig(cfgNum, data)` table.
use super::{check_table, Db};
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde_json::{Map, Value};
use std::path::Path;

/// Configurations in one table of a SQLite file.
pub struct SqliteConf {
    db: Db,
    table: String,
}

impl SqliteConf {
    /// Opens the database and creates the table if missing.
    pub fn open(path: &Path, table: &str) -> Result<SqliteConf> {
        let table = check_table(table)?;
        let schema = format!(
            "CREATE TABLE IF NOT EXISTS {table} (cfgNum INTEGER NOT NULL PRIMARY KEY, data TEXT NOT NULL);"
        );
        Ok(SqliteConf {
            db: Db::open(path, 2, &schema)?,
            table,
        })
    }
}

impl ConfStore for SqliteConf {
    fn numbers(&self) -> Result<Vec<u64>> {
        let c = self.db.conn()?;
        let mut st = c.prepare_cached(&format!(
            "SELECT cfgNum FROM {} ORDER BY cfgNum",
            self.table
        ))?;
        let rows = st.query_map([], |r| r.get::<_, i64>(0))?;
        let nums = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(nums
            .into_iter()
            .filter(|n| *n > 0)
            .map(|n| n as u64)
            .collect())
    }

    fn latest(&self) -> Result<Option<u64>> {
        let c = self.db.conn()?;
        let n: Option<i64> = c
            .prepare_cached(&format!("SELECT MAX(cfgNum) FROM {}", self.table))?
            .query_row([], |r| r.get(0))?;
        Ok(n.filter(|n| *n > 0).map(|n| n as u64))
    }

    fn load(&self, num: u64) -> Result<Map<String, Value>> {
        let c = self.db.conn()?;
        let data: Option<String> = c
            .prepare_cached(&format!(
                "SELECT data FROM {} WHERE cfgNum = ?1",
                self.table
            ))?
            .query_row(params![num as i64], |r| r.get(0))
            .optional()?;
        let data =
            data.ok_or_else(|| Error::not_found(format!("Configuration {num} is not available")))?;
        match serde_json::from_str(&data) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(Error::storage(format!(
                "configuration {num} is not a JSON object"
            ))),
        }
    }

    fn save(&self, conf: &Map<String, Value>) -> Result<u64> {
        let mut c = self.db.writer()?;
        // IMMEDIATE takes the write lock first, so reading MAX and inserting cannot interleave
        // with another saver.
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let max: Option<i64> = tx.query_row(
            &format!("SELECT MAX(cfgNum) FROM {}", self.table),
            [],
            |r| r.get(0),
        )?;
        let num = max.unwrap_or(0).max(0) as u64 + 1;
        let mut conf = conf.clone();
        conf.insert("cfgNum".into(), Value::from(num));
        let text = serde_json::to_string(&conf).map_err(Error::internal)?;
        tx.execute(
            &format!("INSERT INTO {} (cfgNum, data) VALUES (?1, ?2)", self.table),
            params![num as i64, text],
        )?;
        tx.commit()?;
        Ok(num)
    }

    fn remove(&self, num: u64) -> Result<bool> {
        let c = self.db.writer()?;
        let n = c.execute(
            &format!("DELETE FROM {} WHERE cfgNum = ?1", self.table),
            params![num as i64],
        )?;
        Ok(n > 0)
    }

    fn describe(&self) -> String {
        format!("SQLite {} ({})", self.db.path(), self.table)
    }
}
