//! The DBI user table and the SSO sessions on a PostgreSQL cluster that asks for a password,
//! as a production database does: TCP on 127.0.0.1, scram-sha-256 for the role, the chain
//! `dbi:Pg:...;host=127.0.0.1;port=...` with `dbiAuthUser` and `dbiAuthPassword` (and the
//! sessions' `UserName` and `Password`). With the right password users log in and their
//! sessions are rows of the database; with a wrong one the start and every login say that
//! the database refused the password, without the password, and a login answers 503 with
//! `Retry-After`, never "wrong password".
use super::{dbi_conf, login, Site};
use crate::common::pg::{Cluster, USER};
use crate::common::{Portal, TempDir};
use serde_json::json;

const DB_PASSWORD: &str = "db-Pass-w0rd-9f3";

/// A site whose users and sessions are on the cluster over TCP, logging in with `password`.
fn site(cluster: &Cluster, password: &str) -> (Site, Vec<String>) {
    let chain = cluster.tcp_chain();
    let mut conf = dbi_conf(&chain);
    conf.insert("dbiAuthUser".into(), json!(USER));
    conf.insert("dbiAuthPassword".into(), json!(password));
    let dir = TempDir::new("dbi-pg-password");
    let db = dir.path().join("unused");
    let site = Site::with_conf(dir, db, conf);
    let sessions = json!({"DataSource": chain, "UserName": USER, "Password": password});
    let lines = vec![
        "globalStorage = Apache::Session::Browseable::PgJSON".to_string(),
        format!("globalStorageOptions = {sessions}"),
    ];
    // The commands run before the start read the same INI as the server.
    let ini = site.dir.path().join("limette.ini");
    let mut text = std::fs::read_to_string(&ini).unwrap();
    text.push_str(&lines.join("\n"));
    text.push('\n');
    std::fs::write(&ini, text).unwrap();
    (site, lines)
}

fn start(site: Site, lines: &[String]) -> Portal {
    let mut b = Portal::builder().data(site.dir);
    for l in lines {
        b = b.ini(l);
    }
    b.start()
}

#[test]
fn users_and_sessions_on_a_database_that_asks_for_a_password() {
    let cluster = Cluster::start_with_password(DB_PASSWORD);
    let (site, lines) = site(&cluster, DB_PASSWORD);
    let said = site.ok(&["db", "init"], "");
    assert!(said.contains("users: table users in"), "{said}");
    site.ok(
        &["users", "add", "alice", "cn=Alice Liddell"],
        "wonderland\n",
    );
    let value = cluster.psql("SELECT password FROM users WHERE login = 'alice'");
    assert!(value.starts_with("{ssha512}"), "{value}");
    let check = site.run(&["config", "check"], "");
    let said = format!(
        "{}{}",
        super::text(&check.stdout),
        super::text(&check.stderr)
    );
    // No error, and the user table read (other warnings may stand: no `key` here).
    assert_ne!(check.status.code(), Some(2), "{said}");
    assert!(!said.contains("cannot be read"), "{said}");
    assert!(!said.contains(DB_PASSWORD), "{said}");

    let p = start(site, &lines);
    let (status, body, _) = login(&p, "alice", "wonderland");
    assert_eq!(status, 200, "{body}\n{}", p.log());
    let id = body["id"].as_str().unwrap();
    // The session is a row of the database (read here over the trusted socket).
    let cn = cluster.psql(&format!(
        "SELECT a_session::json->>'cn' FROM sessions WHERE id = '{id}'"
    ));
    assert_eq!(cn, "Alice Liddell");
    assert_eq!(login(&p, "alice", "looking-glass").0, 401);
    // The server's connections are TCP ones, authenticated: the database lists them.
    let clients = cluster.psql(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'limette' \
         AND client_addr = '127.0.0.1'",
    );
    assert!(clients.parse::<u32>().unwrap() >= 1, "{clients}");
    assert!(!p.log().contains(DB_PASSWORD));
    assert!(!p.log().contains("wonderland"));
}

#[test]
fn a_wrong_database_password_is_503_and_named_never_a_wrong_user_password() {
    let cluster = Cluster::start_with_password(DB_PASSWORD);
    // The table and a user, made with the right password.
    let (good, _) = site(&cluster, DB_PASSWORD);
    good.ok(&["db", "init"], "");
    good.ok(&["users", "add", "alice"], "wonderland\n");
    let wrong = "not-the-db-pass";
    let (site, lines) = site(&cluster, wrong);
    // `config check` and the start name the refusal; neither shows the password.
    let check = site.run(&["config", "check"], "");
    let said = format!(
        "{}{}",
        super::text(&check.stdout),
        super::text(&check.stderr)
    );
    assert!(said.contains("password authentication failed"), "{said}");
    assert!(said.contains("dbiAuthPassword"), "{said}");
    assert!(!said.contains(wrong), "{said}");
    let p = start(site, &lines);
    for (user, password) in [("alice", "wonderland"), ("alice", "x"), ("nobody", "x")] {
        let (status, body, retry) = login(&p, user, password);
        assert_eq!(status, 503, "{user}: {body}\n{}", p.log());
        assert!(
            retry.is_some_and(|r| r.parse::<u32>().unwrap() > 0),
            "{user}: no Retry-After"
        );
        assert_ne!(
            body["error"],
            json!("5"),
            "{user}: answered as a wrong password"
        );
    }
    let log = p.log();
    assert!(log.contains("password authentication failed"), "{log}");
    assert!(log.contains("dbiAuthPassword"), "{log}");
    assert!(!log.contains(wrong), "{log}");
    assert!(!log.contains("wonderland"), "{log}");
}
