//! The tables of a new site, as LemonLDAP::NG 2.16's documentation creates them on
//! PostgreSQL (its PgJSON session backend page, its SQL configuration backend page, its DBI
//! notifications), plus the one table of Limette's internal records. `limette db init` runs
//! them; every statement is `IF NOT EXISTS`, so a second run, or a run on a database a
//! LemonLDAP::NG site already uses, changes nothing that is there.
use super::Pool;
use crate::error::Result;

/// The table of Limette's internal records beside a session table.
pub fn internal_table(sessions: &str) -> String {
    format!("{sessions}_limette")
}

/// An SSO session table (`persistent`: a persistent one) with the expression indexes
/// LemonLDAP::NG's searches use (`_whatToTrace` by the session explorer and the
/// one-session-a-user checks, `_session_kind`, `_utime` by the purge, `ipAddr`, ...).
/// LemonLDAP::NG's page makes the SSO table UNLOGGED for speed; Limette keeps it logged, so
/// that a crash of the database loses no acknowledged login (UNLOGGED tables are emptied by
/// crash recovery). Both read and write the same.
pub fn sessions_ddl(t: &str, persistent: bool) -> String {
    let keys: &[&str] = if persistent {
        &[
            "_session_kind",
            "_httpSessionType",
            "_session_uid",
            "ipAddr",
            "_whatToTrace",
        ]
    } else {
        &[
            "_whatToTrace",
            "_session_kind",
            "ipAddr",
            "_httpSessionType",
            "user",
        ]
    };
    let mut out = format!(
        "CREATE TABLE IF NOT EXISTS {t} (id varchar(64) NOT NULL PRIMARY KEY, a_session jsonb);\n"
    );
    for k in keys {
        let name = format!("i_{t}_{}", k.trim_start_matches('_').to_ascii_lowercase());
        out.push_str(&format!(
            "CREATE INDEX IF NOT EXISTS {name} ON {t} ((a_session ->> '{k}'));\n"
        ));
    }
    if !persistent {
        out.push_str(&format!(
            "CREATE INDEX IF NOT EXISTS i_{t}_utime ON {t} ((cast(a_session ->> '_utime' as bigint)));\n"
        ));
    }
    out.push_str(&internal_ddl(&internal_table(t)));
    out
}

/// Limette's internal records (OIDC codes and tokens, pending logins) beside a session table.
pub fn internal_ddl(t: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS {t} (kind varchar(16) NOT NULL, id varchar(128) NOT NULL, \
         a_session jsonb, PRIMARY KEY (kind, id));\n"
    )
}

/// LemonLDAP::NG's `CDBI` configuration table: one JSON document a number.
pub fn conf_ddl(t: &str) -> String {
    format!("CREATE TABLE IF NOT EXISTS {t} (cfgNum integer NOT NULL PRIMARY KEY, data text);\n")
}

/// LemonLDAP::NG's DBI notification table (its columns and primary key), plus the indexes of
/// a user's pending list and of the uid+reference lookups. `xml` holds the document as text
/// (JSON or XML).
pub fn notifications_ddl(t: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS {t} (
            date timestamp NOT NULL,
            uid varchar(255) NOT NULL,
            ref varchar(255) NOT NULL,
            cond varchar(255) DEFAULT NULL,
            xml text NOT NULL,
            done timestamp DEFAULT NULL,
            PRIMARY KEY (date, uid, ref));
         CREATE INDEX IF NOT EXISTS {t}_uid_done ON {t} (uid, done, date);
         CREATE INDEX IF NOT EXISTS {t}_uid_ref ON {t} (uid, ref);\n"
    )
}

/// Runs statements (several, separated by `;`) on a pool.
pub fn run(pool: &Pool, ddl: &str) -> Result<()> {
    pool.run(|c| c.client().batch_execute(ddl))
}
