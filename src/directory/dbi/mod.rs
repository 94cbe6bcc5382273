//! A user store of its own, in the layout LemonLDAP::NG's DBI modules read and write, so that
//! a table can be shared with LemonLDAP::NG nodes: `authentication = DBI`, `userDB = DBI`
//! (or `Same`), `passwordDB = DBI`. `Users` is the store's one API (the login's directory,
//! `limette users ...`, the console's users page and the portal's password change all use
//! it): it checks passwords, reads attributes, and writes users with the configured hash
//! scheme, through the storage layer's `UserTable` (SQLite or PostgreSQL).
//!
//! Locking: a locked user's password value is the stored value with `!` before it, as
//! `/etc/shadow` does; no scheme of either system ever produces a value starting with `!`,
//! so a locked user matches on neither (a clear-text password is the exception on
//! LemonLDAP::NG, which would take `!` + the password: sites sharing a table hash their
//! passwords). Unlocking removes the `!`. No column is added to the shared table.
//!
//! Timing: checking the password of an unknown user, a locked one or one whose value no
//! configured scheme reads costs a hash with the configured scheme, as a real check does.
pub mod crypt;
pub mod digest;
mod module;
pub mod scheme;
pub mod settings;

pub use module::{findings, DbiDirectory};
pub use settings::{Settings, Store, NAME};

use crate::error::{Error, Result};
use crate::storage::users::{self, NewUser, UserTable};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// Connections kept per database (the stores' pools are sized to the workers; logins are a
/// small share of requests).
const POOL: usize = 8;
/// The longest page `list` answers.
pub const MAX_LIST: usize = 1000;

/// A password given to `add`: to be hashed, or already a hash (an import).
pub enum Secret {
    /// A password, hashed with the configured new-password scheme.
    Clear(String),
    /// A stored value as is (it must be a scheme the configuration checks).
    Hash(String),
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Secret::Clear(_) => "Secret::Clear(***)",
            Secret::Hash(_) => "Secret::Hash(***)",
        })
    }
}

/// A user as the administration shows it: never the password value, only its scheme.
#[derive(Debug, Clone)]
pub struct UserRow {
    /// The login.
    pub login: String,
    /// Whether the password value is locked (`!`).
    pub locked: bool,
    /// The scheme of the value: `{ssha512}`, `$6$`, `$argon2id$`, `hex`, `clear`, `none`.
    pub scheme: String,
    /// The user table's columns (the password column left out).
    pub attrs: Map<String, Value>,
}

/// An open user table, shared (cheap to clone).
#[derive(Clone)]
pub struct Users {
    table: Arc<dyn UserTable>,
    store: Arc<Store>,
}

impl fmt::Debug for Users {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Users({})", self.table.label())
    }
}

impl Users {
    /// The user table of a configuration: opened once per configuration and kept with it
    /// (its connections live across requests); nothing connects until the first statement.
    pub fn open(s: &Settings) -> Result<Users> {
        if let Some(u) = s.opened.get() {
            return Ok(u.clone());
        }
        let users = Users::open_store(s.store.as_ref(), false)?;
        Ok(s.opened.get_or_init(|| users).clone())
    }

    /// The user table of the settings, new, the SQLite file made when `create` (`db init`).
    pub fn open_store(store: Option<&Store>, create: bool) -> Result<Users> {
        let store = store
            .ok_or_else(|| Error::bad("no module is DBI (authentication, userDB or passwordDB)"))?;
        let table =
            crate::storage::open::open_users(&store.source, store.layout.clone(), POOL, create)?;
        Ok(Users {
            table,
            store: Arc::new(store.clone()),
        })
    }

    /// Some(attributes) when the login and password are right; None otherwise, at the same
    /// cost for unknown users. Locked users are refused.
    pub fn check(&self, login: &str, password: &str) -> Result<Option<Map<String, Value>>> {
        if !self.password_ok(login, password)? {
            return Ok(None);
        }
        self.attributes(login)
    }

    /// Whether the password is right (the directory's `authenticate`).
    pub fn password_ok(&self, login: &str, password: &str) -> Result<bool> {
        let hashing = &self.store.hashing;
        match self.table.password(login)? {
            Some(Some(stored)) if !stored.starts_with('!') => Ok(hashing.verify(&stored, password)),
            _ => {
                hashing.dummy(password);
                Ok(false)
            }
        }
    }

    /// The user table's row of `login` (by the pivot column), the password column left out.
    pub fn attributes(&self, login: &str) -> Result<Option<Map<String, Value>>> {
        self.table.row(&self.store.layout.pivot, login)
    }

