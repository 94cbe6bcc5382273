//! Helpers of the configuration tests: portals on a File or SQLite configuration store, and the
//! `limette config` command line run against a portal's own INI file.
use super::{default_conf, Portal, TempDir};
use serde_json::{Map, Value};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The configuration stores a portal can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    File,
    Sqlite,
}

/// What a `limette config ...` run gave.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// The command `limette -c <ini> --data <data> config <args>`.
pub fn cli_command(ini: &Path, data: &Path, args: &[&str]) -> Command {
    let mut cmd = super::command(ini, data, &["config"]);
    cmd.args(args).stdin(Stdio::null());
    cmd
}

/// Runs the configuration CLI on a portal's own INI file.
pub fn cli(p: &Portal, args: &[&str]) -> Run {
    cli_command(&p.data().join("limette.ini"), p.data(), args)
        .output()
        .unwrap()
        .into()
}

/// The default configuration with `patch` applied.
pub fn conf_with(patch: &[(&str, Value)]) -> Map<String, Value> {
    let mut c = default_conf();
    for (k, v) in patch {
        c.insert(k.to_string(), v.clone());
    }
    c
}

/// Starts a portal whose configuration store is `store`, holding `conf` as number 1. The
/// SQLite store is filled by `limette config import` before the server starts.
pub fn start_on(store: Store, conf: Map<String, Value>) -> Portal {
    match store {
        Store::File => {
            let mut b = Portal::builder();
            for (k, v) in conf {
                b = b.conf(&k, v);
            }
            b.start()
        }
        Store::Sqlite => {
            let dir = TempDir::new("sqlconf");
            let section = format!(
                "type = SQLite\ndbiChain = dbi:SQLite:dbname={}",
                dir.path().join("conf.db").display()
            );
            let ini = dir.path().join("seed.ini");
            std::fs::write(&ini, format!("[configuration]\n{section}\n")).unwrap();
            let doc = dir.path().join("seed.json");
            std::fs::write(&doc, serde_json::to_vec(&Value::Object(conf)).unwrap()).unwrap();
            let r: Run = cli_command(&ini, dir.path(), &["import", doc.to_str().unwrap()])
                .output()
                .unwrap()
                .into();
            assert_eq!(r.code, Some(0), "seeding SQLite: {r:?}");
            assert_eq!(r.stdout, "Saved under number 1\n");
            Portal::builder()
                .data(dir)
                .ini_configuration(&section)
                .start()
        }
    }
}

/// Calls `f` until it returns true or `limit` has passed; true when it did.
pub fn poll(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    f()
}

/// A scripted HTTP server standing in for a remote configuration proxy (LemonLDAP::NG's, or a
/// silent one): answers each request with `answer(path)` and records the request heads.
pub struct FakeRemote {
    pub port: u16,
    pub heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl FakeRemote {
    /// Serves until the test process ends; `answer` gives (status, JSON body), or `None` to
    /// keep the connection open without a word.
    pub fn start(answer: impl Fn(&str) -> Option<(u16, String)> + Send + 'static) -> FakeRemote {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = heads.clone();
        std::thread::spawn(move || {
            let mut silent = Vec::new();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    head.push_str(&line);
                }
                let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
                seen.lock().unwrap().push(head);
                match answer(&path) {
                    Some((status, body)) => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    }
                    None => silent.push(stream),
                }
            }
        });
        FakeRemote { port, heads }
    }
}
