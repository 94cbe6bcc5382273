//! The DBI module as the login and the start see it: the directory (`authenticate` and
//! `getUser`, the exported variables mapped as `UserDB/DBI.pm`'s `setSessionInfo` maps them)
//! and what `config check` and the start say of the settings (a column missing, clear text,
//! argon2id, a database out of reach).
use super::{scheme, Settings, Users, NAME};
use crate::directory::Directory;
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// The DBI directory of a configuration (the login's `authenticate` and `getUser`).
pub struct DbiDirectory {
    users: Result<Users>,
    exported: Vec<(String, String)>,
    level: i64,
}

impl DbiDirectory {
    /// The directory of the settings (its table opened once per configuration).
    pub fn new(s: &Settings) -> DbiDirectory {
        DbiDirectory {
            users: Users::open(s),
            exported: s
                .store
                .as_ref()
                .map(|st| st.exported.clone())
                .unwrap_or_default(),
            level: s.level,
        }
    }

    fn users(&self) -> Result<&Users> {
        self.users
            .as_ref()
            .map_err(|e| Error::Unavailable(format!("user table: {e}")))
    }
}

/// `UserDB/DBI.pm`'s `setSessionInfo`: each exported variable whose column is defined in the
/// row, under the variable's name (`HTTP_*` sources are request headers: the login's).
pub fn export(row: &Map<String, Value>, exported: &[(String, String)]) -> Map<String, Value> {
    let mut out = Map::new();
    for (var, col) in exported {
        if col.starts_with("HTTP_") {
            continue;
        }
        if let Some(v) = row.get(col).filter(|v| !v.is_null()) {
            out.insert(var.clone(), v.clone());
        }
    }
    out
}

impl Directory for DbiDirectory {
    fn authenticate(&self, user: &str, password: &str) -> Result<bool> {
        self.users()?.password_ok(user, password)
    }

    fn user_info(&self, user: &str) -> Result<Option<Map<String, Value>>> {
        let row = self.users()?.attributes(user)?;
        Ok(row.map(|r| export(&r, &self.exported)))
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn authn_level(&self) -> i64 {
        self.level
    }
}

/// What `config check` and the start say of the DBI settings: (error?, key, message). An
/// error refuses the start (a configured column or table missing); a database out of reach
/// is a warning (logins answer 503 until it is back, as LemonLDAP::NG continues too).
pub fn findings(s: &Settings) -> Vec<(bool, &'static str, String)> {
    let Some(store) = &s.store else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if s.clear_text() {
        let key = match store.hashing.dynamic {
            true => "dbiDynamicHashNewPasswordScheme",
            false => "dbiAuthPasswordHash",
        };
        out.push((
            false,
            key,
            format!(
                "{key} is empty: passwords are written in clear text in the user table (set \
                 dbiDynamicHashEnabled = 1 and dbiDynamicHashNewPasswordScheme = ssha512 or \
                 unixcrypt6, listed in dbiDynamicHashValidSaltedSchemes)"
            ),
        ));
    }
    if matches!(
        &store.hashing.new,
        scheme::NewScheme::Salted(_, scheme::Salted::Argon2id)
    ) {
        out.push((
            false,
            "dbiDynamicHashNewPasswordScheme",
            "dbiDynamicHashNewPasswordScheme = argon2id: LemonLDAP::NG nodes sharing the table \
             cannot check the passwords it writes"
                .to_string(),
        ));
    }
    let checked = Users::open(s).and_then(|u| u.missing_columns());
    match checked {
        Ok(missing) => {
            for (key, table, col) in missing {
                out.push((
                    true,
                    key,
                    format!(
                        "{key} = {col}: the table {table} in {} has no such column",
                        store.chain
                    ),
                ));
            }
        }
        Err(Error::NotFound(m)) => out.push((true, "dbiAuthTable", m)),
        Err(e) => out.push((
            false,
            "dbiAuthChain",
            format!(
                "the user database {} cannot be read now ({e}): logins answer 503 until it can",
                store.chain
            ),
        )),
    }
    out
}
