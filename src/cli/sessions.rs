//! `limette sessions list|get ID|delete ID|purge`: administration of the configured SSO
//! session store (the one named by `[portal] globalStorage`). Output is one line per session
//! for `list` (id, user, start time), the session as pretty JSON for `get`.
//! `limette sessions offline [USER]` lists the OpenID Connect offline grants (LemonLDAP::NG's
//! `offline` sessions: id, user, client, expiry), `offline-revoke ID` revokes one with every
//! token it gave.
use crate::app::App;
use crate::config::value_string;
use crate::storage::Kind;

/// Runs a `sessions` subcommand; returns the exit code.
pub fn run(app: &App, args: &[String]) -> i32 {
    let sub = args.first().map(String::as_str).unwrap_or("");
    let arg = args.get(1).map(String::as_str);
    let res = match (sub, arg) {
        ("list", None) => list(app),
        ("get", Some(id)) => get(app, id),
        ("delete", Some(id)) => delete(app, id),
        ("purge", None) => crate::sessions::purge::purge(app)
            .map(|n| println!("{n} expired sessions removed"))
            .map_err(|e| e.to_string()),
        ("offline", user) => offline(app, user),
        ("offline-revoke", Some(id)) => offline_revoke(app, id),
        _ => Err(USAGE.to_string()),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("limette sessions: {e}");
            if e.starts_with("usage") {
                2
            } else {
                1
            }
        }
    }
}

const USAGE: &str =
    "usage: limette sessions list|get ID|delete ID|purge|offline [USER]|offline-revoke ID";

fn offline(app: &App, user: Option<&str>) -> Result<(), String> {
    let store = crate::grants::of(app);
    let grants = crate::grants::offline::list(store, user).map_err(|e| e.to_string())?;
    for g in grants {
        println!("{}\t{}\t{}\t{}", g.id, g.user, g.client_id, g.expires);
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
            println!("offline grant {id} revoked");
            Ok(())
        }
        Ok(false) => Err(format!("no offline grant {id}")),
        Err(e) => Err(e.to_string()),
    }
}

fn list(app: &App) -> Result<(), String> {
    let store = app.sessions(Kind::Global);
    let mut ids = store.ids(Kind::Global).map_err(|e| e.to_string())?;
    ids.sort();
    for id in ids {
        if let Some(s) = store.get(Kind::Global, &id).map_err(|e| e.to_string())? {
            let field = |k: &str| s.get(k).map(value_string).unwrap_or_default();
            println!("{id}\t{}\t{}", field("_whatToTrace"), field("_startTime"));
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
            println!("{text}");
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
            println!("session {id} deleted");
            Ok(())
        }
        Ok(false) => Err(format!("no session {id}")),
        Err(e) => Err(e.to_string()),
    }
}
