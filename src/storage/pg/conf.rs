//! Numbered configurations in PostgreSQL, in LemonLDAP::NG's `CDBI` layout:
//! `lmConfig(cfgNum integer primary key, data text)`, one JSON document a row, read and
//! written by LemonLDAP::NG's manager and nodes on the same table. A save takes the table's
//! write lock for its transaction, so two nodes saving at once get consecutive numbers; every
//! node's reload loop polls `MAX(cfgNum)` and so picks up a save made anywhere.
use super::Pool;
use crate::config::stores::PgSource;
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Configurations in one table.
pub struct PgConf {
    pub(super) pool: Arc<Pool>,
    pub(super) table: String,
}

impl PgConf {
    /// The store on `table` of `source` (sharing its pool, `size` connections).
    pub fn open(source: &PgSource, table: &str, size: usize) -> Result<PgConf> {
        Ok(PgConf {
            table: super::check_table(table)?,
            pool: super::pool(source, size)?,
        })
    }
}

impl ConfStore for PgConf {
    fn numbers(&self) -> Result<Vec<u64>> {
        let sql = format!("SELECT cfgNum FROM {} ORDER BY cfgNum", self.table);
        let rows = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            c.client().query(&st, &[])
        })?;
        let mut out = Vec::new();
        for r in rows {
            let n: i32 = r.try_get(0).map_err(|e| self.pool.fail(&e))?;
            if n > 0 {
                out.push(n as u64);
            }
        }
        Ok(out)
    }

    fn latest(&self) -> Result<Option<u64>> {
        let sql = format!("SELECT MAX(cfgNum) FROM {}", self.table);
        let row = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            c.client().query_one(&st, &[])
        })?;
        let n: Option<i32> = row.try_get(0).map_err(|e| self.pool.fail(&e))?;
        Ok(n.filter(|n| *n > 0).map(|n| n as u64))
    }

    fn load(&self, num: u64) -> Result<Map<String, Value>> {
        let n = i32::try_from(num)
            .map_err(|_| Error::not_found(format!("Configuration {num} is not available")))?;
        let sql = format!("SELECT data FROM {} WHERE cfgNum = $1", self.table);
        let row = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            c.client().query_opt(&st, &[&n])
        })?;
        let row =
            row.ok_or_else(|| Error::not_found(format!("Configuration {num} is not available")))?;
        let data: Option<String> = row.try_get(0).map_err(|e| self.pool.fail(&e))?;
        match data.as_deref().map(serde_json::from_str) {
            Some(Ok(Value::Object(m))) => Ok(m),
            _ => Err(Error::storage(format!(
                "configuration {num} is not a JSON object (LemonLDAP::NG's older Storable \
                 format is not read: save it again with LemonLDAP::NG 2)"
            ))),
        }
    }

    fn save(&self, conf: &Map<String, Value>) -> Result<u64> {
        let t = &self.table;
        let lock = format!("LOCK TABLE {t} IN SHARE ROW EXCLUSIVE MODE");
        let max = format!("SELECT COALESCE(MAX(cfgNum), 0) FROM {t}");
        let ins = format!("INSERT INTO {t} (cfgNum, data) VALUES ($1, $2)");
        let mut conf = conf.clone();
        self.pool.run(|c| {
            let (max, ins) = (c.prepare(&max)?, c.prepare(&ins)?);
            let mut tx = c.client().transaction()?;
            // The lock conflicts with itself: savers on every node queue here, each reading
            // the MAX the previous one committed.
            tx.batch_execute(&lock)?;
            let last: i32 = tx.query_one(&max, &[])?.try_get(0)?;
            let num = last.max(0) + 1;
            conf.insert("cfgNum".into(), Value::from(num));
            // A map of JSON values always serialises (string keys only).
            let text = serde_json::to_string(&conf).unwrap_or_default();
            tx.execute(&ins, &[&num, &text])?;
            tx.commit()?;
            Ok(num as u64)
        })
    }

    fn remove(&self, num: u64) -> Result<bool> {
        let Ok(n) = i32::try_from(num) else {
            return Ok(false);
        };
        let sql = format!("DELETE FROM {} WHERE cfgNum = $1", self.table);
        let gone = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            c.client().execute(&st, &[&n])
        })?;
        Ok(gone > 0)
    }

    fn describe(&self) -> String {
        format!("{} (table {})", self.pool.label(), self.table)
    }
}
