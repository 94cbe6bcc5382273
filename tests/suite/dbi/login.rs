//! Logins on the DBI store through the real server: the keys (two tables and `userPivot`,
//! `dbiExportedVars` over `exportedVars`, `dbiAuthnLevel`, `dbiMailCol`), locks and password
//! changes made by the command line while it runs, the start refused for a missing column, a
//! database out of reach answered 503 with `Retry-After`, and no password or hash in a log.
use super::{login, session, stored, text, Site};
use serde_json::json;

#[test]
fn users_of_the_table_log_in_and_nobody_else() {
    let site =
        Site::sqlite(json!({"dbiAuthnLevel": 3, "exportedVars": {"uid": "login", "cn": "login"}}));
    site.init_with(&[(
        "alice",
        "wonderland",
        &["cn=Alice Liddell", "mail=alice@example.org"],
    )]);
    let db = site.db.clone();
    let p = site.start();
    let (status, body, _) = login(&p, "alice", "wonderland");
    assert_eq!(status, 200, "{body}");
    let s = session(&p, body["id"].as_str().unwrap());
    assert_eq!(s["_auth"], "DBI");
    assert_eq!(s["_userDB"], "DBI");
    assert_eq!(s["authenticationLevel"], 3);
    assert_eq!(s["uid"], "alice");
    assert_eq!(
        s["cn"], "Alice Liddell",
        "dbiExportedVars wins over exportedVars"
    );
    assert_eq!(s["mail"], "alice@example.org");
    assert!(s.get("password").is_none());
    for (user, password) in [
        ("alice", "Wonderland"),
        ("nobody", "wonderland"),
        ("alice", ""),
    ] {
        let (status, body, _) = login(&p, user, password);
        assert_eq!(status, 401, "{user}/{password}: {body}");
    }
    // Changes made by the command line are in force at once (no restart, no cache).
    let cmd = |args: &[&str], stdin: &str| {
        let mut c = crate::common::portal_command(&p, args);
        c.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null());
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success(), "{args:?}");
    };
    cmd(&["users", "lock", "alice"], "");
    assert_eq!(login(&p, "alice", "wonderland").0, 401);
    cmd(&["users", "unlock", "alice"], "");
    cmd(&["users", "passwd", "alice"], "looking-glass\n");
    assert_eq!(login(&p, "alice", "wonderland").0, 401);
    assert_eq!(login(&p, "alice", "looking-glass").0, 200);
    // Neither a password nor a hash reaches a log line.
    let hash = stored(&db)[0].1.clone().unwrap();
    let log = p.log();
    for secret in [
        "wonderland",
        "Wonderland",
        "looking-glass",
        &hash,
        &hash[9..30],
    ] {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
    assert!(log.contains("login_failed"), "{log}");
}

