//! `limette config ...`: `lemonldap-ng-cli`'s configuration verbs (`info`, `get`, `set`,
//! `addKey`, `delKey`, `save`, `restore`, with its options and output formats) and Limette's
//! own (`list`, `export`, `import`), on Limette's stores. It opens only the configuration store
//! named by the `-c` file (so it works on an empty or a broken store) and saves through
//! `storage::save`, like every writer. Bad arguments, keys or values: one clear line on stderr,
//! exit code 2, nothing saved; an unknown key for `get`, an aborted confirmation or a store
//! failure: exit 1. `args` reads the command line, `show` holds the output formats, `write`
//! the verbs that save, `edit` and `hash` the changes they make.
pub mod args;
pub mod check;
pub mod doc;
pub mod edit;
pub mod hash;
pub mod show;
pub mod write;

use crate::cli::{out, Options};
use crate::config::local::LocalConf;
use crate::config::{as_i64, defaults, value_string};
use crate::config_proxy::keys;
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use args::{Command, Flags};
use serde_json::{Map, Value};

/// What a command gives: text for stdout, lines for stderr, the exit code.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// Printed on stdout as it is.
    pub stdout: String,
    /// Printed on stderr, one line each.
    pub notes: Vec<String>,
    /// The exit code when nothing failed (1 when `get` met an unknown key).
    pub code: i32,
}

impl Output {
    fn text(stdout: String) -> Output {
        Output {
            stdout,
            ..Output::default()
        }
    }
}

/// Runs a `config` subcommand; returns the process exit code.
pub fn run(local: &LocalConf, args: &[String], opts: &Options) -> i32 {
    let (mut flags, cmd) = match args::parse(args) {
        Ok(p) => p,
        Err(e) => {
            out::err(&format!("limette config: {e}"));
            return 2;
        }
    };
    if let Command::Help(verb) = cmd {
        out::text(&args::help(verb));
        return 0;
    }
    if flags.log.is_none() {
        flags.log = opts.log.clone();
    }
    let local = match local_for(&flags, local, opts) {
        Ok(l) => l,
        Err(e) => {
            out::err(&format!("limette config: {e}"));
            return 2;
        }
    };
    if let Command::Check(json) = cmd {
        let args: &[String] = if json { &[String::from("--json")] } else { &[] };
        return check::run(&local, args);
    }
    let res = crate::storage::open::open_conf(&local).and_then(|store| {
        if local.source == "embedded default" {
            crate::storage::save::seed_if_empty(store.as_ref())?;
        }
        execute(store.as_ref(), &cmd, &flags)
    });
    report(res)
}

/// The local settings: those of `-c`, or of `-iniFile FILE` when given.
fn local_for(flags: &Flags, local: &LocalConf, opts: &Options) -> Result<LocalConf, String> {
    match &flags.ini_file {
        Some(ini) => crate::cli::load_local(&Options {
            config: Some(ini.clone()),
            data: opts.data.clone(),
            ..Options::default()
        }),
        None => Ok(local.clone()),
    }
}

/// Prints an outcome; returns the exit code.
fn report(res: Result<Output>) -> i32 {
    match res {
        Ok(done) => {
            out::text(&done.stdout);
            for note in &done.notes {
                out::err(note);
            }
            done.code
        }
        Err(e) => {
            out::err(&format!("limette config: {}", message(&e)));
            match e {
                Error::BadRequest(_) | Error::NotFound(_) => 2,
                _ => 1,
            }
        }
    }
}

/// Runs a command against a store. One arm per verb.
fn execute(store: &dyn ConfStore, cmd: &Command, flags: &Flags) -> Result<Output> {
    match cmd {
        Command::Info => {
            let (num, conf) = chosen(store, flags.cfg_num)?;
            Ok(Output::text(show::info(num, &conf)))
        }
        Command::List => {
            no_cfg_num(flags, "list")?;
            list(store).map(Output::text)
        }
        Command::Get(keys) => get(store, keys, flags),
        Command::Set(pairs) => write::set(store, pairs, flags),
        Command::AddKey(triplets) => write::add_key(store, triplets, flags),
        Command::DelKey(pairs) => write::del_key(store, pairs, flags),
        Command::Save => {
            let (_, conf) = chosen(store, flags.cfg_num)?;
            String::from_utf8(show::save_json(&conf))
                .map(Output::text)
                .map_err(Error::internal)
        }
        Command::Restore(file) => {
            no_cfg_num(flags, "restore")?;
            write::restore(store, file, flags)
        }
        Command::Export(num) => {
            let (_, conf) = chosen(store, num.or(flags.cfg_num))?;
            let mut text = serde_json::to_string_pretty(&conf).map_err(Error::internal)?;
            text.push('\n');
            Ok(Output::text(text))
        }
        Command::Import(file) => {
            no_cfg_num(flags, "import")?;
            write::import(store, file, flags)
        }
        Command::RotateKeys => write::rotate_keys(store, flags),
        Command::Help(verb) => Ok(Output::text(args::help(*verb))),
        // Answered by `check` before a store is opened here.
        Command::Check(_) => Err(Error::internal("config check runs on its own")),
    }
}

