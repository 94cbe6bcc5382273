//! `limette users add|passwd|lock|unlock|delete|list|show|import`: administration of the DBI
//! user table the configuration names (`authentication`, `userDB` or `passwordDB` = DBI,
//! `dbiAuthChain`...). Passwords are read from standard input (its first line), never from
//! the command line where other users of the host could read them; `add --hash` reads a
//! stored value (a hash) instead. Each change is one audit line without the password. The
//! import of CSV and LDIF files is `import`.
mod import;

use crate::cli::out;
use crate::config::local::LocalConf;
use crate::directory::dbi::{Secret, UserRow, Users};
use serde_json::{json, Map, Value};

/// A `users` subcommand, read before anything is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    /// `add LOGIN [COLUMN=VALUE...]` (`--hash`: standard input gives a hash).
    Add {
        login: String,
        hash: bool,
        attrs: Vec<(String, String)>,
    },
    /// `passwd LOGIN`
    Passwd(String),
    /// `lock LOGIN` / `unlock LOGIN`
    Lock(String, bool),
    /// `delete LOGIN`
    Delete(String),
    /// `list [SEARCH]`
    List(Option<String>),
    /// `show LOGIN`
    Show(String),
    /// `import FILE|-`
    Import(String),
}

/// The usage line.
pub const USAGE: &str =
    "usage: limette users add LOGIN [--hash] [COLUMN=VALUE...] | passwd LOGIN | \
     lock LOGIN | unlock LOGIN | delete LOGIN | list [SEARCH] | show LOGIN | import FILE|- \
     (passwords and hashes on standard input)";

/// Reads the arguments of `users`; `hash` is the `--hash` flag.
pub fn parse(args: &[String], hash: bool) -> Result<Cmd, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let cmd = match words.as_slice() {
        ["add", login, attrs @ ..] => Cmd::Add {
            login: login.to_string(),
            hash,
            attrs: attrs
                .iter()
                .map(|a| match a.split_once('=') {
                    Some((k, v)) if crate::util::is_sql_name(k) => Ok((k.into(), v.into())),
                    _ => Err(format!("{a} is not COLUMN=VALUE\n{USAGE}")),
                })
                .collect::<Result<_, _>>()?,
        },
        ["passwd", login] => Cmd::Passwd(login.to_string()),
        ["lock", login] => Cmd::Lock(login.to_string(), true),
        ["unlock", login] => Cmd::Lock(login.to_string(), false),
        ["delete", login] => Cmd::Delete(login.to_string()),
        ["list"] => Cmd::List(None),
        ["list", search] => Cmd::List(Some(search.to_string())),
        ["show", login] => Cmd::Show(login.to_string()),
        ["import", file] => Cmd::Import(file.to_string()),
        _ => return Err(USAGE.to_string()),
    };
    if hash && !matches!(cmd, Cmd::Add { .. }) {
        return Err(format!("--hash goes with add only\n{USAGE}"));
    }
    Ok(cmd)
}

/// Runs a `users` subcommand; the exit code (1 on failure, the reason on stderr).
pub fn run(local: &LocalConf, cmd: &Cmd) -> i32 {
    let res = users_of(local).and_then(|users| match cmd {
        Cmd::Add { login, hash, attrs } => add(&users, login, *hash, attrs),
        Cmd::Passwd(login) => passwd(&users, login),
        Cmd::Lock(login, locked) => lock(&users, login, *locked),
        Cmd::Delete(login) => delete(&users, login),
        Cmd::List(search) => list(&users, search.as_deref()),
        Cmd::Show(login) => show(&users, login),
        Cmd::Import(file) => import::run(&users, file),
    });
    match res {
        Ok(()) => 0,
        Err(e) => {
            out::err(&format!("limette users: {e}"));
            1
        }
    }
}

/// The user table of the latest configuration (the INI's `[portal]` overrides applied).
pub fn users_of(local: &LocalConf) -> Result<Users, String> {
    use crate::config::AreaSettings;
    let raw = latest_raw(local)?;
    let settings = crate::directory::dbi::Settings::from_conf(&raw)?;
    Users::open_store(settings.store.as_ref(), false).map_err(|e| e.to_string())
}

