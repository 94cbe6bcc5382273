//! `limette users 2f list USER` and `limette users 2f remove USER TYPE EPOCH`: a user's
//! second-factor devices in the persistent session store (`_2fDevices`, as LemonLDAP::NG
//! writes it), listed one a line (type, name, epoch, registration date UTC; never a secret),
//! or one removed by its type and epoch, audited.
use crate::app::App;
use crate::cli::out;
use crate::second_factor::devices;

/// A `users 2f` subcommand, read before anything is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    /// `list USER`
    List(String),
    /// `remove USER TYPE EPOCH`
    Remove(String, String, String),
}

const USAGE: &str = "usage: limette users 2f list USER|remove USER TYPE EPOCH";

/// Reads the arguments after `users`; the usage line when they make no command.
pub fn parse(args: &[String]) -> Result<Cmd, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    Ok(match words.as_slice() {
        ["2f", "list", user] => Cmd::List(user.to_string()),
        ["2f", "remove", user, kind, epoch] => {
            Cmd::Remove(user.to_string(), kind.to_string(), epoch.to_string())
        }
        _ => return Err(USAGE.to_string()),
    })
}

/// Runs a `users 2f` subcommand; returns the exit code.
pub fn run(app: &App, cmd: &Cmd) -> i32 {
    let res = match cmd {
        Cmd::List(user) => list(app, user),
        Cmd::Remove(user, kind, epoch) => remove(app, user, kind, epoch),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            out::err(&format!("limette users 2f: {e}"));
            1
        }
    }
}

fn list(app: &App, user: &str) -> Result<(), String> {
    let list = devices::load(app, user).map_err(|e| e.to_string())?;
    for d in list {
        let date = crate::util::timestamp14(d.epoch());
        let line = format!(
            "{}\t{}\t{}\t{}",
            d.kind(),
            printable(&d.name()),
            d.epoch(),
            date
        );
        if !out::line(&line) {
            break;
        }
    }
    Ok(())
}

fn remove(app: &App, user: &str, kind: &str, epoch: &str) -> Result<(), String> {
    match devices::remove(app, user, kind, epoch).map_err(|e| e.to_string())? {
        Some(d) => {
            crate::second_factor::audit_removal(user, &d, "cli");
            out::line(&format!("removed {} {}", d.kind(), printable(&d.name())));
            Ok(())
        }
        None => Err(format!("{user} has no {kind} device of epoch {epoch}")),
    }
}

/// A name without control characters, for a terminal.
fn printable(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).collect()
}
