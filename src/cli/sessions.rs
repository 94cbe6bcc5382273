//! `limette sessions list|get ID|delete ID|purge`: administration of the configured SSO
//! session store (the one named by `[portal] globalStorage`). Output is one line per session
//! for `list` (id, user, start time), the session as pretty JSON for `get`.
//! `limette sessions offline [USER]` lists the OpenID Connect offline grants (LemonLDAP::NG's
//! `offline` sessions: id, user, client, expiry), `offline-revoke ID` revokes one with every
//! token it gave.
use crate::app::App;
use crate::cli::out;
use crate::config::value_string;
use crate::storage::Kind;

/// A `sessions` subcommand, read before anything is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    /// `list`
    List,
    /// `get ID`
    Get(String),
    /// `delete ID`
    Delete(String),
    /// `purge`
    Purge,
    /// `offline [USER]`
    Offline(Option<String>),
    /// `offline-revoke ID`
    OfflineRevoke(String),
}

/// Reads the arguments of `sessions`; the usage line when they make no command.
pub fn parse(args: &[String]) -> Result<Cmd, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    Ok(match words.as_slice() {
        ["list"] => Cmd::List,
        ["get", id] => Cmd::Get(id.to_string()),
        ["delete", id] => Cmd::Delete(id.to_string()),
        ["purge"] => Cmd::Purge,
        ["offline"] => Cmd::Offline(None),
        ["offline", user] => Cmd::Offline(Some(user.to_string())),
        ["offline-revoke", id] => Cmd::OfflineRevoke(id.to_string()),
        _ => return Err(USAGE.to_string()),
    })
}

/// Runs a `sessions` subcommand; returns the exit code.
pub fn run(app: &App, cmd: &Cmd) -> i32 {
    let res = match cmd {
        Cmd::List => list(app),
        Cmd::Get(id) => get(app, id),
        Cmd::Delete(id) => delete(app, id),
        Cmd::Purge => crate::sessions::purge::purge(app)
            .map(|n| {
                out::line(&format!("{n} expired sessions removed"));
            })
            .map_err(|e| e.to_string()),
        Cmd::Offline(user) => offline(app, user.as_deref()),
        Cmd::OfflineRevoke(id) => offline_revoke(app, id),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            out::err(&format!("limette sessions: {e}"));
            1
        }
    }
}

const USAGE: &str =
    "usage: limette sessions list|get ID|delete ID|purge|offline [USER]|offline-revoke ID";

fn offline(app: &App, user: Option<&str>) -> Result<(), String> {
    let store = crate::grants::of(app);
    let grants = crate::grants::offline::list(store, user).map_err(|e| e.to_string())?;
    for g in grants {
        if !out::line(&format!(
            "{}\t{}\t{}\t{}",
            g.id, g.user, g.client_id, g.expires
        )) {
            break;
        }
    }
    Ok(())
}

fn offline_revoke(app: &App, id: &str) -> Result<(), String> {
    let store = crate::grants::of(app);
    match crate::grants::offline::revoke(store, id) {
        Ok(true) => {
            let shown: String = id.chars().take(4).collect();
            let grant = format!("{shown}…");
            crate::log::audit("oidc_offline_revoked", &[("grant", &grant), ("via", "cli")]);
            out::line(&format!("offline grant {id} revoked"));
            Ok(())
        }
        Ok(false) => Err(format!("no offline grant {id}")),
        Err(e) => Err(e.to_string()),
    }
}

fn list(app: &App) -> Result<(), String> {
    let store = app.sessions(Kind::Global);
    let mut ids = store.ids(Kind::Global).map_err(|e| e.to_string())?;
    crate::util::sort::sort(&mut ids);
    for id in ids {
        if let Some(s) = store.get(Kind::Global, &id).map_err(|e| e.to_string())? {
            let field = |k: &str| s.get(k).map(value_string).unwrap_or_default();
            let shown = format!("{id}\t{}\t{}", field("_whatToTrace"), field("_startTime"));
            if !out::line(&shown) {
                break;
            }
        }
    }
    Ok(())
}

fn get(app: &App, id: &str) -> Result<(), String> {
    crate::storage::check_id(id).map_err(|_| format!("invalid session id {id}"))?;
    let store = app.sessions(Kind::Global);
    match store.get(Kind::Global, id).map_err(|e| e.to_string())? {
        Some(s) => {
            let text = serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?;
            out::line(&text);
            Ok(())
        }
        None => Err(format!("no session {id}")),
    }
}

fn delete(app: &App, id: &str) -> Result<(), String> {
    crate::storage::check_id(id).map_err(|_| format!("invalid session id {id}"))?;
    match crate::sso::end(app, id) {
        Ok(true) => {
            let shown: String = id.chars().take(4).collect();
            crate::log::audit(
                "session_delete",
                &[
                    ("kind", Kind::Global.as_str()),
                    ("session", &format!("{shown}…")),
                    ("via", "cli"),
                    ("address", "local"),
                ],
            );
            out::line(&format!("session {id} deleted"));
            Ok(())
        }
        Ok(false) => Err(format!("no session {id}")),
        Err(e) => Err(e.to_string()),
    }
}
