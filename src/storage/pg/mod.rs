//! PostgreSQL backends (the only users of the `postgres` crate, built with the `postgres`
//! feature): sessions in LemonLDAP::NG's `Apache::Session::Browseable::PgJSON` table,
//! configurations in its `CDBI` table, notifications in its DBI table (`schema` has the
//! statements, `limette db init` runs them). The crate's blocking client drives a small
//! current-thread runtime of its own inside each connection, on the calling worker's thread:
//! nothing of it runs anywhere else in Limette.
//!
//! One `Pool` per data source, shared by every store on it and sized to the worker pool (a
//! worker never waits for a connection another store holds idle). Connections open lazily
//! with a connect timeout and a server-side statement timeout; one found closed (a database
//! restart) is dropped and the statement retried once on a new one, so a restart needs no
//! restart of Limette. A database out of reach, or one refusing the configured role or its
//! password, is `Error::Unavailable` (503, the driver's text in the log only); any other
//! database error is `Error::Storage`.
pub mod conf;
pub mod notifications;
pub mod schema;
pub mod sessions;
pub mod users;

use crate::config::stores::PgSource;
use crate::error::{Error, Result};
use postgres::error::SqlState;
use postgres::{Client, NoTls, Statement};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

/// How long a connection attempt may take unless the chain says (`connect_timeout=`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one statement (or a wait for a row lock) may take on the server.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// The socket folder of the distribution's server, when the chain names no host.
pub const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";

/// A connection and the statements it has prepared (each SQL text is parsed once a
/// connection, then only bound and run: one round trip a statement).
pub struct Conn {
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl Conn {
    /// The prepared form of `sql` on this connection.
    pub fn prepare(&mut self, sql: &str) -> std::result::Result<Statement, postgres::Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.prepared.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    /// The client, for transactions.
    pub fn client(&mut self) -> &mut Client {
        &mut self.client
    }
}

/// Connections to one database.
pub struct Pool {
    config: postgres::Config,
    slots: Vec<Mutex<Option<Conn>>>,
    next: AtomicUsize,
    label: String,
}

/// The pools open in this process, by data source: stores on one database share one.
static POOLS: Mutex<Vec<(PgSource, Weak<Pool>)>> = Mutex::new(Vec::new());

/// The pool of `source`, opened with `size` connections at most (the worker pool's size) when
/// none is open yet. Nothing connects here: the first statement does.
pub fn pool(source: &PgSource, size: usize) -> Result<Arc<Pool>> {
    let mut pools = POOLS
        .lock()
        .map_err(|_| Error::internal("pool registry lock poisoned"))?;
    pools.retain(|(_, w)| w.strong_count() > 0);
    if let Some(p) = pools
        .iter()
        .find(|(s, _)| s == source)
        .and_then(|(_, w)| w.upgrade())
    {
        return Ok(p);
    }
    let p = Arc::new(Pool::new(source, size)?);
    pools.push((source.clone(), Arc::downgrade(&p)));
    Ok(p)
}

impl Pool {
    /// A pool of at most `size` connections to `source` (none opened yet).
    pub fn new(source: &PgSource, size: usize) -> Result<Pool> {
        Ok(Pool {
            config: client_config(source)?,
            slots: (0..size.clamp(1, 256)).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            label: source.label(),
        })
    }

    /// What this pool reaches, for descriptions (no password).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Runs `f` on a connection: a free one if any, else waits for one. A connection found
    /// closed (the server restarted or ended it) is replaced and `f` run once more on the new
    /// one; a closed fresh connection is the database being out of reach.
    pub fn run<T>(
        &self,
        mut f: impl FnMut(&mut Conn) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let mut slot = self.slot()?;
        for attempt in 0..2 {
            let reused = slot.is_some();
            let conn = match &mut *slot {
                Some(c) => c,
                empty => empty.insert(self.connect()?),
            };
            match f(conn) {
                Ok(v) => return Ok(v),
                Err(e) => {
                    let gone = conn.client.is_closed() || is_disconnect(&e);
                    if gone {
                        *slot = None;
                        if reused && attempt == 0 {
                            continue;
                        }
                    }
                    return Err(self.fail(&e));
                }
            }
        }
        Err(Error::Unavailable(format!(
            "{}: connection lost",
            self.label
        )))
    }

