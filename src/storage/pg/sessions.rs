//! Sessions in PostgreSQL, in LemonLDAP::NG's `Apache::Session::Browseable::PgJSON` layout:
//! `<TableName>(id varchar(64) primary key, a_session jsonb)` for SSO and persistent sessions,
//! read and written by LemonLDAP::NG nodes on the same table. Limette's internal records (OIDC
//! codes and tokens, pending logins) live in `<TableName>_limette(kind, id, a_session)`, which
//! LemonLDAP::NG never reads. Every write is one statement: `take` is a single
//! `DELETE ... RETURNING`, so of two nodes redeeming one code exactly one gets it, and
//! `create_all` one `INSERT` of several rows (a code's token family and its tokens).
use super::Pool;
use crate::config::stores::PgSource;
use crate::error::{Error, Result};
use crate::storage::{check_id, Kind, Session, SessionStore};
use postgres::types::ToSql;
use std::sync::Arc;

/// The SQL of one table family, built once from the checked table names.
struct Sql {
    /// `INSERT INTO <table> (<columns>) VALUES`: the start of `create_all`'s one statement of
    /// several rows.
    insert: String,
    get: String,
    put: String,
    update: String,
    create: String,
    delete: String,
    take: String,
    ids: String,
}

impl Sql {
    /// The statements on LemonLDAP::NG's table (`$1` id, `$2` the JSON text); `ids` keeps the
    /// sessions of one `_session_kind` (`$1`): a LemonLDAP::NG node may keep other kinds in
    /// the same table, which Limette's purge must not judge as SSO sessions.
    fn main(t: &str) -> Sql {
        Sql {
            insert: format!("INSERT INTO {t} (id, a_session) VALUES"),
            get: format!("SELECT a_session::text FROM {t} WHERE id = $1"),
            put: format!(
                "INSERT INTO {t} (id, a_session) VALUES ($1, $2::text::jsonb) \
                 ON CONFLICT (id) DO UPDATE SET a_session = EXCLUDED.a_session"
            ),
            update: format!("UPDATE {t} SET a_session = $2::text::jsonb WHERE id = $1"),
            create: format!(
                "INSERT INTO {t} (id, a_session) VALUES ($1, $2::text::jsonb) \
                 ON CONFLICT (id) DO NOTHING"
            ),
            delete: format!("DELETE FROM {t} WHERE id = $1"),
            take: format!("DELETE FROM {t} WHERE id = $1 RETURNING a_session::text"),
            // As in the file backend, a session without a kind is told by its id's length
            // (32 hex digits: a persistent session).
            ids: format!(
                "SELECT id FROM {t} WHERE COALESCE(a_session ->> '_session_kind', \
                 CASE WHEN length(id) = 32 THEN 'Persistent' ELSE 'SSO' END) = $1 ORDER BY id"
            ),
        }
    }

    /// The statements on the internal table (`$1` id, then `$2` JSON where one is written,
    /// then the kind; `ids` takes the kind as `$1`).
    fn internal(t: &str) -> Sql {
        Sql {
            insert: format!("INSERT INTO {t} (id, a_session, kind) VALUES"),
            get: format!("SELECT a_session::text FROM {t} WHERE id = $1 AND kind = $2"),
            put: format!(
                "INSERT INTO {t} (id, a_session, kind) VALUES ($1, $2::text::jsonb, $3) \
                 ON CONFLICT (kind, id) DO UPDATE SET a_session = EXCLUDED.a_session"
            ),
            update: format!(
                "UPDATE {t} SET a_session = $2::text::jsonb WHERE id = $1 AND kind = $3"
            ),
            create: format!(
                "INSERT INTO {t} (id, a_session, kind) VALUES ($1, $2::text::jsonb, $3) \
                 ON CONFLICT (kind, id) DO NOTHING"
            ),
            delete: format!("DELETE FROM {t} WHERE id = $1 AND kind = $2"),
            take: format!("DELETE FROM {t} WHERE id = $1 AND kind = $2 RETURNING a_session::text"),
            ids: format!("SELECT id FROM {t} WHERE kind = $1 ORDER BY id"),
        }
    }
}

/// Sessions in one PgJSON table (and its internal companion).
pub struct PgSessions {
    pool: Arc<Pool>,
    table: String,
    main: Sql,
    internal: Sql,
}

impl PgSessions {
    /// The store on `table` of `source`, sharing the pool of that source (`size` connections).
    pub fn open(source: &PgSource, table: &str, size: usize) -> Result<PgSessions> {
        let table = super::check_table(table)?;
        Ok(PgSessions {
            pool: super::pool(source, size)?,
            main: Sql::main(&table),
            internal: Sql::internal(&super::schema::internal_table(&table)),
            table,
        })
    }

    fn sql(&self, kind: Kind) -> &Sql {
        match kind {
            Kind::Global | Kind::Persistent => &self.main,
            Kind::Oidc | Kind::Pending => &self.internal,
        }
    }

