//! The DBI user table on the throw-away PostgreSQL cluster: `db init` makes it, the verbs
//! write it, the server logs its users in, and a database stopped under it answers 503 with
//! `Retry-After` until it is back, then logs in again without a restart.
use super::{dbi_conf, login, session, Site};
use crate::common::pg::{Cluster, USER};
use crate::common::TempDir;
use serde_json::json;

#[test]
fn users_on_postgresql() {
    let cluster = Cluster::start();
    let mut conf = dbi_conf(&cluster.chain());
    conf.insert("dbiAuthUser".into(), json!(USER));
    // The cluster trusts its socket: the password is sent to nobody, and shown nowhere.
    conf.insert("dbiAuthPassword".into(), json!("db-pass-w0rd"));
    conf.insert(
        "dbiDynamicHashNewPasswordScheme".into(),
        json!("unixcrypt6"),
    );
    let dir = TempDir::new("dbi-pg");
    let db = dir.path().join("unused");
    let site = Site::with_conf(dir, db, conf);
    site.init_with(&[(
        "alice",
        "wonderland",
        &["cn=Alice Liddell", "mail=alice@example.org"],
    )]);
    let value = cluster.psql("SELECT password FROM users WHERE login = 'alice'");
    assert!(value.starts_with("$6$"), "{value}");
    assert!(site
        .ok(&["users", "list", "LIC"], "")
        .contains("alice\tactive\t$6$"));
    let check = site.run(&["config", "check"], "");
    assert!(!super::text(&check.stdout).contains("db-pass-w0rd"));
    let p = site.start();
    let (status, body, _) = login(&p, "alice", "wonderland");
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        session(&p, body["id"].as_str().unwrap())["cn"],
        "Alice Liddell"
    );
    assert_eq!(login(&p, "alice", "wrong").0, 401);
    cluster.down();
    let (status, body, retry) = login(&p, "alice", "wonderland");
    assert_eq!(status, 503, "{body}");
    assert!(retry.is_some());
    assert_eq!(login(&p, "nobody", "x").0, 503);
    cluster.up();
    assert_eq!(login(&p, "alice", "wonderland").0, 200, "{}", p.log());
    let lock = crate::common::portal_command(&p, &["users", "lock", "alice"])
        .output()
        .unwrap();
    assert!(lock.status.success());
    assert_eq!(login(&p, "alice", "wonderland").0, 401);
    assert!(!p.log().contains("wonderland"));
    assert!(!p.log().contains("db-pass-w0rd"));
}
