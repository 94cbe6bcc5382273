//! `limette db init`: creates the PostgreSQL tables of a new site, those the settings name:
//! the configuration table (`[configuration]` CDBI on a `DBI:Pg:` chain, then configuration 1
//! when it is empty), the session tables (`globalStorage`/`persistentStorage` PgJSON, with
//! Limette's internal table beside the SSO one) and the notification table
//! (`notificationStorage` DBI). Every statement is `IF NOT EXISTS`: a second run, or a run on
//! a database a LemonLDAP::NG site already uses, changes nothing that is there. Stores that are
//! not PostgreSQL are named and left alone (they create themselves). The DBI user table
//! (`dbiAuthTable`, `dbiUserTable`, on SQLite or PostgreSQL) is created too, with text columns:
//! the login, the password, the mail column and those the exported variables name.
use super::out;
#[cfg(feature = "postgres")]
use crate::config::local::ConfBackend;
use crate::config::local::LocalConf;

/// Parses `db ...`: only `init` today.
pub fn parse(rest: &[String]) -> Result<(), String> {
    match rest {
        [v] if v == "init" => Ok(()),
        _ => Err("usage: limette db init".into()),
    }
}

/// Runs `db init`; the exit code.
pub fn run(local: &LocalConf) -> i32 {
    let made = init(local).and_then(|mut lines| {
        lines.push(users_table(local)?);
        Ok(lines)
    });
    match made {
        Ok(lines) => {
            for l in lines {
                out::line(&l);
            }
            0
        }
        Err(e) => {
            out::err(&format!("limette db init: {e}"));
            1
        }
    }
}

/// Creates the DBI user table(s) the configuration names, if any.
fn users_table(local: &LocalConf) -> Result<String, String> {
    use crate::config::AreaSettings;
    use crate::directory::dbi::{Settings, Users};
    let raw = super::users::latest_raw(local)?;
    let settings = Settings::from_conf(&raw)?;
    let Some(store) = &settings.store else {
        return Ok("users: no module is DBI (nothing to create)".into());
    };
    let mut extra: Vec<String> = Vec::new();
    for (_, col) in &store.exported {
        if !col.starts_with("HTTP_") && !extra.iter().any(|c| c.eq_ignore_ascii_case(col)) {
            extra.push(col.clone());
        }
    }
    let users = Users::open_store(Some(store), true).map_err(|e| e.to_string())?;
    users.create_tables(&extra).map_err(|e| e.to_string())?;
    Ok(format!(
        "users: table {} in {}",
        store.layout.auth_table,
        users.label()
    ))
}

#[cfg(not(feature = "postgres"))]
fn init(_local: &LocalConf) -> Result<Vec<String>, String> {
    Err("this build has no PostgreSQL client (build with the postgres feature)".into())
}

#[cfg(feature = "postgres")]
fn init(local: &LocalConf) -> Result<Vec<String>, String> {
    use crate::config::stores::{normalize_kind, notification_store_of, StorageChoice};
    use crate::storage::pg::{pool, schema};
    let size = 2;
    let mut said = Vec::new();
    let run = |source: &crate::config::stores::PgSource, ddl: String| -> Result<(), String> {
        let p = pool(source, size).map_err(|e| e.to_string())?;
        schema::run(&p, &ddl).map_err(|e| e.to_string())
    };
    if let ConfBackend::Pg { source, table } = &local.conf_backend {
        run(source, schema::conf_ddl(table))?;
        said.push(format!(
            "configuration: table {table} in {}",
            source.label()
        ));
    }
    let store = crate::storage::open::open_conf(local).map_err(|e| e.to_string())?;
    if matches!(local.conf_backend, ConfBackend::Pg { .. })
        && crate::storage::save::seed_if_empty(store.as_ref()).map_err(|e| e.to_string())?
    {
        said.push("configuration: the embedded default saved as number 1".into());
    }
    let mut raw = match store.latest().map_err(|e| e.to_string())? {
        Some(n) => store.load(n).map_err(|e| e.to_string())?,
        None => Default::default(),
    };
    raw.extend(local.overrides.clone());
    let mut local = local.clone();
    local.adopt_conf_storage(&raw);
    for (key, spec, persistent, default) in [
        ("globalStorage", &local.global_storage, false, "sessions"),
        (
            "persistentStorage",
            &local.persistent_storage,
            true,
            "psessions",
        ),
    ] {
        if normalize_kind(&spec.kind) != "pg" {
            said.push(format!(
                "{key}: {} (not PostgreSQL: nothing to create)",
                spec.kind
            ));
            continue;
        }
        let opt = |k: &str| spec.options.get(k).and_then(|v| v.as_str());
        let source = crate::config::stores::dbi_pg_source(
            opt("DataSource").unwrap_or(""),
            opt("UserName"),
            opt("Password"),
        )
        .map_err(|e| format!("{key}Options DataSource: {e}"))?;
        let table = opt("TableName").unwrap_or(default);
        crate::storage::pg::check_table(table).map_err(|e| e.to_string())?;
        run(&source, schema::sessions_ddl(table, persistent))?;
        said.push(format!("{key}: table {table} in {}", source.label()));
    }
    let (choice, sep) = notification_store_of(&raw)?;
    match crate::storage::open::resolve(&local, choice.as_ref(), &sep) {
        StorageChoice::Pg { source, table } => {
            crate::storage::pg::check_table(&table).map_err(|e| e.to_string())?;
            run(&source, schema::notifications_ddl(&table))?;
            said.push(format!(
                "notificationStorage: table {table} in {}",
                source.label()
            ));
        }
        _ => said.push("notificationStorage: not PostgreSQL (nothing to create)".into()),
    }
    Ok(said)
}