    /// Runs `sql` with the id, the JSON text if any, and for internal kinds the kind.
    fn exec(&self, kind: Kind, sql: &str, id: &str, json: Option<&str>) -> Result<u64> {
        check_id(id)?;
        let k = kind.as_str();
        self.pool.run(|c| {
            let st = c.prepare(sql)?;
            c.client().execute(&st, &args(kind, &id, json.as_ref(), &k))
        })
    }

    /// Runs a statement returning at most one JSON text.
    fn one(&self, kind: Kind, sql: &str, id: &str) -> Result<Option<Session>> {
        check_id(id)?;
        let k = kind.as_str();
        let row = self.pool.run(|c| {
            let st = c.prepare(sql)?;
            c.client().query_opt(&st, &args(kind, &id, None, &k))
        })?;
        match row {
            None => Ok(None),
            Some(r) => {
                let text: Option<String> = r
                    .try_get(0)
                    .map_err(|e| Error::storage(format!("{}: {e}", self.pool.label())))?;
                text.map(|t| crate::storage::decode_session(&t)).transpose()
            }
        }
    }
}

/// The arguments of a statement, in `Sql`'s order: the id, the JSON text where one is
/// written, the kind on the internal table.
fn args<'a>(
    kind: Kind,
    id: &'a &str,
    json: Option<&'a &str>,
    k: &'a &str,
) -> Vec<&'a (dyn ToSql + Sync)> {
    let mut out: Vec<&(dyn ToSql + Sync)> = vec![id];
    if let Some(j) = json {
        out.push(j);
    }
    if matches!(kind, Kind::Oidc | Kind::Pending) {
        out.push(k);
    }
    out
}

impl SessionStore for PgSessions {
    fn get(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        self.one(kind, &self.sql(kind).get, id)
    }

    fn put(&self, kind: Kind, id: &str, data: &Session) -> Result<()> {
        let json = crate::storage::encode_session(data)?;
        self.exec(kind, &self.sql(kind).put, id, Some(&json))
            .map(|_| ())
    }

    fn update(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        let json = crate::storage::encode_session(data)?;
        Ok(self.exec(kind, &self.sql(kind).update, id, Some(&json))? == 1)
    }

    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        let json = crate::storage::encode_session(data)?;
        Ok(self.exec(kind, &self.sql(kind).create, id, Some(&json))? == 1)
    }

    fn create_all(&self, kind: Kind, records: &[(&str, &Session)]) -> Result<bool> {
        let rows = crate::storage::encode_rows(records)?;
        if rows.is_empty() {
            return Ok(true);
        }
        // One statement of every row, without `ON CONFLICT`: a taken id fails it whole
        // (`unique_violation`) and nothing is written. One round trip and one commit for a
        // family and its tokens.
        let k = kind.as_str();
        let json: Vec<&str> = rows.iter().map(|(_, j)| j.as_str()).collect();
        let mut params: Vec<&(dyn ToSql + Sync)> = Vec::new();
        let mut values: Vec<String> = Vec::with_capacity(rows.len());
        for ((id, _), j) in rows.iter().zip(&json) {
            // A row's parameters as `args` orders them: id, JSON, then the kind where the
            // table has one.
            let row = args(kind, id, Some(j), &k);
            let n = params.len();
            let kind_column: String = (n + 3..=n + row.len()).map(|p| format!(", ${p}")).collect();
            values.push(format!(
                "(${}, ${}::text::jsonb{kind_column})",
                n + 1,
                n + 2
            ));
            params.extend(row);
        }
        let statement = format!("{} {}", self.sql(kind).insert, values.join(", "));
        self.pool.run(|c| {
            let st = c.prepare(&statement)?;
            match c.client().execute(&st, &params) {
                Ok(n) => Ok(n == rows.len() as u64),
                Err(e) if e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) => {
                    Ok(false)
                }
                Err(e) => Err(e),
            }
        })
    }

    fn delete(&self, kind: Kind, id: &str) -> Result<bool> {
        Ok(self.exec(kind, &self.sql(kind).delete, id, None)? > 0)
    }

    fn take(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        // One statement: the row is deleted and returned atomically, on every node.
        self.one(kind, &self.sql(kind).take, id)
    }

    fn ids(&self, kind: Kind) -> Result<Vec<String>> {
        let filter = match kind {
            Kind::Global => "SSO",
            Kind::Persistent => "Persistent",
            other => other.as_str(),
        };
        let sql = &self.sql(kind).ids;
        let rows = self.pool.run(|c| {
            let st = c.prepare(sql)?;
            c.client().query(&st, &[&filter])
        })?;
        rows.iter()
            .map(|r| {
                r.try_get::<_, String>(0)
                    .map_err(|e| Error::storage(format!("{}: {e}", self.pool.label())))
            })
            .collect()
    }

    fn describe(&self) -> String {
        format!("{} (table {})", self.pool.label(), self.table)
    }
}
