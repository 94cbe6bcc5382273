//! `limette config ...`, LemonLDAP::NG's configuration CLI for Limette's stores:
//! `info`, `list`, `get KEY...`, `set KEY VALUE... [--log TEXT]`, `export [N]`, `import FILE`.
//! It opens only the configuration store named by the `-c` file (so it works on an empty or a
//! broken store) and saves through `config::save`, like every writer. Bad arguments, keys or
//! values: one clear line on stderr, exit code 2, nothing saved; a store failure: exit 1.
pub mod edit;

use super::local::LocalConf;
use super::proxy::keys;
use super::save::{self, Author};
use crate::cli::Options;
use crate::config::{as_i64, value_string};
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use serde_json::{Map, Value};
use std::io::Read;

/// One parsed subcommand.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Info,
    List,
    Get(Vec<String>),
    Set(Vec<(String, String)>),
    Export(Option<u64>),
    Import(String),
}

/// Runs a `config` subcommand; returns the process exit code.
pub fn run(local: &LocalConf, args: &[String], opts: &Options) -> i32 {
    let cmd = match parse(args) {
        Ok(c) => c,
        Err(usage) => {
            eprintln!("limette config: {usage}");
            return 2;
        }
    };
    let res = super::open_store(local).and_then(|store| {
        if local.source == "embedded default" {
            super::seed_if_empty(store.as_ref())?;
        }
        execute(store.as_ref(), &cmd, opts.log.as_deref())
    });
    match res {
        Ok(out) => {
            print!("{out}");
            0
        }
        Err(e) => {
            eprintln!("limette config: {}", message(&e));
            match e {
                Error::BadRequest(_) | Error::NotFound(_) => 2,
                _ => 1,
            }
        }
    }
}

const USAGE: &str =
    "expected info | list | get KEY... | set KEY VALUE... [--log TEXT] | export [N] | import FILE";

fn parse(args: &[String]) -> Result<Command, String> {
    let (sub, rest) = args.split_first().ok_or_else(|| USAGE.to_string())?;
    let cmd = match (sub.as_str(), rest.len()) {
        ("info", 0) => Command::Info,
        ("list", 0) => Command::List,
        ("get", n) if n > 0 => Command::Get(rest.to_vec()),
        // chunks(2) of an even count are pairs.
        ("set", n) if n > 0 && n % 2 == 0 => Command::Set(
            rest.chunks(2)
                .map(|p| (p[0].clone(), p[1].clone()))
                .collect(),
        ),
        ("set", _) => return Err("set expects KEY VALUE pairs".into()),
        ("export", 0) => Command::Export(None),
        ("export", 1) => Command::Export(Some(
            rest[0]
                .parse()
                .map_err(|_| format!("not a configuration number: {}", rest[0]))?,
        )),
        ("import", 1) => Command::Import(rest[0].clone()),
        _ => return Err(USAGE.into()),
    };
    Ok(cmd)
}

/// Runs a command against a store; returns what to print.
fn execute(store: &dyn ConfStore, cmd: &Command, log: Option<&str>) -> Result<String> {
    match cmd {
        Command::Info => info(store),
        Command::List => list(store),
        Command::Get(keys) => get(store, keys),
        Command::Set(pairs) => {
            let (_, stored) = latest(store)?;
            let conf = edit::apply(&stored, pairs)?;
            let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
            let text = log
                .map(str::to_string)
                .unwrap_or_else(|| format!("Set {}", keys.join(", ")));
            let num = save::save_new(store, &conf, &author(text))?;
            Ok(format!("Saved under number {num}\n"))
        }
        Command::Export(num) => {
            let conf = match num {
                Some(n) => store.load(*n)?,
                None => latest(store)?.1,
            };
            let mut text = serde_json::to_string_pretty(&conf).map_err(Error::internal)?;
            text.push('\n');
            Ok(text)
        }
        Command::Import(file) => {
            let conf = read_document(file)?;
            let text = log
                .map(str::to_string)
                .unwrap_or_else(|| format!("Imported from {file}"));
            let num = save::save_new(store, &conf, &author(text))?;
            Ok(format!("Saved under number {num}\n"))
        }
    }
}

fn latest(store: &dyn ConfStore) -> Result<(u64, Map<String, Value>)> {
    let num = store
        .latest()?
        .ok_or_else(|| Error::not_found(format!("no configuration in {}", store.describe())))?;
    Ok((num, store.load(num)?))
}

fn info(store: &dyn ConfStore) -> Result<String> {
    let (num, c) = latest(store)?;
    let s = |k: &str| c.get(k).map(value_string).unwrap_or_default();
    Ok(format!(
        "Num      : {num}\nAuthor   : {}\nAuthor IP: {}\nDate     : {}\nVersion  : {}\nLog      : {}\nStore    : {}\n",
        s("cfgAuthor"),
        s("cfgAuthorIP"),
        date(&c),
        s("cfgVersion"),
        s("cfgLog"),
        store.describe()
    ))
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

fn get(store: &dyn ConfStore, wanted: &[String]) -> Result<String> {
    let conf = super::defaults::merged(&latest(store)?.1);
    let mut out = String::new();
    for key in wanted {
        let path: Vec<String> = key.split('/').map(str::to_string).collect();
        // A plain key path first; the manager's nodes (`virtualHosts/<host>/<key>`) as the
        // proxy reads them.
        let value = match keys::lookup(&conf, &path) {
            Ok(v) => v.clone(),
            Err(e) => match keys::answer(&conf, &path) {
                Ok(Value::Object(mut a)) => a.remove("value").unwrap_or(Value::Object(a)),
                Ok(list) => list,
                Err(_) => return Err(e),
            },
        };
        let text = match value {
            Value::String(s) => s,
            other => other.to_string(),
        };
        out.push_str(&format!("{key} = {text}\n"));
    }
    Ok(out)
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

/// The text of an error without its category prefix.
fn message(e: &Error) -> String {
    match e {
        Error::BadRequest(m) | Error::NotFound(m) | Error::Forbidden(m) => m.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn parses_subcommands() {
        assert_eq!(parse(&args("info")).unwrap(), Command::Info);
        assert_eq!(parse(&args("get a b")).unwrap(), Command::Get(args("a b")));
        assert_eq!(
            parse(&args("set a 1 b 2")).unwrap(),
            Command::Set(vec![("a".into(), "1".into()), ("b".into(), "2".into())])
        );
        assert_eq!(parse(&args("export 3")).unwrap(), Command::Export(Some(3)));
        assert!(parse(&args("set a")).is_err());
        assert!(parse(&args("export x")).is_err());
        assert!(parse(&args("get")).is_err());
        assert!(parse(&args("frobnicate")).is_err());
        assert!(parse(&[]).is_err());
    }

    #[test]
    fn dates_are_readable() {
        let c: Map<String, Value> = [("cfgDate".to_string(), Value::from(0))]
            .into_iter()
            .collect();
        assert_eq!(date(&c), "1970-01-01 00:00:00 UTC");
    }
}
