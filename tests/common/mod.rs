//! Test harness shared by the integration tests: starts the real binary on an ephemeral port
//! with its own data folder, talks raw HTTP/1.1 to it, stops it on drop.
#![allow(dead_code)]

pub mod clock;
pub mod config;
pub mod embedded;
pub mod hostile;
pub mod http;
pub mod notifications;
pub mod oidc;
#[path = "../../src/storage/pg/cluster.rs"]
pub mod pg;
pub mod sessions;

use serde_json::{Map, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

pub use http::{Client, Resp};

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_limette")
}

/// The command `limette -c <ini> --data <data> <args>`: the command line on a site's files.
pub fn command(ini: &Path, data: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.arg("-c").arg(ini).arg("--data").arg(data).args(args);
    cmd
}

/// [`command`] on a started portal's own INI file and data folder.
pub fn portal_command(p: &Portal, args: &[&str]) -> Command {
    command(&p.data().join("limette.ini"), p.data(), args)
}

/// A temp folder removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let p = std::env::temp_dir().join(format!(
            "limette-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&p);
        // 0700 whatever the umask: the server refuses a data folder others may write.
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&p)
            .unwrap();
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The embedded default main configuration, as a JSON object to patch.
pub fn default_conf() -> Map<String, Value> {
    let text = include_str!("../../conf/lmConf-1.json");
    serde_json::from_str(text).unwrap()
}

/// Builder of a portal under test.
pub struct Builder {
    conf: Map<String, Value>,
    ini_portal: Vec<String>,
    ini_config: Option<String>,
    log_level: &'static str,
    env: Vec<(String, String)>,
    fixed_port: bool,
    dir: Option<TempDir>,
    args: Vec<String>,
    port: Option<u16>,
    umask: Option<String>,
}

impl Builder {
    /// Sets a main-configuration key (written into lmConf-1.json before start).
    pub fn conf(mut self, key: &str, value: Value) -> Builder {
        self.conf.insert(key.to_string(), value);
        self
    }
    /// Adds a `key = value` line to the `[portal]` section of a generated INI file.
    pub fn ini(mut self, line: &str) -> Builder {
        self.ini_portal.push(line.to_string());
        self
    }
    /// Replaces the `[configuration]` section (default: File in <data>/conf).
    pub fn ini_configuration(mut self, section: &str) -> Builder {
        self.ini_config = Some(section.to_string());
        self
    }
    /// The `[all]` section's `logLevel` (default `notice`).
    pub fn log_level(mut self, level: &'static str) -> Builder {
        self.log_level = level;
        self
    }
    /// Sets an environment variable for the server.
    pub fn env(mut self, k: &str, v: &str) -> Builder {
        self.env.push((k.into(), v.into()));
        self
    }
    /// Enables the debug routes (`/__test/...`).
    pub fn test_hooks(self) -> Builder {
        self.env("LIMETTE_TEST_HOOKS", "1")
    }
    /// Picks a free port before start so that `portal` can name it (needed where the portal
    /// URL matters: OIDC issuer, redirects, browser tests).
    pub fn portal_url_matches(mut self) -> Builder {
        self.fixed_port = true;
        self
    }
    /// Uses an existing data folder (to restart on the same data).
    pub fn data(mut self, dir: TempDir) -> Builder {
        self.dir = Some(dir);
        self
    }
    /// Listens on this port (to restart a portal where its clients expect it).
    pub fn port(mut self, port: u16) -> Builder {
        self.port = Some(port);
        self
    }
    /// Starts the server through `sh -c 'umask <mask>; exec ...'`.
    pub fn umask(mut self, mask: &str) -> Builder {
        self.umask = Some(mask.to_string());
        self
    }
    /// Extra command-line arguments.
    pub fn arg(mut self, a: &str) -> Builder {
        self.args.push(a.into());
        self
    }

