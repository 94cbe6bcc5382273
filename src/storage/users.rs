//! The user table of LemonLDAP::NG's DBI modules, as rows: the authentication table (a login
//! column and a password column) and the user table (a login column, the "pivot", and any
//! attribute columns), which are often one table. This module owns the trait and its plain
//! types; the SQLite and PostgreSQL backends are `sqlite::users` and `pg::users`, opened by
//! `storage::open::open_users`. It stores
//! the password column's value as it is given (a hash, a `!`-locked hash): what the value
//! means is the directory's business (`directory::dbi`), never this layer's.
//!
//! Identifiers come from the configuration and are checked (`[A-Za-z0-9_]`, `Layout::new`)
//! before any statement is built; they are written unquoted, as LemonLDAP::NG writes them, so
//! that both read the same columns (PostgreSQL folds them to lower case for both).
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// Where the users are: the tables and columns the configuration names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// `dbiAuthTable`: the login and password columns.
    pub auth_table: String,
    /// `dbiUserTable`, else `dbiAuthTable`: the attribute columns.
    pub user_table: String,
    /// `dbiAuthLoginCol`: the login, in the authentication table.
    pub login_col: String,
    /// `dbiAuthPasswordCol`: the stored password.
    pub password_col: String,
    /// `userPivot`, else `dbiAuthLoginCol`: the login, in the user table.
    pub pivot: String,
    /// `dbiMailCol`, when set: the user table's mail column.
    pub mail_col: Option<String>,
}

impl Layout {
    /// Checks every name; the error names the key and the value.
    pub fn new(names: [(&str, &str); 5], mail: Option<(&str, &str)>) -> Result<Layout, String> {
        for (key, value) in names.iter().chain(mail.iter()) {
            if !crate::util::is_sql_name(value) {
                let shown = if value.is_empty() { "(empty)" } else { value };
                return Err(format!(
                    "{key} = {shown} is not supported (a table or column name: letters, digits \
                     and _ only)"
                ));
            }
        }
        let [auth_table, user_table, login_col, password_col, pivot] = names.map(|(_, v)| v);
        Ok(Layout {
            auth_table: auth_table.into(),
            user_table: user_table.into(),
            login_col: login_col.into(),
            password_col: password_col.into(),
            pivot: pivot.into(),
            mail_col: mail.map(|(_, v)| v.to_string()),
        })
    }

    /// Whether the login and the attributes are in one table.
    pub fn one_table(&self) -> bool {
        self.auth_table.eq_ignore_ascii_case(&self.user_table)
    }

    /// The columns the configuration names in each table: (key naming it, table, column).
    pub fn required(&self) -> Vec<(&'static str, &str, &str)> {
        let mut out = vec![
            (
                "dbiAuthLoginCol",
                self.auth_table.as_str(),
                self.login_col.as_str(),
            ),
            (
                "dbiAuthPasswordCol",
                self.auth_table.as_str(),
                self.password_col.as_str(),
            ),
            ("userPivot", self.user_table.as_str(), self.pivot.as_str()),
        ];
        if let Some(m) = &self.mail_col {
            out.push(("dbiMailCol", self.user_table.as_str(), m.as_str()));
        }
        out
    }
}

/// A user to insert: the login, the password column's value, and attribute columns.
#[derive(Clone)]
pub struct NewUser {
    /// The login (both tables' login columns).
    pub login: String,
    /// The password column's value, as stored (a hash).
    pub password: String,
    /// Other columns of the user table: (column, value).
    pub attrs: Vec<(String, String)>,
}

/// A stored user: the login, the password column's value and the user table's row.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The login.
    pub login: String,
    /// The password column's value (`None`: NULL, or no row in the authentication table).
    pub password: Option<String>,
    /// The user table's columns (NULL ones left out), the password column left out.
    pub row: Map<String, Value>,
}

