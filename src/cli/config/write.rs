//! The verbs of `limette config` that save: `set` (with `lemonldap-ng-cli`'s confirmation
//! prompt unless `-yes 1`), `addKey`, `delKey`, `restore` and Limette's `import`. Each builds
//! the whole new document, checks it, and saves it through `storage::save::save_new` as a new
//! number (the `-log` text as `cfgLog`). Like `lemonldap-ng-cli`, the saving verbs report
//! `Saved under number N` on stderr; `import` keeps printing it on stdout.
use super::args::Flags;
use super::{edit, hash, latest, show, Output};
use crate::config::{defaults, redact, value_string};
use crate::config_proxy::keys;
use crate::error::{Error, Result};
use crate::storage::save::{self, Author};
use crate::storage::ConfStore;
use serde_json::{Map, Value};
use std::io::{BufRead, Read, Write};

/// `set KEY VALUE...`: every pair checked, the change shown and confirmed (unless `-yes 1`),
/// then saved.
pub fn set(store: &dyn ConfStore, pairs: &[(String, String)], flags: &Flags) -> Result<Output> {
    let stored = editable(store, flags)?;
    let conf = edit::apply(&stored, pairs, &flags.sep)?;
    // Checked before the question: nobody is asked to confirm a change that cannot be saved.
    save::check(&conf, crate::router::area_settings)?;
    if !flags.yes {
        let merged = defaults::merged(&stored);
        // Secrets are not shown, not even the one being typed (terminal scrollback, logs).
        let rows: Vec<(String, String, String)> = pairs
            .iter()
            .map(|(k, v)| match redact::path_is_secret(k, &flags.sep) {
                true => (k.clone(), redact::HIDDEN.into(), redact::HIDDEN.into()),
                false => (k.clone(), old_value(&merged, k, &flags.sep), v.clone()),
            })
            .collect();
        confirm(&show::proposed_changes(&rows))?;
    }
    let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    saved(store, &conf, flags, format!("Set {}", keys.join(", ")))
}

/// `addKey KEY SUBKEY VALUE...`
pub fn add_key(
    store: &dyn ConfStore,
    triplets: &[(String, String, String)],
    flags: &Flags,
) -> Result<Output> {
    let conf = hash::add(&editable(store, flags)?, triplets, &flags.sep)?;
    let what: Vec<String> = triplets
        .iter()
        .map(|(k, s, _)| format!("{k}{}{s}", flags.sep))
        .collect();
    saved(store, &conf, flags, format!("Added {}", what.join(", ")))
}

/// `delKey KEY SUBKEY...`
pub fn del_key(store: &dyn ConfStore, pairs: &[(String, String)], flags: &Flags) -> Result<Output> {
    let conf = hash::delete(&editable(store, flags)?, pairs, &flags.sep)?;
    let what: Vec<String> = pairs
        .iter()
        .map(|(k, s)| format!("{k}{}{s}", flags.sep))
        .collect();
    saved(store, &conf, flags, format!("Deleted {}", what.join(", ")))
}

/// `restore FILE|-`: the document saved as a new number; the number on stderr.
pub fn restore(store: &dyn ConfStore, file: &str, flags: &Flags) -> Result<Output> {
    let conf = read_document(file)?;
    saved(store, &conf, flags, format!("Restored from {file}"))
}

/// `import FILE|-`: as `restore`, with the number on stdout.
pub fn import(store: &dyn ConfStore, file: &str, flags: &Flags) -> Result<Output> {
    let conf = read_document(file)?;
    let out = saved(store, &conf, flags, format!("Imported from {file}"))?;
    let mut stdout = out.notes.join("\n");
    stdout.push('\n');
    Ok(Output::text(stdout))
}

/// `rotate-keys`: new signing keys in the latest configuration, saved as a new number; the
/// previous public keys stay published until the tokens they signed have expired.
pub fn rotate_keys(store: &dyn ConfStore, flags: &Flags) -> Result<Output> {
    let mut conf = editable(store, flags)?;
    let log = crate::oidc::keygen::rotate(&mut conf, crate::util::now()).map_err(Error::bad)?;
    saved(store, &conf, flags, log)
}

/// The latest stored document, when `-cfgNum` (if given) names it: Limette edits only the
/// latest and never overwrites a number.
fn editable(store: &dyn ConfStore, flags: &Flags) -> Result<Map<String, Value>> {
    let (num, stored) = latest(store)?;
    match flags.cfg_num {
        Some(n) if n != num => Err(Error::bad(format!(
            "-cfgNum {n} is not the latest configuration ({num}): Limette edits the latest and saves a new number"
        ))),
        _ => Ok(stored),
    }
}

fn saved(
    store: &dyn ConfStore,
    conf: &Map<String, Value>,
    flags: &Flags,
    summary: String,
) -> Result<Output> {
    let log = flags.log.clone().unwrap_or(summary);
    save::check(conf, crate::router::area_settings)?;
    let num = save::save_new(store, conf, &author(log))?;
    Ok(Output {
        notes: vec![format!("Saved under number {num}")],
        ..Output::default()
    })
}

/// The value a `set` replaces, as the table shows it.
fn old_value(merged: &Map<String, Value>, key: &str, sep: &str) -> String {
    let path: Vec<String> = key.split(sep).map(str::to_string).collect();
    keys::lookup(merged, &path)
        .map(|v| value_string(&redact::redacted(v)))
        .unwrap_or_default()
}

/// Shows `question` on stdout and reads one line of stdin: `y` or `yes` goes on, anything else
/// (end of input included) aborts.
fn confirm(question: &str) -> Result<()> {
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(question.as_bytes());
    let _ = stdout.flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    let answer = line.strip_suffix('\n').unwrap_or(&line);
    if answer == "y" || answer == "yes" {
        Ok(())
    } else {
        // After the unanswered question, the message starts on its own line.
        if !line.ends_with('\n') {
            crate::cli::out::line("");
        }
        Err(Error::Conflict("Aborting: nothing saved".into()))
    }
}

fn read_document(file: &str) -> Result<Map<String, Value>> {
    let mut text = String::new();
    let read = if file == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(file).map(|t| text = t)
    };
    read.map_err(|e| Error::bad(format!("{file}: {e}")))?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Error::bad(format!("{file}: not a JSON object"))),
        Err(e) => Err(Error::bad(format!("{file}: invalid JSON: {e}"))),
    }
}

/// The author of a save from the command line: the login name, on this host.
fn author(log: String) -> Author {
    let name = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "limette-cli".into());
    Author {
        name,
        ip: "127.0.0.1".into(),
        log,
    }
}
