//! `limette notifications add FILE|-`, `list [UID]`, `delete UID REF`,
//! `purge-done --before DATE`: administration of the notification store in force. `add` takes
//! JSON (one object or an array) or an old-format XML document, told apart by the first
//! character, and inserts all or nothing, as the server does.
use crate::app::App;
use crate::cli::Options;
use crate::error::{Error, Result};
use crate::notifications::model::{parse_date, parse_json, parse_xml, Format};
use crate::notifications::server::insert_all;
use crate::notifications::store::{NotificationStore, Record};
use std::io::Read;

/// Runs a `notifications` subcommand; returns the exit code.
pub fn run(app: &App, args: &[String], opts: &Options) -> i32 {
    let store = app.notifications.as_ref();
    let wildcard = app
        .conf()
        .area::<crate::notifications::Settings>()
        .wildcard
        .clone();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let res = match words.as_slice() {
        ["add", file] => add(store, file).map(|n| println!("{n} notification(s) inserted")),
        ["list"] => list(store, None, &wildcard),
        ["list", uid] => list(store, Some(uid), &wildcard),
        ["delete", uid, reference] => match store.delete(uid, reference) {
            Ok(0) => Err(Error::not_found(format!(
                "no notification {reference} for {uid}"
            ))),
            Ok(n) => {
                println!("{n} notification(s) deleted");
                Ok(())
            }
            Err(e) => Err(e),
        },
        ["purge-done"] => purge(store, opts.before.as_deref()),
        _ => {
            eprintln!("usage: limette notifications add FILE|-|list [UID]|delete UID REF|purge-done --before DATE");
            return 2;
        }
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("limette notifications: {}", message(&e));
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
        println!("{}", line(r));
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

/// Removes notifications accepted before the start of `before` (UTC).
fn purge(store: &dyn NotificationStore, before: Option<&str>) -> Result<()> {
    let day = before
        .and_then(parse_date)
        .ok_or_else(|| Error::bad("purge-done needs --before YYYY-MM-DD"))?;
    let epoch = epoch_of(&day).ok_or_else(|| Error::bad("bad date"))?;
    let n = store.purge_done(epoch)?;
    println!("{n} accepted notification(s) purged");
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
