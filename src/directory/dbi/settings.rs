//! The DBI modules' settings, LemonLDAP::NG 2.16's keys with its defaults (`Lib/DBI.pm`,
//! `Auth/DBI.pm`, `UserDB/DBI.pm`, `Password/DBI.pm`; only `dbiAuthnLevel` = 2 and
//! `dbiExportedVars` = {} have defaults in `Manager/Attributes.pm`). Read when the
//! configuration names DBI as `authentication`, `userDB` or `passwordDB`; then a chain of
//! another driver, a missing table or column name, or a hash scheme Limette cannot compute
//! refuses the configuration, naming the key. `dbiUserChain`, `dbiUserUser`,
//! `dbiUserPassword` and `dbiPasswordMailCol` are not read, as LemonLDAP::NG 2.16 does not
//! read them either (its modules all connect with `dbiAuthChain`).
use super::scheme::Hashing;
use crate::config::{value_string, AreaSettings};
use crate::storage::users::{Layout, Source};
use serde_json::{Map, Value};
use std::fmt;

/// The module name in `authentication`, `userDB`, `passwordDB`, `_auth`, `_userDB`.
pub const NAME: &str = "DBI";

/// The DBI settings of a configuration.
pub struct Settings {
    /// `authentication = DBI`.
    pub authentication: bool,
    /// `userDB = DBI`, or `Same` with `authentication = DBI`.
    pub user_db: bool,
    /// `passwordDB = DBI`.
    pub password_db: bool,
    /// The rest, when one of the three names DBI (`None` otherwise).
    pub store: Option<Store>,
    /// `dbiAuthnLevel` (2 when unset).
    pub level: i64,
    /// The user table opened for this configuration, on first use (`Users::open`).
    pub(super) opened: std::sync::OnceLock<super::Users>,
}

/// Where the users are and how their passwords are kept.
#[derive(Clone)]
pub struct Store {
    /// `dbiAuthChain` (with `dbiAuthUser`, `dbiAuthPassword` for PostgreSQL).
    pub source: Source,
    /// `dbiAuthChain` as written, for messages (a password in it is not shown).
    pub chain: String,
    /// The tables and columns.
    pub layout: Layout,
    /// The hash schemes.
    pub hashing: Hashing,
    /// `exportedVars` then `dbiExportedVars` (which wins): session key -> column. `HTTP_*`
    /// sources are the login's business (request headers), not the table's.
    pub exported: Vec<(String, String)>,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("dbi::Settings")
            .field("authentication", &self.authentication)
            .field("user_db", &self.user_db)
            .field("password_db", &self.password_db)
            .field(
                "store",
                &self.store.as_ref().map(|s| (&s.layout, &s.hashing)),
            )
            .field("level", &self.level)
            .finish()
    }
}

impl Settings {
    /// Whether any module names DBI.
    pub fn in_use(&self) -> bool {
        self.store.is_some()
    }

    /// Whether passwords are kept in clear text (`config check` warns): the static mode
    /// without a hash, or the dynamic mode without a new-password scheme.
    pub fn clear_text(&self) -> bool {
        use super::scheme::{NewScheme, StaticHash};
        self.store
            .as_ref()
            .is_some_and(|s| match s.hashing.dynamic {
                false => s.hashing.static_hash == StaticHash::Clear,
                true => s.hashing.new == NewScheme::Clear,
            })
    }
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> Result<Settings, String> {
        let get = |k: &str| raw.get(k).map(value_string).unwrap_or_default();
        let auth = get("authentication") == NAME;
        let user_db = get("userDB");
        let user_db = user_db == NAME || (user_db == "Same" && auth);
        let password_db = get("passwordDB") == NAME;
        let store = (auth || user_db || password_db)
            .then(|| store(raw))
            .transpose()?;
        Ok(Settings {
            authentication: auth,
            user_db,
            password_db,
            store,
            level: crate::directory::rest::rest_level(raw.get("dbiAuthnLevel")),
            opened: std::sync::OnceLock::new(),
        })
    }
}

/// Reads the chain, the tables, the hashes and the exports.
fn store(raw: &Map<String, Value>) -> Result<Store, String> {
    let get = |k: &str| {
        raw.get(k)
            .map(value_string)
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let chain = get("dbiAuthChain");
    let source = source(&chain, raw)?;
    let auth_table = get("dbiAuthTable");
    let user_table = Some(get("dbiUserTable")).filter(|t| !t.is_empty());
    let login = get("dbiAuthLoginCol");
    let pivot = Some(get("userPivot")).filter(|t| !t.is_empty());
    let mail = Some(get("dbiMailCol")).filter(|t| !t.is_empty());
    let layout = Layout::new(
        [
            ("dbiAuthTable", &auth_table),
            ("dbiUserTable", user_table.as_deref().unwrap_or(&auth_table)),
            ("dbiAuthLoginCol", &login),
            ("dbiAuthPasswordCol", &get("dbiAuthPasswordCol")),
            ("userPivot", pivot.as_deref().unwrap_or(&login)),
        ],
        mail.as_deref().map(|m| ("dbiMailCol", m)),
    )?;
    let dynamic = raw
        .get("dbiDynamicHashEnabled")
        .and_then(crate::config::as_i64)
        == Some(1);
    let hashing = Hashing::parse(
        dynamic,
        &get("dbiAuthPasswordHash"),
        &get("dbiDynamicHashValidSchemes"),
        &get("dbiDynamicHashValidSaltedSchemes"),
        &get("dbiDynamicHashNewPasswordScheme"),
    )?;
    Ok(Store {
        source,
        chain: redacted_chain(&chain),
        layout,
        hashing,
        exported: exported(raw)?,
    })
}

/// `dbiAuthChain`: `dbi:SQLite:dbname=PATH` or `dbi:Pg:...`; any other driver is refused.
fn source(chain: &str, raw: &Map<String, Value>) -> Result<Source, String> {
    let opt = |k: &str| raw.get(k).map(value_string).filter(|v| !v.is_empty());
    if crate::config::stores::is_dbi_pg(chain) {
        return crate::config::stores::dbi_pg_source(
            chain,
            opt("dbiAuthUser").as_deref(),
            opt("dbiAuthPassword").as_deref(),
        )
        .map(Source::Pg)
        .map_err(|e| format!("dbiAuthChain: {e}"));
    }
    let is_dbi = chain
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("dbi:"));
    if !is_dbi {
        let shown = if chain.is_empty() { "(empty)" } else { chain };
        return Err(format!(
            "dbiAuthChain = {shown} is not supported (supported: dbi:SQLite:dbname=PATH, dbi:Pg:...)"
        ));
    }
    crate::config::stores::dbi_sqlite_path(chain)
        .map(Source::Sqlite)
        .map_err(|e| format!("dbiAuthChain: {e}"))
}

/// The chain without a `password=` parameter's value.
fn redacted_chain(chain: &str) -> String {
    chain
        .split(';')
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.trim().eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_string(),
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// `{ %exportedVars, %dbiExportedVars }`, as `UserDB/DBI.pm` merges them; column names are
/// checked (they are looked up in rows, never written into statements, but a name that is
/// not one is a configuration error worth saying).
fn exported(raw: &Map<String, Value>) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for key in ["exportedVars", "dbiExportedVars"] {
        let Some(Value::Object(m)) = raw.get(key) else {
            continue;
        };
        for (var, col) in m {
            let col = value_string(col);
            out.retain(|(v, _)| v != var);
            out.push((var.clone(), col));
        }
    }
    Ok(out)
}
