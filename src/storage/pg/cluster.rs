//! A throw-away PostgreSQL cluster for the tests, from the distribution's server: `initdb`
//! once a machine into a template folder (reused by later runs), then a copy of it a test in a
//! temporary folder, started by `pg_ctl` with its Unix socket in that folder and no TCP
//! listener, stopped and removed on drop; or, with `start_with_password`, a cluster that
//! listens on 127.0.0.1 too and asks its role's password there (scram-sha-256), as a
//! production database does. The server refuses to run as root: as root (CI), the
//! commands run as the `postgres` user the package creates (`runuser`). Shared by the
//! library's storage contract suite and the integration tests (which include it by path as
//! `common::pg`), so it uses std only.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// The role the tests connect as (the cluster's superuser, trusted on its socket).
pub const USER: &str = "limette";
/// The database the tests use.
pub const DB: &str = "postgres";

/// A running cluster, stopped and removed on drop.
pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    /// The TCP port on 127.0.0.1 (`start_with_password`), also the socket's number.
    port: Option<u16>,
}

/// The folder of the server's binaries (the highest version installed).
pub fn bin_dir() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("initdb").exists() && p.join("pg_ctl").exists())
        .collect();
    found.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    found.pop()
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.uid() == 0
        })
        .unwrap_or(false)
}

/// A command of the server's, as the `postgres` user when this process is root.
fn server_cmd(bin: &Path, tool: &str) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(tool));
        c
    } else {
        Command::new(bin.join(tool))
    }
}

fn run(mut c: Command, what: &str) {
    let out = c
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Hands a path to the server's user (as root), or leaves it (otherwise).
fn give(path: &Path) {
    if is_root() {
        run(
            {
                let mut c = Command::new("chown");
                c.args(["-R", "postgres:postgres"]).arg(path);
                c
            },
            "chown",
        );
    }
}

/// The template cluster, made once a machine (its folder name carries the version and the
/// user, so a run as another user or with another server makes its own).
fn template(bin: &Path) -> PathBuf {
    static MADE: Mutex<()> = Mutex::new(());
    let _g = MADE.lock().unwrap_or_else(|p| p.into_inner());
    let version = bin
        .parent()
        .and_then(|v| v.file_name())
        .and_then(|v| v.to_str())
        .unwrap_or("x")
        .to_string();
    let who = if is_root() { "root" } else { "user" };
    let t = std::env::temp_dir().join(format!("limette-pg-template-{version}-{who}"));
    if t.join("PG_VERSION").exists() {
        return t;
    }
    let tmp = std::env::temp_dir().join(format!(
        "limette-pg-template-{version}-{who}.{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    give(&tmp);
    let mut c = server_cmd(bin, "initdb");
    c.arg("-D").arg(&tmp).args([
        "-U",
        USER,
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-sync",
        "--no-instructions",
    ]);
    run(c, "initdb");
    // Another process may have made it meanwhile: its copy wins.
    if std::fs::rename(&tmp, &t).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    t
}

impl Cluster {
    /// Starts a new cluster; panics (naming the setup script) when the server is missing.
    pub fn start() -> Cluster {
        let cluster = Cluster::fresh(None, "");
        cluster.up();
        cluster
    }

    /// Starts a new cluster that also listens on 127.0.0.1 (a free port) and there asks the
    /// role `USER` for `password` (scram-sha-256, the server's default encryption); its Unix
    /// socket stays trusted (`psql`).
    pub fn start_with_password(password: &str) -> Cluster {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        // The first line that matches decides: TCP from loopback asks for the password.
        let cluster = Cluster::fresh(Some(port), "host all all 127.0.0.1/32 scram-sha-256\n");
        cluster.up();
        cluster.psql(&format!(
            "ALTER ROLE {USER} PASSWORD '{}'",
            password.replace('\'', "''")
        ));
        cluster
    }

    /// A copy of the template, `hba` before its pg_hba.conf lines, not started.
    fn fresh(port: Option<u16>, hba: &str) -> Cluster {
        let bin = bin_dir()
            .expect("PostgreSQL's server is not installed (.ci/setup.d/postgres.sh installs it)");
        let template = template(&bin);
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "limette-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        run(
            {
                let mut c = Command::new("cp");
                c.arg("-a").arg(&template).arg(dir.join("data"));
                c
            },
            "copy of the template cluster",
        );
        if !hba.is_empty() {
            let path = dir.join("data/pg_hba.conf");
            let old = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, format!("{hba}{old}")).unwrap();
        }
        give(&dir);
        Cluster { dir, bin, port }
    }

    /// The `DBI:Pg:` chain of the test database over TCP (`start_with_password`).
    pub fn tcp_chain(&self) -> String {
        let port = self.port.expect("a cluster of start_with_password");
        format!("DBI:Pg:dbname={DB};host=127.0.0.1;port={port}")
    }

    /// The socket folder (`host=` of a chain).
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The `DBI:Pg:` chain of the test database.
    pub fn chain(&self) -> String {
        let port = self.port.map(|p| format!(";port={p}")).unwrap_or_default();
        format!("DBI:Pg:dbname={DB};host={}{port}", self.dir.display())
    }

    /// Starts the server (again), waiting until it accepts connections.
    pub fn up(&self) {
        let mut c = server_cmd(&self.bin, "pg_ctl");
        c.arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-w", "-t", "60", "-o"])
            .arg(format!(
                "-k {} -c listen_addresses='{}' -c port={} -c fsync=off -c max_connections=200",
                self.dir.display(),
                if self.port.is_some() { "127.0.0.1" } else { "" },
                self.port.unwrap_or(5432)
            ))
            .arg("start");
        run(c, "pg_ctl start");
    }

    /// Stops the server (fast: open connections are ended, as at a restart).
    pub fn down(&self) {
        let mut c = server_cmd(&self.bin, "pg_ctl");
        c.arg("-D")
            .arg(self.dir.join("data"))
            .args(["-w", "-m", "fast", "stop"]);
        run(c, "pg_ctl stop");
    }

    /// Runs SQL through psql on the test database; its output (unaligned, tuples only).
    pub fn psql(&self, sql: &str) -> String {
        let out = Command::new("psql")
            .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h"])
            .arg(&self.dir)
            .args(["-p", &self.port.unwrap_or(5432).to_string()])
            .args(["-U", USER, "-d", DB, "-c", sql])
            .stdin(Stdio::null())
            .output()
            .expect("psql");
        assert!(
            out.status.success(),
            "psql {sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let mut c = server_cmd(&self.bin, "pg_ctl");
        c.arg("-D")
            .arg(self.dir.join("data"))
            .args(["-w", "-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let _ = c.status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