    fn slot(&self) -> Result<MutexGuard<'_, Option<Conn>>> {
        let n = self.slots.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            if let Ok(g) = self.slots[(start + i) % n].try_lock() {
                return Ok(g);
            }
        }
        self.slots[start % n]
            .lock()
            .map_err(|_| Error::internal("database connection lock poisoned"))
    }

    fn connect(&self) -> Result<Conn> {
        let client = self.config.connect(NoTls).map_err(|e| self.fail(&e))?;
        Ok(Conn {
            client,
            prepared: HashMap::new(),
        })
    }

    /// The crate error of a driver error: out of reach (503) or failed (500); the driver's
    /// text goes into the message, which only the log shows.
    pub fn fail(&self, e: &postgres::Error) -> Error {
        let detail = match e.as_db_error() {
            Some(db) => format!("{}: {} ({})", self.label, db.message(), db.code().code()),
            None => format!("{}: {e}", self.label),
        };
        match e.code() {
            None => Error::Unavailable(detail),
            Some(c) if is_unavailable(c) => Error::Unavailable(detail),
            // A wrong password or a role the server does not let in: the store is out of
            // reach until the settings or the server change (a login answers 503, never
            // "wrong password"); the line says which settings, never their values.
            Some(c)
                if *c == SqlState::INVALID_PASSWORD
                    || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
            {
                Error::Unavailable(format!(
                    "{detail}: the database refused the role or its password (dbiAuthUser and \
                     dbiAuthPassword, dbiUser and dbiPassword, or UserName and Password)"
                ))
            }
            Some(c) if *c == SqlState::UNDEFINED_TABLE => Error::Storage(format!(
                "{detail}: create the tables with `limette db init`"
            )),
            Some(_) => Error::Storage(detail),
        }
    }
}

/// Server states that mean "not now" rather than "wrong": shutdown, start-up, too many
/// connections, a statement or lock wait over its timeout.
fn is_unavailable(c: &SqlState) -> bool {
    [
        SqlState::ADMIN_SHUTDOWN,
        SqlState::CRASH_SHUTDOWN,
        SqlState::CANNOT_CONNECT_NOW,
        SqlState::TOO_MANY_CONNECTIONS,
        SqlState::QUERY_CANCELED,
        SqlState::LOCK_NOT_AVAILABLE,
        SqlState::CONNECTION_FAILURE,
        SqlState::CONNECTION_EXCEPTION,
    ]
    .contains(c)
}

/// Whether the error ended the connection (so it must not be used again).
fn is_disconnect(e: &postgres::Error) -> bool {
    e.is_closed()
        || e.code().is_some_and(|c| {
            [
                SqlState::ADMIN_SHUTDOWN,
                SqlState::CRASH_SHUTDOWN,
                SqlState::CONNECTION_FAILURE,
                SqlState::CONNECTION_EXCEPTION,
            ]
            .contains(c)
        })
        || (e.code().is_none() && e.as_db_error().is_none())
}

/// The client settings of a data source: host (a folder is a Unix socket's), port, database,
/// role, timeouts; never TLS (`PgSource` refuses the modes that require it).
fn client_config(src: &PgSource) -> Result<postgres::Config> {
    let mut c = postgres::Config::new();
    let host = src.get("host").unwrap_or(DEFAULT_SOCKET_DIR);
    for h in host.split(',').map(str::trim).filter(|h| !h.is_empty()) {
        if h.starts_with('/') {
            c.host_path(h);
        } else {
            c.host(h);
        }
    }
    if let Some(p) = src.get("port") {
        let port = p
            .parse::<u16>()
            .map_err(|_| Error::bad(format!("port={p} is not a port number")))?;
        c.port(port);
    }
    if let Some(d) = src.get("dbname") {
        c.dbname(d);
    }
    let user = src
        .user
        .clone()
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "limette".into());
    c.user(&user);
    if let Some(p) = &src.password {
        c.password(p);
    }
    let timeout = src
        .get("connect_timeout")
        .and_then(|t| t.parse::<u64>().ok())
        .filter(|t| *t > 0)
        .map(Duration::from_secs)
        .unwrap_or(CONNECT_TIMEOUT);
    c.connect_timeout(timeout);
    c.application_name(src.get("application_name").unwrap_or("limette"));
    c.ssl_mode(postgres::config::SslMode::Disable);
    c.keepalives(true);
    c.keepalives_idle(Duration::from_secs(30));
    let ms = STATEMENT_TIMEOUT.as_millis();
    c.options(&format!(
        "-c statement_timeout={ms} -c lock_timeout={ms} -c idle_in_transaction_session_timeout={ms}"
    ));
    Ok(c)
}

/// A table name from the settings, checked before it reaches a statement.
pub fn check_table(name: &str) -> Result<String> {
    if crate::util::is_sql_name(name) {
        Ok(name.to_string())
    } else {
        Err(Error::bad(format!(
            "invalid table name {name} (letters, digits and _ only)"
        )))
    }
}

/// The tests' throw-away cluster, shared with the integration tests (which include this file
/// as `common::pg`).
#[cfg(test)]
pub mod cluster;

#[cfg(test)]
pub mod tests;
