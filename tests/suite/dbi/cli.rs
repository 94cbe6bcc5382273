//! `limette db init` and `limette users ...` on a real SQLite file: each verb, what it
//! prints, what it leaves in the table, and the imports (CSV, LDIF) all or nothing.
use super::{stored, text, Site};
use serde_json::{json, Value};

#[test]
fn db_init_makes_the_table_with_the_configured_names() {
    let site = Site::sqlite(json!({
        "dbiAuthTable": "accounts", "dbiAuthLoginCol": "uid", "dbiAuthPasswordCol": "pwd",
        "dbiMailCol": "email", "dbiExportedVars": {"cn": "fullname", "UA": "HTTP_USER_AGENT"},
    }));
    let said = site.ok(&["db", "init"], "");
    assert!(said.contains("users: table accounts in"), "{said}");
    let c = rusqlite::Connection::open(&site.db).unwrap();
    let st = c.prepare("SELECT * FROM accounts").unwrap();
    let cols: Vec<&str> = st.column_names();
    assert_eq!(cols, ["uid", "pwd", "fullname", "email"]);
    drop(st);
    // A second run changes nothing that is there.
    site.ok(&["db", "init"], "");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&site.db).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "the user table holds hashes: {mode:o}");
}

#[test]
fn every_verb() {
    let site = Site::sqlite(json!({}));
    site.ok(&["db", "init"], "");
    let said = site.ok(
        &[
            "users",
            "add",
            "alice",
            "cn=Alice Liddell",
            "mail=alice@example.org",
        ],
        "wonderland\n",
    );
    assert_eq!(said.trim(), "user alice added");
    let again = site.run(&["users", "add", "alice"], "x\n");
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("alice already exists"),
        "{}",
        text(&again.stderr)
    );
    let no_pw = site.run(&["users", "add", "bob"], "");
    assert!(text(&no_pw.stderr).contains("no password on standard input"));
    let bad_col = site.run(&["users", "add", "bob", "nope=1"], "pw\n");
    assert_eq!(bad_col.status.code(), Some(1), "{}", text(&bad_col.stderr));
    let usage = site.run(&["users", "frobnicate"], "");
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("usage: limette users"));

    let hash = stored(&site.db)[0].1.clone().unwrap();
    assert!(hash.starts_with("{ssha512}"), "{hash}");
    let list = site.ok(&["users", "list"], "");
    assert_eq!(list, "alice\tactive\t{ssha512}\n");
    let show: Value = serde_json::from_str(&site.ok(&["users", "show", "alice"], "")).unwrap();
    assert_eq!(
        show,
        json!({"login": "alice", "locked": false, "scheme": "{ssha512}",
        "attributes": {"login": "alice", "cn": "Alice Liddell", "mail": "alice@example.org"}})
    );

    site.ok(&["users", "lock", "alice"], "");
    assert!(stored(&site.db)[0]
        .1
        .as_deref()
        .unwrap()
        .starts_with("!{ssha512}"));
    assert!(site
        .ok(&["users", "list", "LIC"], "")
        .contains("alice\tlocked"));
    assert_eq!(
        site.ok(&["users", "list", "%"], ""),
        "",
        "wildcards are text"
    );
    site.ok(&["users", "unlock", "alice"], "");
    assert_eq!(stored(&site.db)[0].1.as_deref(), Some(hash.as_str()));

    site.ok(&["users", "passwd", "alice"], "looking-glass\n");
    assert_ne!(stored(&site.db)[0].1.as_deref(), Some(hash.as_str()));
    site.ok(
        &["users", "add", "--hash", "bob"],
        "{ssha256}LKCBHeWGBwMwPn/EcyfnooqgXZ58KfjINu5OlRn2KUYxMjM0NTY3OA==\n",
    );
    assert!(site
        .ok(&["users", "list"], "")
        .contains("bob\tactive\t{ssha256}"));
    let unchecked = site.run(
        &["users", "add", "--hash", "carol"],
        "{SSHA}RFMKYeWLidwCuUudsQKImRUtrq1zYWx0\n",
    );
    assert!(text(&unchecked.stderr).contains("{SSHA} is not one this configuration checks"));
    site.ok(&["users", "delete", "bob"], "");
    let gone = site.run(&["users", "delete", "bob"], "");
    assert!(text(&gone.stderr).contains("no user bob"));
    assert_eq!(
        site.run(&["users", "show", "bob"], "").status.code(),
        Some(1)
    );
}

