//! Notifications in PostgreSQL, in LemonLDAP::NG's DBI table (`date`, `uid`, `ref`, `cond`,
//! `xml`, `done`; primary key date+uid+ref; table name from `dbiTable`), shared with
//! LemonLDAP::NG's notification server. `date` and `done` are `timestamp` columns, `done`
//! written in UTC. An insert is one transaction holding the table's write lock: the duplicate
//! checks and the writes of a whole batch commit together or not at all, and two nodes
//! inserting the same uid+reference cannot both pass the check.
use super::Pool;
use crate::config::stores::PgSource;
use crate::error::Result;
use crate::storage::notifications::{check_batch, duplicate, NotificationStore, Record};
use postgres::types::ToSql;
use postgres::Row;
use std::sync::Arc;

/// One notification table.
pub struct PgNotifications {
    pool: Arc<Pool>,
    table: String,
}

const COLUMNS: &str = "to_char(date, 'YYYY-MM-DD'), uid, ref, COALESCE(cond, ''), xml, \
     CAST(EXTRACT(EPOCH FROM done AT TIME ZONE 'UTC') AS bigint)";

impl PgNotifications {
    /// The store on `table` of `source` (sharing its pool, `size` connections).
    pub fn open(source: &PgSource, table: &str, size: usize) -> Result<PgNotifications> {
        Ok(PgNotifications {
            table: super::check_table(table)?,
            pool: super::pool(source, size)?,
        })
    }

    fn query(&self, where_: &str, args: &[&(dyn ToSql + Sync)]) -> Result<Vec<Record>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM {} WHERE {where_} ORDER BY date, ref, uid",
            self.table
        );
        let rows = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            c.client().query(&st, args)
        })?;
        rows.iter()
            .map(|r| record(r).map_err(|e| self.pool.fail(&e)))
            .collect()
    }

    fn count(&self, sql: &str, args: &[&(dyn ToSql + Sync)]) -> Result<usize> {
        let n = self.pool.run(|c| {
            let st = c.prepare(sql)?;
            c.client().execute(&st, args)
        })?;
        Ok(n as usize)
    }
}

fn record(r: &Row) -> std::result::Result<Record, postgres::Error> {
    Ok(Record {
        date: r.try_get(0)?,
        uid: r.try_get(1)?,
        reference: r.try_get(2)?,
        condition: r.try_get(3)?,
        doc: r.try_get(4)?,
        done: r.try_get(5)?,
    })
}

impl NotificationStore for PgNotifications {
    fn insert(&self, records: &[Record]) -> Result<usize> {
        check_batch(records)?;
        let t = &self.table;
        let lock = format!("LOCK TABLE {t} IN SHARE ROW EXCLUSIVE MODE");
        let exists = format!(
            "SELECT done IS NOT NULL FROM {t} WHERE uid = $1 AND ref = $2 \
             ORDER BY done IS NOT NULL LIMIT 1"
        );
        let ins = format!(
            "INSERT INTO {t} (date, uid, ref, cond, xml, done) \
             VALUES (CAST($1::text AS timestamp), $2, $3, NULLIF($4, ''), $5, NULL)"
        );
        let found = self.pool.run(|c| {
            let (exists, ins) = (c.prepare(&exists)?, c.prepare(&ins)?);
            let mut tx = c.client().transaction()?;
            // The lock conflicts with itself and with every other write: one batch at a time
            // over all nodes, readers unaffected.
            tx.batch_execute(&lock)?;
            for r in records {
                if let Some(row) = tx.query_opt(&exists, &[&r.uid, &r.reference])? {
                    // Dropping the transaction unwritten rolls everything back.
                    return Ok(Some((r.reference.clone(), row.try_get::<_, bool>(0)?)));
                }
                tx.execute(&ins, &[&r.date, &r.uid, &r.reference, &r.condition, &r.doc])?;
            }
            crate::pause::point("notification-insert");
            tx.commit()?;
            Ok(None)
        })?;
        match found {
            Some((reference, done)) => Err(duplicate(&reference, done)),
            None => Ok(records.len()),
        }
    }

    fn pending_for(&self, uid: &str, wildcard: &str, until: Option<&str>) -> Result<Vec<Record>> {
        let until = until.unwrap_or("9999-12-31");
        self.query(
            "uid IN ($1, $2) AND done IS NULL AND date <= CAST($3::text AS timestamp)",
            &[&uid, &wildcard, &until],
        )
    }

    fn all_pending(&self) -> Result<Vec<Record>> {
        self.query("done IS NULL", &[])
    }

    fn all(&self) -> Result<Vec<Record>> {
        self.query("true", &[])
    }

    fn get(&self, uid: &str, reference: &str) -> Result<Option<Record>> {
        let mut list = self.query("uid = $1 AND ref = $2", &[&uid, &reference])?;
        crate::util::sort::sort_by_key(&mut list, |r| r.done.is_some());
        Ok(list.into_iter().next())
    }

    fn mark_done(&self, uid: &str, reference: &str, when: i64) -> Result<bool> {
        let sql = format!(
            "UPDATE {} SET done = to_timestamp($3) AT TIME ZONE 'UTC' \
             WHERE uid = $1 AND ref = $2 AND done IS NULL",
            self.table
        );
        let when = when as f64;
        Ok(self.count(&sql, &[&uid, &reference, &when])? > 0)
    }

    fn delete(&self, uid: &str, reference: &str) -> Result<usize> {
        let sql = format!("DELETE FROM {} WHERE uid = $1 AND ref = $2", self.table);
        self.count(&sql, &[&uid, &reference])
    }

    fn purge_done(&self, before: i64) -> Result<usize> {
        let sql = format!(
            "DELETE FROM {} WHERE done IS NOT NULL AND done < to_timestamp($1) AT TIME ZONE 'UTC'",
            self.table
        );
        let before = before as f64;
        self.count(&sql, &[&before])
    }

    fn describe(&self) -> String {
        format!("{} notifications (table {})", self.pool.label(), self.table)
    }
}