/// One database's user table(s). Every write is one transaction.
pub trait UserTable: Send + Sync {
    /// The password column's value of `login`: `Ok(None)` when no row has the login,
    /// `Some(None)` when its value is NULL.
    fn password(&self, login: &str) -> Result<Option<Option<String>>>;
    /// The user table's row where `column` (the pivot or the mail column) is `value`, NULL
    /// columns and the password column left out.
    fn row(&self, column: &str, value: &str) -> Result<Option<Map<String, Value>>>;
    /// Sets the password column of `login`; false when no row has it.
    fn set_password(&self, login: &str, stored: &str) -> Result<bool>;
    /// Inserts every user, or none: a login already there is `Error::Conflict` naming it.
    fn insert(&self, users: &[NewUser]) -> Result<()>;
    /// Deletes `login` from both tables; false when no row had it.
    fn delete(&self, login: &str) -> Result<bool>;
    /// Users by login, those whose login contains `search` when given (case ignored).
    fn list(&self, search: Option<&str>, offset: usize, limit: usize) -> Result<Vec<Stored>>;
    /// The columns of `table`, as the database names them.
    fn columns(&self, table: &str) -> Result<Vec<String>>;
    /// Creates the table(s) when missing, with text columns: the login, the password and
    /// `extra` attribute columns.
    fn create(&self, extra: &[String]) -> Result<()>;
    /// The database, for messages (no password).
    fn label(&self) -> String;
}

/// Where the database is: `dbiAuthChain` read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `dbi:SQLite:dbname=PATH`.
    Sqlite(String),
    /// `dbi:Pg:...`, with `dbiAuthUser` and `dbiAuthPassword`.
    Pg(crate::config::stores::PgSource),
}