/// The latest configuration, merged with the defaults and the INI's overrides.
pub fn latest_raw(local: &LocalConf) -> Result<Map<String, Value>, String> {
    let store = crate::storage::open::open_conf(local).map_err(|e| e.to_string())?;
    let stored = match store.latest().map_err(|e| e.to_string())? {
        Some(n) => store.load(n).map_err(|e| e.to_string())?,
        None => Map::new(),
    };
    let mut raw = crate::config::defaults::merged(&stored);
    raw.extend(local.overrides.clone());
    Ok(raw)
}

/// The first line of standard input (a password or a hash), without its line end.
fn stdin_line(what: &str) -> Result<String, String> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the {what} on standard input: {e}"))?;
    let line = line.trim_end_matches(['\n', '\r']).to_string();
    if line.is_empty() {
        return Err(format!("no {what} on standard input"));
    }
    if line.len() > crate::login::identify::MAX_PASSWORD {
        return Err(format!("the {what} is too long"));
    }
    Ok(line)
}

fn audit(event: &str, login: &str) {
    crate::log::audit(event, &[("user", login), ("by", "command line")]);
}

fn add(users: &Users, login: &str, hash: bool, attrs: &[(String, String)]) -> Result<(), String> {
    check_login(login)?;
    let secret = if hash {
        Secret::Hash(stdin_line("hash")?)
    } else {
        Secret::Clear(stdin_line("password")?)
    };
    let attrs: Map<String, Value> = attrs.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    users
        .add(login, secret, &attrs)
        .map_err(|e| e.to_string())?;
    audit("user_added", login);
    out::line(&format!("user {login} added"));
    Ok(())
}

/// A login fit for the table and for a login form.
pub fn check_login(login: &str) -> Result<(), String> {
    if login.is_empty()
        || login.len() > crate::login::identify::MAX_USER
        || login.trim() != login
        || login.chars().any(char::is_control)
    {
        return Err(format!("{login:?} is not a login (no spaces around it, no control characters, at most 255 bytes)"));
    }
    Ok(())
}

fn passwd(users: &Users, login: &str) -> Result<(), String> {
    let password = stdin_line("password")?;
    if !users
        .set_password(login, &password)
        .map_err(|e| e.to_string())?
    {
        return Err(format!("no user {login}"));
    }
    audit("user_password_set", login);
    out::line(&format!("password of {login} changed"));
    Ok(())
}

fn lock(users: &Users, login: &str, locked: bool) -> Result<(), String> {
    if !users.lock(login, locked).map_err(|e| e.to_string())? {
        return Err(format!("no user {login}"));
    }
    audit(
        if locked {
            "user_locked"
        } else {
            "user_unlocked"
        },
        login,
    );
    out::line(&format!(
        "user {login} {}",
        if locked { "locked" } else { "unlocked" }
    ));
    Ok(())
}

fn delete(users: &Users, login: &str) -> Result<(), String> {
    if !users.delete(login).map_err(|e| e.to_string())? {
        return Err(format!("no user {login}"));
    }
    audit("user_deleted", login);
    out::line(&format!("user {login} deleted"));
    Ok(())
}

fn list(users: &Users, search: Option<&str>) -> Result<(), String> {
    let mut offset = 0;
    loop {
        let page = users
            .list(search, offset, crate::directory::dbi::MAX_LIST)
            .map_err(|e| e.to_string())?;
        for u in &page {
            let state = if u.locked { "locked" } else { "active" };
            if !out::line(&format!("{}\t{state}\t{}", u.login, u.scheme)) {
                return Ok(());
            }
        }
        if page.len() < crate::directory::dbi::MAX_LIST {
            return Ok(());
        }
        offset += page.len();
    }
}

fn show(users: &Users, login: &str) -> Result<(), String> {
    let Some(u) = users.show(login).map_err(|e| e.to_string())? else {
        return Err(format!("no user {login}"));
    };
    out::line(&shown(&u));
    Ok(())
}

/// A user as `show` prints it: pretty JSON, the scheme and never the value.
fn shown(u: &UserRow) -> String {
    let v = json!({
        "login": u.login,
        "locked": u.locked,
        "scheme": u.scheme,
        "attributes": u.attrs,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}
