//! `limette notifications add FILE|-`, `list [UID]`, `delete UID REF`,
//! `purge-done --before DATE`: administration of the notification store in force. `add` takes
//! JSON (one object or an array) or an old-format XML document, told apart by the first
//! character, and inserts all or nothing, as the server does.
use crate::app::App;
use crate::cli::{out, Options};
use crate::error::{Error, Result};
use crate::notifications::model::{parse_date, parse_json, parse_xml, Format};
use crate::notifications::server::{audit_delete, audit_insert, insert_all};
use crate::notifications::store::{NotificationStore, Record};
use std::io::Read;

/// A `notifications` subcommand, read before anything is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    /// `add FILE|-`
    Add(String),
    /// `list [UID]`
    List(Option<String>),
    /// `delete UID REF`
    Delete(String, String),
    /// `purge-done --before DATE`: the notifications accepted before midnight UTC of DATE.
    PurgeDone(i64),
}

const USAGE: &str =
    "usage: limette notifications add FILE|-|list [UID]|delete UID REF|purge-done --before DATE";

/// Reads the arguments of `notifications` (and `--before`); the usage or the fault otherwise.
pub fn parse(args: &[String], opts: &Options) -> std::result::Result<Cmd, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    Ok(match words.as_slice() {
        ["add", file] => Cmd::Add(file.to_string()),
        ["list"] => Cmd::List(None),
        ["list", uid] => Cmd::List(Some(uid.to_string())),
        ["delete", uid, reference] => Cmd::Delete(uid.to_string(), reference.to_string()),
        ["purge-done"] => {
            let day = opts
                .before
                .as_deref()
                .and_then(parse_date)
                .ok_or("purge-done needs --before YYYY-MM-DD")?;
            Cmd::PurgeDone(epoch_of(&day).ok_or("bad date")?)
        }
        _ => return Err(USAGE.to_string()),
    })
}

/// Runs a `notifications` subcommand; returns the exit code.
pub fn run(app: &App, cmd: &Cmd) -> i32 {
    let store = app.notifications.as_ref();
    let res = match cmd {
        Cmd::Add(file) => add(store, file).map(|n| {
            audit_insert(&n.to_string(), "cli", "local");
            out::line(&format!("{n} notification(s) inserted"));
        }),
        Cmd::List(uid) => {
            let conf = app.conf();
            let wildcard = &conf.area::<crate::notifications::Settings>().wildcard;
            list(store, uid.as_deref(), wildcard)
        }
        Cmd::Delete(uid, reference) => match store.delete(uid, reference) {
            Ok(0) => Err(Error::not_found(format!(
                "no notification {reference} for {uid}"
            ))),
            Ok(n) => {
                audit_delete(uid, reference, &n.to_string(), "cli", "local");
                out::line(&format!("{n} notification(s) deleted"));
                Ok(())
            }
            Err(e) => Err(e),
        },
        Cmd::PurgeDone(epoch) => purge(store, *epoch),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            out::err(&format!("limette notifications: {}", message(&e)));
            1
        }
    }
}

fn message(e: &Error) -> String {
    match e {
        Error::BadRequest(m) | Error::Conflict(m) | Error::NotFound(m) => m.clone(),
        other => other.to_string(),
    }
}

/// Reads `file` (`-` for standard input) and inserts its notifications.
fn add(store: &dyn NotificationStore, file: &str) -> Result<usize> {
    let mut text = String::new();
    if file == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(file).map_err(|e| Error::bad(format!("{file}: {e}")))?;
    }
    let list = match Format::of(&text) {
        Format::Xml => parse_xml(&text)?,
        Format::Json => parse_json(text.as_bytes(), "")?,
    };
    insert_all(store, &list)
}

/// Prints one line per notification: date, uid, reference, state.
fn list(store: &dyn NotificationStore, uid: Option<&str>, wildcard: &str) -> Result<()> {
    let records = match uid {
        Some(u) => store.pending_for(u, wildcard, None)?,
        None => store.all()?,
    };
    for r in &records {
        if !out::line(&line(r)) {
            break;
        }
    }
    Ok(())
}

fn line(r: &Record) -> String {
    let state = match r.done {
        Some(t) => format!("done {}", crate::util::date10(t)),
        None => "pending".into(),
    };
    format!("{}\t{}\t{}\t{state}", r.date, r.uid, r.reference)
}

/// Removes notifications accepted before `epoch` (midnight UTC of `--before`).
fn purge(store: &dyn NotificationStore, epoch: i64) -> Result<()> {
    let n = store.purge_done(epoch)?;
    out::line(&format!("{n} accepted notification(s) purged"));
    Ok(())
}

/// Midnight UTC of a `YYYY-MM-DD` date.
fn epoch_of(day: &str) -> Option<i64> {
    let y = day.get(0..4)?.parse().ok()?;
    let m = day.get(5..7)?.parse().ok()?;
    let d = day.get(8..10)?.parse().ok()?;
    Some(crate::util::days_from_civil(y, m, d) * 86_400)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_of_a_day() {
        assert_eq!(epoch_of("1970-01-02"), Some(86_400));
        assert_eq!(epoch_of("2024-01-01"), Some(1_704_067_200));
    }
}
