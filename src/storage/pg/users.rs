//! The DBI user table on PostgreSQL (`dbi:Pg:...`), on the data source's shared pool. Rows are
//! read as `row_to_json`, so columns of any type come back as the JSON PostgreSQL makes of
//! them (text as strings, numbers as numbers; NULL left out), keyed as the database names
//! them: unquoted names folded to lower case, as `DBD::Pg` hands them to LemonLDAP::NG.
use super::Pool;
use crate::config::stores::PgSource;
use crate::error::{Error, Result};
use crate::storage::users::{
    check_batch, create_ddl, insert_statements, like_pattern, Layout, NewUser, Stored, UserTable,
};
use postgres::types::ToSql;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The user table(s) of one database.
pub struct PgUsers {
    pool: Arc<Pool>,
    layout: Layout,
}

impl PgUsers {
    /// The table(s) of `source`, on its pool of `size` connections (nothing connects yet).
    pub fn open(source: &PgSource, layout: Layout, size: usize) -> Result<PgUsers> {
        Ok(PgUsers {
            pool: super::pool(source, size)?,
            layout,
        })
    }

    fn json_rows(
        &self,
        sql: &str,
        args: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Map<String, Value>>> {
        let texts: Vec<String> = self.pool.run(|c| {
            let st = c.prepare(sql)?;
            let rows = c.client().query(&st, args)?;
            rows.iter().map(|r| r.try_get::<_, String>(0)).collect()
        })?;
        let password = &self.layout.password_col;
        texts
            .iter()
            .map(|t| match serde_json::from_str::<Value>(t) {
                Ok(Value::Object(mut m)) => {
                    m.retain(|k, v| !v.is_null() && !k.eq_ignore_ascii_case(password));
                    Ok(m)
                }
                _ => Err(Error::storage("a user row that is not a JSON object")),
            })
            .collect()
    }
}

impl UserTable for PgUsers {
    fn password(&self, login: &str) -> Result<Option<Option<String>>> {
        let l = &self.layout;
        let sql = format!(
            "SELECT CAST({} AS text) FROM {} WHERE {} = $1",
            l.password_col, l.auth_table, l.login_col
        );
        let row = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            c.client().query_opt(&st, &[&login])
        })?;
        row.map(|r| r.try_get::<_, Option<String>>(0))
            .transpose()
            .map_err(|e| self.pool.fail(&e))
    }

    fn row(&self, column: &str, value: &str) -> Result<Option<Map<String, Value>>> {
        if !crate::util::is_sql_name(column) {
            return Err(Error::bad(format!("invalid column name {column}")));
        }
        let sql = format!(
            "SELECT CAST(row_to_json(t) AS text) FROM {} t WHERE {column} = $1 LIMIT 1",
            self.layout.user_table
        );
        Ok(self.json_rows(&sql, &[&value])?.into_iter().next())
    }

    fn set_password(&self, login: &str, stored: &str) -> Result<bool> {
        let l = &self.layout;
        let sql = format!(
            "UPDATE {} SET {} = $1 WHERE {} = $2",
            l.auth_table, l.password_col, l.login_col
        );
        let n = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            c.client().execute(&st, &[&stored, &login])
        })?;
        Ok(n > 0)
    }

    fn insert(&self, users: &[NewUser]) -> Result<()> {
        check_batch(&self.layout, users)?;
        let l = &self.layout;
        let exists = format!("SELECT 1 FROM {} WHERE {} = $1", l.auth_table, l.login_col);
        let lock = format!("LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE", l.auth_table);
        let dup = self.pool.run(|c| {
            let mut tx = c.client().transaction()?;
            tx.batch_execute(&lock)?;
            for u in users {
                if tx.query_opt(exists.as_str(), &[&u.login])?.is_some() {
                    return Ok(Some(u.login.clone()));
                }
                for (sql, args) in insert_statements(l, u, '$') {
                    let refs: Vec<&(dyn ToSql + Sync)> =
                        args.iter().map(|a| a as &(dyn ToSql + Sync)).collect();
                    tx.execute(sql.as_str(), &refs)?;
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
        let auth = format!("DELETE FROM {} WHERE {} = $1", l.auth_table, l.login_col);
        let user = format!("DELETE FROM {} WHERE {} = $1", l.user_table, l.pivot);
        self.pool.run(|c| {
            let mut tx = c.client().transaction()?;
            let mut n = tx.execute(auth.as_str(), &[&login])?;
            if !l.one_table() {
                n += tx.execute(user.as_str(), &[&login])?;
            }
            tx.commit().map(|()| n > 0)
        })
    }

    fn list(&self, search: Option<&str>, offset: usize, limit: usize) -> Result<Vec<Stored>> {
        let l = &self.layout;
        let sql = format!(
            "SELECT CAST({login} AS text), CAST({pw} AS text) FROM {t} \
             WHERE CAST({login} AS text) ILIKE $1 ESCAPE '\\' ORDER BY {login} LIMIT $2 OFFSET $3",
            login = l.login_col,
            pw = l.password_col,
            t = l.auth_table
        );
        let pattern = like_pattern(search.unwrap_or(""));
        let (limit, offset) = (limit as i64, offset as i64);
        let found: Vec<(String, Option<String>)> = self.pool.run(|c| {
            let st = c.prepare(&sql)?;
            let rows = c.client().query(&st, &[&pattern, &limit, &offset])?;
            rows.iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect()
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
        let sql = "SELECT CAST(column_name AS text) FROM information_schema.columns \
                   WHERE CAST(table_schema AS text) = ANY (CAST(current_schemas(false) AS text[])) \
                   AND CAST(table_name AS text) = $1 \
                   ORDER BY ordinal_position";
        let name = table.to_ascii_lowercase();
        self.pool.run(|c| {
            let st = c.prepare(sql)?;
            let rows = c.client().query(&st, &[&name])?;
            rows.iter().map(|r| r.try_get(0)).collect()
        })
    }

    fn create(&self, extra: &[String]) -> Result<()> {
        let ddl = create_ddl(&self.layout, extra, "text")?;
        super::schema::run(&self.pool, &ddl)
    }

    fn label(&self) -> String {
        self.pool.label().to_string()
    }
}