#[test]
fn imports_are_all_or_nothing() {
    let site = Site::sqlite(json!({
        "dbiDynamicHashValidSaltedSchemes": "ssha256 ssha512 unixcrypt6 SSHA",
    }));
    site.ok(&["db", "init"], "");
    let dir = site.dir.path();
    let csv = dir.join("users.csv");
    std::fs::write(
        &csv,
        "login,password,cn,mail\n\
         alice,{SSHA}RFMKYeWLidwCuUudsQKImRUtrq1zYWx0,\"Liddell, Alice\",alice@example.org\n\
         bob,\"$6$abc$MtSdWSZbhct2oe.SOqOUM2M/GA/uj5.vyVtJgRHgKi9uqXuWuJqOYE7H/YlsYGVg/YYzDV0xt3fEIwYt580.5.\",Bob,\n",
    )
    .unwrap();
    let said = site.ok(&["users", "import", csv.to_str().unwrap()], "");
    assert_eq!(said.trim(), "2 users imported");
    assert!(site
        .ok(&["users", "show", "alice"], "")
        .contains("Liddell, Alice"));

    // A malformed line, a scheme not checked, a duplicate: the line is named, nothing written.
    for (body, why) in [
        ("login,password,cn\ncarol,{ssha512}AAAA,C\ndave,\"open,D\n", "line 3: a quoted field is not closed"),
        ("login,password,cn\ncarol,{md5}AAAA,C\n", "line 2: the hash scheme {md5} is not one this configuration checks"),
        ("login,password\ncarol,{SSHA}RFMKYeWLidwCuUudsQKImRUtrq1zYWx0\nalice,{SSHA}RFMKYeWLidwCuUudsQKImRUtrq1zYWx0\n", "line 3: user alice already exists"),
        ("login,password,shoe\ncarol,x\n", "line 1: the user table has no column shoe"),
        ("login,cn\ncarol,C\n", "line 1: the header lacks the password column password"),
    ] {
        std::fs::write(&csv, body).unwrap();
        let out = site.run(&["users", "import", csv.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(1), "{body}");
        assert!(text(&out.stderr).contains(why), "{body}: {}", text(&out.stderr));
        assert!(!site.ok(&["users", "list"], "").contains("carol"), "{body}");
    }

    // An LDIF export (slapcat's shape): organisational entries skipped, values folded,
    // userPassword in base64, several mails joined.
    let ldif = "version: 1\n\ndn: ou=users,dc=example,dc=com\nobjectClass: organizationalUnit\nou: users\n\n\
        dn: uid=carol,ou=users,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: carol\ncn: Carol\n  Danvers\n\
        mail: carol@example.org\nmail: cd@example.org\nuserPassword:: e1NTSEF9MHEwUWNGK0F1aVJld3UxTG1PRWVHL0w1N2NOellXeDA=\n";
    let out = site.ok(&["users", "import", "-"], ldif);
    assert_eq!(out.trim(), "1 users imported");
    let show: Value = serde_json::from_str(&site.ok(&["users", "show", "carol"], "")).unwrap();
    assert_eq!(show["attributes"]["cn"], "Carol Danvers");
    assert_eq!(
        show["attributes"]["mail"],
        "carol@example.org; cd@example.org"
    );
    assert_eq!(show["scheme"], "{SSHA}");
    let bad = site.run(
        &["users", "import", "-"],
        "dn: uid=erin,dc=x\nuid: erin\nuserPassword {SSHA}x\n",
    );
    assert!(
        text(&bad.stderr).contains("line 3: not an attribute line"),
        "{}",
        text(&bad.stderr)
    );
    let nopw = site.run(&["users", "import", "-"], "dn: uid=erin,dc=x\nuid: erin\n");
    assert!(text(&nopw.stderr).contains("line 1: entry erin has no userPassword"));
    assert_eq!(stored(&site.db).len(), 3);
}

#[test]
fn config_check_on_a_lemonldap_ng_dbi_configuration_refuses_nothing_more() {
    // The configuration LemonLDAP::NG's Debian packages install, then the same with DBI as
    // its manager writes it (SQLite, then PostgreSQL): the DBI keys add no error.
    let debian = "/var/lib/lemonldap-ng/conf/lmConf-1.json";
    let base: serde_json::Map<String, Value> =
        serde_json::from_slice(&std::fs::read(debian).expect("LemonLDAP::NG's packages")).unwrap();
    let errors = |conf: &serde_json::Map<String, Value>| {
        let dir = crate::common::TempDir::new("dbi-check");
        let db = dir.path().join("users.db");
        let mut conf = conf.clone();
        if conf.get("dbiAuthChain").is_some_and(|c| c == "SQLITE") {
            let chain = format!("dbi:SQLite:dbname={}", db.display());
            conf.insert("dbiAuthChain".into(), json!(chain));
        }
        let site = Site::with_conf(dir, db, conf);
        site.ok(&["db", "init"], "");
        let out = site.run(&["config", "check"], "");
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        let errors: Vec<String> = said
            .lines()
            .filter(|l| l.starts_with("error"))
            .map(str::to_string)
            .collect();
        errors
    };
    let before = errors(&base);
    for chain in ["SQLITE", "dbi:Pg:dbname=llng;host=/run/postgresql"] {
        let mut conf = base.clone();
        for (k, v) in json!({
            "authentication": "DBI", "userDB": "Same", "passwordDB": "DBI",
            "dbiAuthChain": chain, "dbiAuthUser": "llng", "dbiAuthPassword": "secret",
            "dbiAuthTable": "users", "dbiUserTable": "users", "dbiAuthLoginCol": "login",
            "dbiAuthPasswordCol": "password", "dbiAuthPasswordHash": "",
            "dbiDynamicHashEnabled": 1, "dbiDynamicHashValidSchemes": "sha sha256 sha512",
            "dbiDynamicHashValidSaltedSchemes": "ssha ssha256 ssha512",
            "dbiDynamicHashNewPasswordScheme": "ssha256", "dbiExportedVars": {"cn": "cn", "mail": "mail"},
            "dbiAuthnLevel": 2, "dbiMailCol": "mail", "userPivot": "login",
        })
        .as_object()
        .unwrap()
        {
            conf.insert(k.clone(), v.clone());
        }
        if chain != "SQLITE" {
            // Nothing listens there: the check warns, never refuses.
            let site = Site::with_conf(crate::common::TempDir::new("dbi-check"), "x".into(), conf);
            let out = site.run(&["config", "check"], "");
            let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert!(said.contains("cannot be read now"), "{said}");
            assert!(
                !said
                    .lines()
                    .any(|l| l.starts_with("error") && l.contains("dbi")),
                "{said}"
            );
            continue;
        }
        assert_eq!(errors(&conf), before);
    }
}
