//! Who may call the REST servers and what is on disk, as an attacker on the same machine meets
//! it: clients bound to 127.0.0.2 against the address rules of `/sessions`, `/config` and
//! `/notifications` (REST and SOAP), basic credentials, `X-Forwarded-For` from trusted and
//! untrusted peers, start-up refusals; and the modes of the data folder's files.
use crate::common;

mod audit;
mod files;
mod proxies;
mod servers;

use common::hostile;
use common::{Builder, Portal, Resp, TempDir};
use serde_json::json;
use std::path::Path;

/// A portal with the three servers on (every notification method too).
pub fn servers() -> Builder {
    Portal::builder()
        .conf("restSessionServer", json!(1))
        .conf("restConfigServer", json!(1))
        .conf("notificationServer", json!(1))
        .conf("notificationServerGET", json!(1))
        .conf("notificationServerDELETE", json!(1))
}

/// A request from `from` (a loopback address) with extra header lines.
pub fn call(p: &Portal, from: &str, method: &str, path: &str, headers: &str, body: &[u8]) -> Resp {
    hostile::request_from(from, p.port, method, path, headers, body)
        .unwrap_or_else(|e| panic!("{method} {path} from {from}: {e}"))
}

/// A GET from `from`.
pub fn get(p: &Portal, from: &str, path: &str) -> Resp {
    call(p, from, "GET", path, "", b"")
}

/// `Authorization: Basic` header line.
pub fn basic(user: &str, password: &str) -> String {
    use base64::Engine;
    let b = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Authorization: Basic {b}\r\n")
}

/// What a start-up that must fail printed.
pub struct Refused {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the server on an INI whose `[portal]` has `portal` lines (and `data` as its data
/// folder); it must stop by itself.
pub fn start_with(data: &Path, portal: &str) -> Refused {
    let conf_dir = data.join("conf");
    std::fs::create_dir_all(&conf_dir).unwrap();
    std::fs::write(
        conf_dir.join("lmConf-1.json"),
        serde_json::to_vec(&serde_json::Value::Object(common::default_conf())).unwrap(),
    )
    .unwrap();
    let ini = data.join("limette.ini");
    std::fs::write(
        &ini,
        format!(
            "[configuration]\ntype = File\ndirName = {}\n[portal]\nlisten = 127.0.0.1:0\n{portal}\n",
            conf_dir.display()
        ),
    )
    .unwrap();
    let o = common::command(&ini, data, &[]).output().unwrap();
    Refused {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A fresh folder for [`start_with`].
pub fn scratch(tag: &str) -> TempDir {
    TempDir::new(tag)
}