/// A configured column a table lacks: the key naming it, the table, the column.
pub type Missing = (&'static str, String, String);

/// The columns of `layout` that the tables lack; a missing table is `Error::NotFound` naming
/// it (`dbiAuthTable` or `dbiUserTable`).
pub fn missing_columns(table: &dyn UserTable, layout: &Layout) -> Result<Vec<Missing>> {
    let mut missing = Vec::new();
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    for (key, t, col) in layout.required() {
        if !seen.iter().any(|(name, _)| name == t) {
            seen.push((t.to_string(), table.columns(t)?));
        }
        let cols = seen
            .iter()
            .find(|(name, _)| name == t)
            .map(|(_, c)| c.as_slice())
            .unwrap_or_default();
        if cols.is_empty() {
            let key = match t == layout.auth_table {
                true => "dbiAuthTable",
                false => "dbiUserTable",
            };
            return Err(Error::NotFound(format!(
                "{key} = {t}: no such table in {} (`limette db init` creates it)",
                table.label()
            )));
        }
        if !cols.iter().any(|c| c.eq_ignore_ascii_case(col)) {
            missing.push((key, t.to_string(), col.to_string()));
        }
    }
    Ok(missing)
}

/// Checks batch input before any statement: logins non-empty and unique, attribute columns
/// valid names distinct from the login and password columns.
pub fn check_batch(layout: &Layout, users: &[NewUser]) -> Result<()> {
    let mut logins = std::collections::HashSet::new();
    for u in users {
        if u.login.is_empty() {
            return Err(Error::bad("a user without a login"));
        }
        if !logins.insert(u.login.as_str()) {
            return Err(Error::Conflict(format!("user {} given twice", u.login)));
        }
        for (col, _) in &u.attrs {
            let reserved = [&layout.pivot, &layout.login_col, &layout.password_col];
            if !crate::util::is_sql_name(col)
                || reserved.iter().any(|r| r.eq_ignore_ascii_case(col))
            {
                return Err(Error::bad(format!("{col} is not an attribute column")));
            }
        }
    }
    Ok(())
}

/// A LIKE pattern matching `search` anywhere, its wildcards escaped with `\`.
pub fn like_pattern(search: &str) -> String {
    let mut p = String::from("%");
    for c in search.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// The INSERT statements of one user: one row, or one in each table.
/// `mark` is the placeholder's sign: `?` for SQLite, `$` for PostgreSQL.
pub fn insert_statements(l: &Layout, u: &NewUser, mark: char) -> Vec<(String, Vec<String>)> {
    let mut cols = vec![l.login_col.clone(), l.password_col.clone()];
    let mut vals = vec![u.login.clone(), u.password.clone()];
    let mut user_cols = vec![l.pivot.clone()];
    let mut user_vals = vec![u.login.clone()];
    for (c, v) in &u.attrs {
        if l.one_table() {
            cols.push(c.clone());
            vals.push(v.clone());
        } else {
            user_cols.push(c.clone());
            user_vals.push(v.clone());
        }
    }
    if l.one_table() && !l.pivot.eq_ignore_ascii_case(&l.login_col) {
        cols.push(l.pivot.clone());
        vals.push(u.login.clone());
    }
    let stmt = |t: &str, cols: &[String]| {
        let marks: Vec<String> = (1..=cols.len()).map(|i| format!("{mark}{i}")).collect();
        format!(
            "INSERT INTO {t} ({}) VALUES ({})",
            cols.join(", "),
            marks.join(", ")
        )
    };
    let mut out = vec![(stmt(&l.auth_table, &cols), vals)];
    if !l.one_table() {
        out.push((stmt(&l.user_table, &user_cols), user_vals));
    }
    out
}

/// `CREATE TABLE IF NOT EXISTS` for the layout's table(s), every column of type `text_type`.
pub fn create_ddl(l: &Layout, extra: &[String], text_type: &str) -> Result<String> {
    for c in extra {
        if !crate::util::is_sql_name(c) {
            return Err(Error::bad(format!("invalid column name {c}")));
        }
    }
    let mut auth = vec![
        format!("{} {text_type} NOT NULL PRIMARY KEY", l.login_col),
        format!("{} {text_type}", l.password_col),
    ];
    let mut user = vec![format!("{} {text_type} NOT NULL PRIMARY KEY", l.pivot)];
    let target = if l.one_table() { &mut auth } else { &mut user };
    let mut wanted: Vec<&String> = extra.iter().collect();
    if l.one_table() && !l.pivot.eq_ignore_ascii_case(&l.login_col) {
        wanted.push(&l.pivot);
    }
    if let Some(m) = &l.mail_col {
        wanted.push(m);
    }
    for c in wanted {
        let taken = |cols: &Vec<String>| {
            cols.iter().any(|d| {
                d.split(' ')
                    .next()
                    .is_some_and(|n| n.eq_ignore_ascii_case(c))
            })
        };
        if !taken(&*target) {
            target.push(format!("{c} {text_type}"));
        }
    }
    let mut ddl = format!(
        "CREATE TABLE IF NOT EXISTS {} ({});\n",
        l.auth_table,
        auth.join(", ")
    );
    if !l.one_table() {
        ddl.push_str(&format!(
            "CREATE TABLE IF NOT EXISTS {} ({});\n",
            l.user_table,
            user.join(", ")
        ));
    }
    Ok(ddl)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout::new(
            [
                ("dbiAuthTable", "users"),
                ("dbiUserTable", "users"),
                ("dbiAuthLoginCol", "login"),
                ("dbiAuthPasswordCol", "password"),
                ("userPivot", "login"),
            ],
            None,
        )
        .unwrap()
    }

    #[test]
    fn names_are_checked() {
        assert!(layout().one_table());
        let e = Layout::new(
            [
                ("dbiAuthTable", "users; drop"),
                ("dbiUserTable", "users"),
                ("dbiAuthLoginCol", "login"),
                ("dbiAuthPasswordCol", "password"),
                ("userPivot", "login"),
            ],
            None,
        )
        .unwrap_err();
        assert!(
            e.starts_with("dbiAuthTable = users; drop is not supported"),
            "{e}"
        );
    }

    #[test]
    fn batches_are_checked() {
        let u = |l: &str, col: &str| NewUser {
            login: l.into(),
            password: "x".into(),
            attrs: vec![(col.into(), "v".into())],
        };
        assert!(check_batch(&layout(), &[u("a", "mail"), u("b", "cn")]).is_ok());
        assert!(check_batch(&layout(), &[u("a", "mail"), u("a", "cn")]).is_err());
        assert!(check_batch(&layout(), &[u("a", "Password")]).is_err());
        assert!(check_batch(&layout(), &[u("a", "x y")]).is_err());
        assert!(check_batch(&layout(), &[u("", "cn")]).is_err());
    }

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern("a_b%"), "%a\\_b\\%%");
    }
}