#[test]
fn two_tables_and_a_pivot() {
    let site = Site::sqlite(json!({
        "dbiUserTable": "people", "userPivot": "uid", "dbiMailCol": "email",
        "dbiExportedVars": {"name": "fullname", "mail": "email", "missing": "nothere"},
    }));
    site.ok(&["db", "init"], "");
    let c = rusqlite::Connection::open(&site.db).unwrap();
    let cols = |t: &str| {
        c.prepare(&format!("SELECT * FROM {t}"))
            .unwrap()
            .column_names()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(cols("users"), ["login", "password"]);
    assert_eq!(cols("people"), ["uid", "fullname", "email", "nothere"]);
    site.ok(
        &[
            "users",
            "add",
            "bob",
            "fullname=Bob Builder",
            "email=bob@example.org",
        ],
        "canwefixit\n",
    );
    c.execute("UPDATE people SET nothere = NULL", []).unwrap();
    let p = site.start();
    let (status, body, _) = login(&p, "bob", "canwefixit");
    assert_eq!(status, 200, "{body}");
    let s = session(&p, body["id"].as_str().unwrap());
    assert_eq!(
        (&s["name"], &s["mail"]),
        (&json!("Bob Builder"), &json!("bob@example.org"))
    );
    assert!(s.get("missing").is_none(), "a NULL column is not exported");
    assert_eq!(s["authenticationLevel"], 2, "dbiAuthnLevel's default");
    // Deleting removes both rows.
    let deleted = crate::common::portal_command(&p, &["users", "delete", "bob"])
        .output()
        .unwrap();
    assert!(deleted.status.success(), "{}", text(&deleted.stderr));
    let n: i64 = c
        .query_row("SELECT count(*) FROM people", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn a_missing_column_stops_the_start_naming_it() {
    let site = Site::sqlite(json!({}));
    site.ok(&["db", "init"], "");
    let conf = site.dir.path().join("conf/lmConf-1.json");
    let mut c: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&conf).unwrap()).unwrap();
    c.insert("dbiAuthPasswordCol".into(), json!("pwd"));
    std::fs::write(&conf, serde_json::to_vec(&c).unwrap()).unwrap();
    let out = site.run(&["-l", "127.0.0.1:0"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("dbiAuthPasswordCol = pwd: the table users in dbi:SQLite:dbname="),
        "{err}"
    );
    assert!(err.contains("has no such column"), "{err}");
    let check = site.run(&["config", "check"], "");
    assert!(
        text(&check.stdout).contains("dbiAuthPasswordCol = pwd"),
        "{}",
        text(&check.stdout)
    );
    for (key, value, why) in [
        (
            "dbiAuthChain",
            json!("dbi:mysql:database=llng"),
            "dbiAuthChain: dbi:mysql:database=llng is not supported",
        ),
        (
            "dbiDynamicHashNewPasswordScheme",
            json!("bcrypt"),
            "dbiDynamicHashNewPasswordScheme = bcrypt is not supported",
        ),
    ] {
        c.insert("dbiAuthPasswordCol".into(), json!("password"));
        let kept = c.insert(key.into(), value).unwrap();
        std::fs::write(&conf, serde_json::to_vec(&c).unwrap()).unwrap();
        let out = site.run(&["-l", "127.0.0.1:0"], "");
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains(why), "{}", text(&out.stderr));
        c.insert(key.into(), kept);
    }
}

#[test]
fn a_database_out_of_reach_is_503_never_a_wrong_password() {
    // The file is not there: the start warns, every login answers 503 with Retry-After.
    let site = Site::sqlite(json!({}));
    let p = site.start();
    let (status, body, retry) = login(&p, "alice", "wonderland");
    assert_eq!(status, 503, "{body}");
    assert!(retry.is_some_and(|r| r.parse::<u32>().unwrap() > 0));
    // The login page's form too: a 503 page, not the form again with "wrong password".
    let form = p.client().get("/", &[]).text();
    let token = form
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no token in {form}"));
    let page = p.client().post_form(
        "/",
        &[
            ("user", "alice"),
            ("password", "wonderland"),
            ("token", token),
        ],
        &[],
    );
    assert_eq!(page.status, 503, "{}", page.text());
    assert!(page.header("retry-after").is_some());
    assert!(!page.text().contains("wonderland"));
    let log = p.log();
    assert!(log.contains("cannot be read now"), "{log}");
    assert!(!log.contains("wonderland"));
}

#[test]
fn clear_text_is_accepted_and_warned_about() {
    let site = Site::sqlite(json!({"dbiDynamicHashEnabled": 0}));
    site.init_with(&[("carol", "marvel", &[])]);
    assert_eq!(stored(&site.db)[0].1.as_deref(), Some("marvel"));
    let check = site.run(&["config", "check"], "");
    let said = text(&check.stdout);
    assert!(
        said.contains("dbiAuthPasswordHash is empty: passwords are written in clear text"),
        "{said}"
    );
    let p = site.start();
    assert_eq!(login(&p, "carol", "marvel").0, 200);
}
