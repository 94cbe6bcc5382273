//! A mixed cluster: a real LemonLDAP::NG 2.16 portal (`authentication = DBI`, `passwordDB =
//! DBI`, under its FastCGI server behind nginx, `tests/suite/bridge/node.rs`) and Limette
//! reading the same user table: on SQLite through `DBD::SQLite`, the hash functions given by
//! `conf/llng/LimetteSQLite.pm` (loaded with `PERL5OPT`, as a site would), and on the
//! throw-away PostgreSQL cluster, the functions created as LemonLDAP::NG's documentation
//! creates them (pgcrypto is not needed: PostgreSQL 11's sha256() and sha512() do the digest).
//! A user `limette users add` made logs in on LemonLDAP::NG; LemonLDAP::NG changes the
//! password; the new one logs in on Limette and the old one no longer does.
use super::{dbi_conf, login, Site};
use crate::bridge::node::Llng;
use crate::common::pg::{Cluster, USER};
use crate::common::TempDir;
use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

/// The DBI keys both nodes read.
fn shared_keys(chain: &str, new_scheme: &str) -> Map<String, Value> {
    let mut keys = Map::new();
    for k in [
        "authentication",
        "userDB",
        "passwordDB",
        "dbiAuthTable",
        "dbiAuthLoginCol",
        "dbiAuthPasswordCol",
        "dbiDynamicHashEnabled",
        "dbiDynamicHashValidSchemes",
        "dbiDynamicHashValidSaltedSchemes",
        "dbiExportedVars",
    ] {
        keys.insert(k.into(), dbi_conf("x")[k].clone());
    }
    keys.insert("dbiAuthChain".into(), json!(chain));
    keys.insert("dbiDynamicHashNewPasswordScheme".into(), json!(new_scheme));
    keys
}

/// A form POST to the LemonLDAP::NG node (HTTP/1.0, JSON asked): status and body.
fn llng_form(node: &Llng, cookie: Option<&str>, fields: &[(&str, &str)]) -> (u16, Value) {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| {
            format!(
                "{k}={}",
                v.replace('%', "%25")
                    .replace('&', "%26")
                    .replace('+', "%2B")
                    .replace(' ', "+")
            )
        })
        .collect();
    let body = body.join("&");
    let mut s = TcpStream::connect(("127.0.0.1", node.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let cookie = cookie
        .map(|c| format!("Cookie: lemonldap={c}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST / HTTP/1.0\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Accept: application/json\r\n{cookie}Content-Length: {}\r\n\r\n{body}",
        node.port,
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or_default();
    (
        status,
        serde_json::from_str(body).unwrap_or(Value::String(body.into())),
    )
}

/// Logs in on LemonLDAP::NG; the session id when it let the user in.
fn llng_login(node: &Llng, user: &str, password: &str) -> Option<String> {
    let (_, v) = llng_form(node, None, &[("user", user), ("password", password)]);
    (v["result"] == 1).then(|| v["id"].as_str().unwrap_or_default().to_string())
}

/// The three steps, on a site whose table both nodes read.
fn both_ways(site: Site, node: &Llng) {
    let id = llng_login(node, "alice", "wonderland")
        .unwrap_or_else(|| panic!("LemonLDAP::NG refused alice:\n{}", node.logs()));
    assert!(llng_login(node, "alice", "wrong").is_none());
    let (_, answer) = llng_form(
        node,
        Some(&id),
        &[
            ("oldpassword", "wonderland"),
            ("newpassword", "pilgrim's progress"),
            ("confirmpassword", "pilgrim's progress"),
        ],
    );
    let p = site.start();
    let (status, body, _) = login(&p, "alice", "pilgrim's progress");
    assert_eq!(
        status,
        200,
        "LemonLDAP::NG answered {answer}; Limette: {body}\n{}",
        node.logs()
    );
    assert_eq!(login(&p, "alice", "wonderland").0, 401);
    // And back: Limette's own user, added while both run.
    let add = crate::common::portal_command(&p, &["users", "add", "bob"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(b"canwefixit\n")?;
            c.wait()
        })
        .unwrap();
    assert!(add.success());
    assert!(
        llng_login(node, "bob", "canwefixit").is_some(),
        "{}",
        node.logs()
    );
}

#[test]
fn a_sqlite_table_shared_with_lemonldap_ng() {
    // A folder the portal's user (www-data) may write: SQLite writes its journal beside.
    let shared = TempDir::new("dbi-shared");
    let db = shared.path().join("users.db");
    let chain = format!("dbi:SQLite:dbname={}", db.display());
    let keys = shared_keys(&chain, "ssha512");
    let mut conf = dbi_conf(&chain);
    conf.extend(keys.clone());
    let site = Site::with_conf(TempDir::new("dbi"), db.clone(), conf);
    site.init_with(&[("alice", "wonderland", &["cn=Alice Liddell"])]);
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("conf/llng/LimetteSQLite.pm");
    std::fs::copy(module, shared.path().join("LimetteSQLite.pm")).unwrap();
    let own = std::process::Command::new("chown")
        .args(["-R", "www-data:www-data"])
        .arg(shared.path())
        .status()
        .unwrap();
    assert!(own.success());
    let mut patch = Value::Object(keys);
    patch["requireToken"] = json!(0);
    let perl5opt = format!("-I{} -MLimetteSQLite", shared.path().display());
    let node = Llng::start_with(&patch, &[("PERL5OPT", perl5opt)]);
    both_ways(site, &node);
}

#[test]
fn a_postgresql_table_shared_with_lemonldap_ng() {
    let cluster = Cluster::start();
    // LemonLDAP::NG's documented functions: hexadecimal in, hexadecimal out; unixcrypth is
    // crypt(3) as Perl gives it, for unixcrypt6.
    cluster.psql(
        "CREATE FUNCTION sha512(varchar) RETURNS text AS $$ \
           SELECT encode(sha512(decode($1, 'hex')), 'hex') $$ LANGUAGE SQL STRICT IMMUTABLE; \
         CREATE FUNCTION sha256(varchar) RETURNS text AS $$ \
           SELECT encode(sha256(decode($1, 'hex')), 'hex') $$ LANGUAGE SQL STRICT IMMUTABLE;",
    );
    let chain = cluster.chain();
    let keys = shared_keys(&chain, "ssha512");
    let mut conf = dbi_conf(&chain);
    conf.extend(keys.clone());
    conf.insert("dbiAuthUser".into(), json!(USER));
    let dir = TempDir::new("dbi-pg");
    let site = Site::with_conf(dir, "unused".into(), conf);
    site.init_with(&[("alice", "wonderland", &["cn=Alice Liddell"])]);
    let mut patch = Value::Object(keys);
    patch["requireToken"] = json!(0);
    patch["dbiAuthUser"] = json!(USER);
    let node = Llng::start_with(&patch, &[]);
    both_ways(site, &node);
}