    /// The login of the user whose mail column (`dbiMailCol`, else the pivot) is `mail`.
    pub fn login_of_mail(&self, mail: &str) -> Result<Option<String>> {
        let l = &self.store.layout;
        let col = l.mail_col.as_deref().unwrap_or(&l.pivot);
        let row = self.table.row(col, mail)?;
        Ok(row.and_then(|r| r.get(&l.pivot).map(crate::config::value_string)))
    }

    /// Sets the password, hashed with the configured new-password scheme; a locked user
    /// stays locked. False: no such user.
    pub fn set_password(&self, login: &str, password: &str) -> Result<bool> {
        let locked = match self.table.password(login)? {
            None => return Ok(false),
            Some(v) => v.is_some_and(|v| v.starts_with('!')),
        };
        let hash = self.hash(password)?;
        let stored = if locked { format!("!{hash}") } else { hash };
        self.table.set_password(login, &stored)
    }

    /// Adds a user with attribute columns; a login already there is `Error::Conflict`.
    pub fn add(&self, login: &str, secret: Secret, attrs: &Map<String, Value>) -> Result<()> {
        let user = self.new_user(login, secret, attrs)?;
        self.table.insert(&[user])
    }

    /// Adds every user or none (an import): one transaction.
    pub fn add_all(&self, users: Vec<(String, Secret, Map<String, Value>)>) -> Result<()> {
        let rows = users
            .into_iter()
            .map(|(l, s, a)| self.new_user(&l, s, &a))
            .collect::<Result<Vec<_>>>()?;
        self.table.insert(&rows)
    }

    /// The row to insert: the value to store and the attribute columns as text.
    pub fn new_user(
        &self,
        login: &str,
        secret: Secret,
        attrs: &Map<String, Value>,
    ) -> Result<NewUser> {
        let password = match secret {
            Secret::Clear(p) => self.hash(&p)?,
            Secret::Hash(h) => {
                self.store.hashing.accepts(&h).map_err(Error::bad)?;
                h
            }
        };
        let attrs = attrs
            .iter()
            .map(|(k, v)| (k.clone(), crate::config::value_string(v)))
            .collect();
        Ok(NewUser {
            login: login.to_string(),
            password,
            attrs,
        })
    }

    /// Locks (`!` before the value) or unlocks a user. False: no such user.
    pub fn lock(&self, login: &str, locked: bool) -> Result<bool> {
        let Some(value) = self.table.password(login)? else {
            return Ok(false);
        };
        let value = value.unwrap_or_default();
        let bare = value.strip_prefix('!').unwrap_or(&value);
        let stored = if locked {
            format!("!{bare}")
        } else {
            bare.to_string()
        };
        if stored == value {
            return Ok(true);
        }
        self.table.set_password(login, &stored)
    }

    /// Deletes a user (from both tables). False: no such user.
    pub fn delete(&self, login: &str) -> Result<bool> {
        self.table.delete(login)
    }

    /// Users by login, those containing `search` when given; at most `MAX_LIST`.
    pub fn list(&self, search: Option<&str>, offset: usize, limit: usize) -> Result<Vec<UserRow>> {
        let rows = self.table.list(search, offset, limit.min(MAX_LIST))?;
        Ok(rows.into_iter().map(row_of).collect())
    }

    /// One user.
    pub fn show(&self, login: &str) -> Result<Option<UserRow>> {
        let Some(password) = self.table.password(login)? else {
            return Ok(None);
        };
        let attrs = self.attributes(login)?.unwrap_or_default();
        Ok(Some(row_of(users::Stored {
            login: login.to_string(),
            password,
            row: attrs,
        })))
    }

    /// The configured columns the tables lack; a missing table is `Error::NotFound` naming
    /// it.
    pub fn missing_columns(&self) -> Result<Vec<users::Missing>> {
        users::missing_columns(self.table.as_ref(), &self.store.layout)
    }

    /// The user table's columns, as the database names them.
    pub fn columns(&self) -> Result<Vec<String>> {
        self.table.columns(&self.store.layout.user_table)
    }

    /// Creates the table(s) when missing (`limette db init`), with `extra` text columns (the
    /// exported variables' columns).
    pub fn create_tables(&self, extra: &[String]) -> Result<()> {
        self.table.create(extra)
    }

    /// What the table is, for messages.
    pub fn label(&self) -> String {
        self.table.label()
    }

    /// The settings the table was opened with.
    pub fn store(&self) -> &Store {
        &self.store
    }

    fn hash(&self, password: &str) -> Result<String> {
        self.store
            .hashing
            .hash_new(password)
            .ok_or_else(|| Error::internal("the new-password scheme failed to hash"))
    }
}

fn row_of(s: users::Stored) -> UserRow {
    let value = s.password.unwrap_or_default();
    UserRow {
        login: s.login,
        locked: value.starts_with('!'),
        scheme: scheme::describe(&value),
        attrs: s.row,
    }
}

#[cfg(test)]
mod tests;
