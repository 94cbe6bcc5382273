//! The DBI user store (`authentication = DBI`): a site's files written here (an INI and a
//! main configuration naming a user table on a real SQLite file or the throw-away PostgreSQL
//! cluster), the real binary's `db init` and `users ...` verbs run on them, and the real
//! server started on them and logged in through HTTP. `cli` covers the verbs and imports,
//! `login` the keys, the 503 and the logs, `schemes` every hash family against LemonLDAP::NG's
//! own code, `timing` unknown users, `pg` the PostgreSQL table, `pg_password` a database that
//! asks for a password.
mod cli;
mod llng;
mod login;
mod pg;
mod pg_password;
mod schemes;
mod timing;

use crate::common::{self, Portal, TempDir};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A site's files: a data folder with `limette.ini`, `conf/lmConf-1.json` and `users.db`.
pub struct Site {
    pub dir: TempDir,
    pub db: PathBuf,
}

/// The DBI keys of a one-table store on `chain`, ssha512 for new passwords.
pub fn dbi_conf(chain: &str) -> Map<String, Value> {
    let mut conf = common::default_conf();
    for (k, v) in json!({
        "authentication": "DBI", "userDB": "Same", "passwordDB": "DBI",
        "dbiAuthChain": chain,
        "dbiAuthTable": "users", "dbiAuthLoginCol": "login", "dbiAuthPasswordCol": "password",
        "dbiDynamicHashEnabled": 1,
        "dbiDynamicHashValidSchemes": "sha256 sha512",
        "dbiDynamicHashValidSaltedSchemes": "ssha256 ssha512 unixcrypt6",
        "dbiDynamicHashNewPasswordScheme": "ssha512",
        "dbiExportedVars": {"cn": "cn", "mail": "mail"},
    })
    .as_object()
    .unwrap()
    {
        conf.insert(k.clone(), v.clone());
    }
    conf
}

impl Site {
    /// A site on a SQLite file (not created), the DBI keys patched with `patch`.
    pub fn sqlite(patch: Value) -> Site {
        let dir = TempDir::new("dbi");
        let db = dir.path().join("users.db");
        let mut conf = dbi_conf(&format!("dbi:SQLite:dbname={}", db.display()));
        for (k, v) in patch.as_object().unwrap() {
            conf.insert(k.clone(), v.clone());
        }
        Site::with_conf(dir, db, conf)
    }

    /// A site with this main configuration.
    pub fn with_conf(dir: TempDir, db: PathBuf, conf: Map<String, Value>) -> Site {
        let conf_dir = dir.path().join("conf");
        std::fs::create_dir_all(&conf_dir).unwrap();
        std::fs::write(
            conf_dir.join("lmConf-1.json"),
            serde_json::to_vec_pretty(&Value::Object(conf)).unwrap(),
        )
        .unwrap();
        let data = dir.path();
        // The INI the harness writes at start (`common::Builder::start`), for the commands
        // run before it.
        let ini = format!(
            "[all]\nlogLevel = notice\n[configuration]\ntype = File\ndirName = {}\n[portal]\nglobalStorage = File\nglobalStorageOptions = {{\"Directory\": \"{}\"}}\npersistentStorage = File\npersistentStorageOptions = {{\"Directory\": \"{}\"}}\n\n",
            conf_dir.display(),
            data.join("sessions").display(),
            data.join("psessions").display(),
        );
        std::fs::write(data.join("limette.ini"), ini).unwrap();
        Site { dir, db }
    }

    /// Runs `limette <args>` on the site, `stdin` written to its standard input.
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        let data = self.dir.path();
        let mut cmd = common::command(&data.join("limette.ini"), data, args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// Runs a command that must succeed; its standard output.
    pub fn ok(&self, args: &[&str], stdin: &str) -> String {
        let out = self.run(args, stdin);
        assert!(
            out.status.success(),
            "limette {args:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// `db init` then `users add LOGIN` for each (login, password, COLUMN=VALUE...).
    pub fn init_with(&self, users: &[(&str, &str, &[&str])]) {
        let said = self.ok(&["db", "init"], "");
        assert!(said.contains("users: table users in"), "{said}");
        for (login, password, attrs) in users {
            let mut args = vec!["users", "add", login];
            args.extend(attrs.iter());
            self.ok(&args, &format!("{password}\n"));
        }
    }

    /// Starts the server on the site.
    pub fn start(self) -> Portal {
        Portal::builder().data(self.dir).start()
    }
}

/// A JSON login: the status and the answer.
pub fn login(p: &Portal, user: &str, password: &str) -> (u16, Value, Option<String>) {
    let r = p.client().post_form(
        "/",
        &[("user", user), ("password", password)],
        &[("Accept", "application/json")],
    );
    let retry = r.header("retry-after").map(str::to_string);
    let status = r.status;
    (
        status,
        serde_json::from_str(&r.text()).unwrap_or(Value::Null),
        retry,
    )
}

/// The stored SSO session `id` of a portal on File sessions.
pub fn session(p: &Portal, id: &str) -> Map<String, Value> {
    let text = std::fs::read_to_string(p.data().join("sessions").join(id)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Rows of the SQLite file: (login, password value).
pub fn stored(db: &Path) -> Vec<(String, Option<String>)> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c
        .prepare("SELECT login, password FROM users ORDER BY login")
        .unwrap();
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    rows
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `perl` with LemonLDAP::NG's DBI code and DBD::SQLite, or a failure naming the setup script.
pub fn perl_vectors(mode: &str, input: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dbi/llng-vectors.pl");
    let mut child = Command::new("perl")
        .arg(&script)
        .arg(mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("perl");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "llng-vectors.pl {mode} failed (.ci/setup.d/dbi.sh installs DBD::SQLite and \
         LemonLDAP::NG's portal): {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}