/// The latest configuration, with its number.
pub fn latest(store: &dyn ConfStore) -> Result<(u64, Map<String, Value>)> {
    let num = store
        .latest()?
        .ok_or_else(|| Error::not_found(format!("no configuration in {}", store.describe())))?;
    Ok((num, store.load(num)?))
}

/// Configuration `num` (`-cfgNum`), or the latest.
fn chosen(store: &dyn ConfStore, num: Option<u64>) -> Result<(u64, Map<String, Value>)> {
    match num {
        Some(n) => Ok((n, store.load(n)?)),
        None => latest(store),
    }
}

fn no_cfg_num(flags: &Flags, verb: &str) -> Result<()> {
    match flags.cfg_num {
        Some(_) => Err(Error::bad(format!(
            "-cfgNum does not apply to {verb} (it always saves or lists every number)"
        ))),
        None => Ok(()),
    }
}

fn list(store: &dyn ConfStore) -> Result<String> {
    let mut out = String::new();
    for num in store.numbers()? {
        let c = store.load(num)?;
        let s = |k: &str| c.get(k).map(value_string).unwrap_or_default();
        out.push_str(&format!(
            "{num}\t{}\t{}\t{}\n",
            date(&c),
            s("cfgAuthor"),
            s("cfgLog")
        ));
    }
    Ok(out)
}

/// `get`: every known key printed, every unknown one named on stderr, exit 1 if any.
fn get(store: &dyn ConfStore, wanted: &[String], flags: &Flags) -> Result<Output> {
    let conf = defaults::merged(&chosen(store, flags.cfg_num)?.1);
    let mut out = Output::default();
    for key in wanted {
        match lookup(&conf, key, &flags.sep) {
            Some(value) => out.stdout.push_str(&show::get_value(key, &value)),
            None => {
                out.notes.push(format!("limette config: Unknown key {key}"));
                out.code = 1;
            }
        }
    }
    Ok(out)
}

/// A key path in a configuration with defaults merged: a plain path first, then the manager's
/// nodes (`virtualHosts/<host>/<key>`, `oidcRPMetaDataNodes/<rp>/<key>`) as the proxy reads
/// them.
fn lookup(conf: &Map<String, Value>, key: &str, sep: &str) -> Option<Value> {
    let path: Vec<String> = key.split(sep).map(str::to_string).collect();
    if path.iter().any(String::is_empty) {
        return None;
    }
    match keys::lookup(conf, &path) {
        Ok(v) => Some(v.clone()),
        Err(_) => match keys::answer(conf, &path) {
            Ok(Value::Object(mut a)) => Some(a.remove("value").unwrap_or(Value::Object(a))),
            Ok(list) => Some(list),
            // A key Limette honours that nothing sets: what it means unset, as `set` reads it.
            Err(_) if path.len() == 1 => crate::config::support::unset_value(&path[0]),
            Err(_) => None,
        },
    }
}

/// `cfgDate` as `YYYY-MM-DD HH:MM:SS UTC`.
fn date(c: &Map<String, Value>) -> String {
    match c.get("cfgDate").and_then(as_i64) {
        Some(t) => {
            let s = crate::util::timestamp14(t);
            let part = |r: std::ops::Range<usize>| s.get(r).unwrap_or("?").to_string();
            format!(
                "{}-{}-{} {}:{}:{} UTC",
                part(0..4),
                part(4..6),
                part(6..8),
                part(8..10),
                part(10..12),
                part(12..14)
            )
        }
        None => "-".into(),
    }
}

/// The text of an error without its category prefix.
fn message(e: &Error) -> String {
    match e {
        Error::BadRequest(m) | Error::NotFound(m) | Error::Forbidden(m) | Error::Conflict(m) => {
            m.clone()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_are_readable() {
        let c: Map<String, Value> = [("cfgDate".to_string(), Value::from(0))]
            .into_iter()
            .collect();
        assert_eq!(date(&c), "1970-01-01 00:00:00 UTC");
    }

    #[test]
    fn lookup_follows_the_separator_and_the_nodes() {
        let c = match json!({"macros": {"UA": "x"}, "oidcRPMetaDataOptions": {"rp": {"oidcRPMetaDataOptionsClientID": "id"}}})
        {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        assert_eq!(lookup(&c, "macros,UA", ","), Some(json!("x")));
        assert_eq!(lookup(&c, "macros/UA", ","), None);
        assert_eq!(
            lookup(
                &c,
                "oidcRPMetaDataNodes/rp/oidcRPMetaDataOptionsClientID",
                "/"
            ),
            Some(json!("id"))
        );
        assert_eq!(lookup(&c, "macros/nope", "/"), None);
        assert_eq!(lookup(&c, "macros//UA", "/"), None);
    }
}