    /// Starts the portal and waits for its "listening" line.
    pub fn start(mut self) -> Portal {
        let dir = self.dir.take().unwrap_or_else(|| TempDir::new("portal"));
        let data = dir.path().to_path_buf();
        let port = self
            .port
            .unwrap_or_else(|| if self.fixed_port { free_port() } else { 0 });
        if self.fixed_port {
            self.conf.insert(
                "portal".into(),
                Value::from(format!("http://127.0.0.1:{port}/")),
            );
        }
        let conf_dir = data.join("conf");
        std::fs::create_dir_all(&conf_dir).unwrap();
        let conf_file = conf_dir.join("lmConf-1.json");
        if !conf_file.exists() {
            std::fs::write(
                &conf_file,
                serde_json::to_vec_pretty(&Value::Object(self.conf.clone())).unwrap(),
            )
            .unwrap();
        }
        let ini = format!(
            "[all]\nlogLevel = {}\n[configuration]\n{}\n[portal]\nglobalStorage = File\nglobalStorageOptions = {{\"Directory\": \"{}\"}}\npersistentStorage = File\npersistentStorageOptions = {{\"Directory\": \"{}\"}}\n{}\n",
            self.log_level,
            self.ini_config.clone().unwrap_or_else(|| format!("type = File\ndirName = {}", conf_dir.display())),
            data.join("sessions").display(),
            data.join("psessions").display(),
            self.ini_portal.join("\n")
        );
        let ini_path = data.join("limette.ini");
        std::fs::write(&ini_path, ini).unwrap();
        let mut cmd = match &self.umask {
            Some(mask) => {
                let mut sh = Command::new("sh");
                sh.arg("-c")
                    .arg(format!("umask {mask} && exec \"$0\" \"$@\""))
                    .arg(bin());
                sh
            }
            None => Command::new(bin()),
        };
        cmd.arg("-c")
            .arg(&ini_path)
            .arg("--data")
            .arg(&data)
            .arg("-l")
            .arg(format!("127.0.0.1:{port}"));
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let log = data.join("server.log");
        cmd.stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap());
        let mut child = cmd.spawn().expect("start limette");
        let port = match listening_port(&mut child, Duration::from_secs(30)) {
            Ok(port) => port,
            Err(why) => {
                let _ = child.kill();
                let _ = child.wait();
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                panic!("limette did not start: {why}; log:\n{log}");
            }
        };
        Portal {
            child: Some(child),
            port,
            dir: Some(dir),
            log,
        }
    }
}

/// A running portal.
pub struct Portal {
    pub child: Option<Child>,
    pub port: u16,
    pub dir: Option<TempDir>,
    pub log: PathBuf,
}

impl Portal {
    /// A builder on the embedded default configuration.
    pub fn builder() -> Builder {
        Builder {
            conf: default_conf(),
            ini_portal: Vec::new(),
            ini_config: None,
            log_level: "notice",
            env: Vec::new(),
            fixed_port: false,
            dir: None,
            args: Vec::new(),
            port: None,
            umask: None,
        }
    }
    /// The embedded default as is.
    pub fn start() -> Portal {
        Portal::builder().start()
    }
    /// A client of this portal.
    pub fn client(&self) -> Client {
        Client::new(self.port)
    }
    /// Base URL.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
    /// The data folder.
    pub fn data(&self) -> &Path {
        self.dir.as_ref().unwrap().path()
    }
    /// What the server wrote on stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
    /// Sends SIGTERM and waits; returns the exit code.
    pub fn terminate(&mut self) -> Option<i32> {
        let mut child = self.child.take()?;
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        child.wait().ok().and_then(|s| s.code())
    }
    /// Kills with SIGKILL.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
    /// Stops the server but keeps its data folder, for a restart.
    pub fn stop_keep_data(mut self) -> TempDir {
        self.terminate();
        self.dir.take().unwrap()
    }
    /// Logs in with the JSON API and returns the session id.
    pub fn login(&self, user: &str) -> String {
        let r = self.client().post_form(
            "/",
            &[("user", user), ("password", user)],
            &[("Accept", "application/json")],
        );
        assert_eq!(r.status, 200, "login of {user}: {}", r.text());
        r.json()["id"].as_str().unwrap().to_string()
    }
    /// Signs session `sid` out as a browser does from a link: `GET /?logout=1` asks first (it
    /// must: the page is checked), then the confirmation is posted with the page's token. The
    /// answer to the confirmation.
    pub fn logout_confirmed(&self, sid: &str) -> Resp {
        let cookie = format!("lemonldap={sid}");
        let c = self.client();
        let ask = c.get("/?logout=1", &[("Cookie", &cookie)]);
        assert_eq!(ask.status, 200, "{}", ask.text());
        let html = ask.text();
        assert!(html.contains("id=\"logout-confirm\""), "{html}");
        let token = html
            .split("name=\"token\" value=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or_else(|| panic!("no token in {html}"))
            .to_string();
        c.post_form("/?logout=1", &[("token", &token)], &[("Cookie", &cookie)])
    }
}

impl Drop for Portal {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// Reads the child's "listening" line, on a thread so that a server that hangs before it (or
/// never writes it) fails the test after `limit` instead of blocking it forever.
fn listening_port(child: &mut Child, limit: Duration) -> Result<u16, String> {
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let res = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        let _ = tx.send(res);
    });
    let line = match rx.recv_timeout(limit) {
        Ok(Ok(line)) => line,
        Ok(Err(e)) => return Err(format!("reading its stdout: {e}")),
        Err(_) => return Err(format!("no listening line within {limit:?}")),
    };
    line.split("http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("no port in its first line {line:?}"))
}

/// A port free right now (bound then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
