//! The DBI store's unit tests: settings read and refused by key, every hash scheme checked
//! against vectors LemonLDAP::NG's own code made (`tests/fixtures/dbi/llng-vectors.pl make`),
//! and the `Users` API on a real SQLite file.
use super::scheme::{describe, Hashing};
use super::*;
use crate::config::AreaSettings;
use serde_json::json;

const VECTORS: &str = include_str!("../../../tests/fixtures/dbi/llng-vectors.json");

fn raw(v: Value) -> Map<String, Value> {
    crate::config::defaults::merged(v.as_object().unwrap())
}

fn sqlite_conf(path: &str, extra: Value) -> Map<String, Value> {
    let mut m = raw(json!({
        "authentication": "DBI", "userDB": "Same", "passwordDB": "DBI",
        "dbiAuthChain": format!("dbi:SQLite:dbname={path}"),
        "dbiAuthTable": "users", "dbiAuthLoginCol": "login", "dbiAuthPasswordCol": "password",
        "dbiDynamicHashEnabled": 1,
        "dbiDynamicHashValidSchemes": "sha256",
        "dbiDynamicHashValidSaltedSchemes": "ssha256 ssha512 unixcrypt6",
        "dbiDynamicHashNewPasswordScheme": "ssha512",
        "dbiExportedVars": {"cn": "cn", "email": "mail"},
    }));
    for (k, v) in extra.as_object().unwrap() {
        m.insert(k.clone(), v.clone());
    }
    m
}

fn hashing_of(conf: &Value) -> Hashing {
    let s = |k: &str| {
        conf.get(k)
            .map(crate::config::value_string)
            .unwrap_or_default()
    };
    Hashing::parse(
        s("dbiDynamicHashEnabled") == "1",
        &s("dbiAuthPasswordHash"),
        &s("dbiDynamicHashValidSchemes"),
        &s("dbiDynamicHashValidSaltedSchemes"),
        &s("dbiDynamicHashNewPasswordScheme"),
    )
    .unwrap()
}

#[test]
fn every_scheme_checks_what_lemonldap_ng_wrote() {
    let mut cases = std::collections::BTreeSet::new();
    for line in VECTORS.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let case = v["case"].as_str().unwrap();
        let (password, stored) = (
            v["password"].as_str().unwrap(),
            v["stored"].as_str().unwrap(),
        );
        let h = hashing_of(&v["conf"]);
        assert!(h.verify(stored, password), "{case}: {stored}");
        assert!(!h.verify(stored, &format!("{password}x")), "{case}");
        assert!(!h.verify(&format!("!{stored}"), password), "{case}: locked");
        // What Limette writes for the case has LemonLDAP::NG's form and checks the same way.
        let mine = h.hash_new(password).unwrap();
        assert_eq!(describe(&mine), describe(stored), "{case}");
        assert!(h.verify(&mine, password), "{case}: {mine}");
        if case != "clear" {
            assert!(h.accepts(stored).is_ok(), "{case}");
        }
        cases.insert(case.to_string());
    }
    // Every family: clear, static hex (4) and ENCRYPT, plain digests (7), salted digests (7)
    // and the three crypt families.
    assert_eq!(cases.len(), 23, "{cases:?}");
}

#[test]
fn unsalted_and_static_values_are_deterministic() {
    for line in VECTORS.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let case = v["case"].as_str().unwrap();
        let conf = &v["conf"];
        let new = conf["dbiDynamicHashNewPasswordScheme"]
            .as_str()
            .unwrap_or("");
        let valid = conf["dbiDynamicHashValidSchemes"].as_str().unwrap_or("");
        let encrypt = conf["dbiAuthPasswordHash"] == "encrypt";
        let plain = (conf["dbiDynamicHashEnabled"] == 0 && !encrypt)
            || (conf["dbiDynamicHashEnabled"] == 1 && valid.split(' ').any(|s| s == new));
        if plain {
            let h = hashing_of(&v["conf"]);
            assert_eq!(
                h.hash_new(v["password"].as_str().unwrap()).unwrap(),
                v["stored"],
                "{case}"
            );
        }
    }
}

#[test]
fn settings_read_the_keys_with_their_defaults() {
    let s = Settings::from_conf(&sqlite_conf("/tmp/x.db", json!({}))).unwrap();
    assert!(s.authentication && s.user_db && s.password_db);
    assert_eq!(s.level, 2);
    let store = s.store.as_ref().unwrap();
    assert_eq!(
        store.source,
        crate::storage::users::Source::Sqlite("/tmp/x.db".into())
    );
    assert_eq!(store.layout.pivot, "login");
    assert!(store.exported.contains(&("email".into(), "mail".into())));
    assert!(!s.clear_text());
    let off = Settings::from_conf(&raw(json!({"authentication": "Demo"}))).unwrap();
    assert!(!off.in_use());
    let lvl = Settings::from_conf(&sqlite_conf(
        "/x",
        json!({"dbiAuthnLevel": "5", "userPivot": "uid", "dbiUserTable": "people"}),
    ))
    .unwrap();
    assert_eq!(lvl.level, 5);
    let l = &lvl.store.as_ref().unwrap().layout;
    assert_eq!((l.pivot.as_str(), l.user_table.as_str()), ("uid", "people"));
}

#[test]
fn values_limette_cannot_honour_are_refused_by_key() {
    let refused = |extra: Value| Settings::from_conf(&sqlite_conf("/x", extra)).unwrap_err();
    let e = refused(json!({"dbiAuthChain": "dbi:mysql:database=llng"}));
    assert!(
        e.starts_with("dbiAuthChain: dbi:mysql:database=llng is not supported"),
        "{e}"
    );
    assert!(refused(json!({"dbiAuthChain": "/var/users.db"}))
        .starts_with("dbiAuthChain = /var/users.db"));
    assert!(refused(json!({"dbiAuthTable": ""})).starts_with("dbiAuthTable = (empty)"));
    assert!(
        refused(json!({"dbiAuthPasswordCol": "pw;--"})).starts_with("dbiAuthPasswordCol = pw;--")
    );
    assert!(refused(json!({"dbiAuthPasswordHash": "PASSWORD"}))
        .starts_with("dbiAuthPasswordHash = PASSWORD"));
    assert!(refused(json!({"dbiDynamicHashValidSchemes": "whirlpool"}))
        .starts_with("dbiDynamicHashValidSchemes = whirlpool"));
    assert!(
        refused(json!({"dbiDynamicHashValidSaltedSchemes": "bcrypt"}))
            .starts_with("dbiDynamicHashValidSaltedSchemes = bcrypt")
    );
    assert!(
        refused(json!({"dbiDynamicHashNewPasswordScheme": "ssha384"}))
            .starts_with("dbiDynamicHashNewPasswordScheme = ssha384")
    );
    assert!(
        refused(json!({"dbiDynamicHashNewPasswordScheme": "unixcrypt5"}))
            .starts_with("dbiDynamicHashNewPasswordScheme = unixcrypt5")
    );
    let clear =
        Settings::from_conf(&sqlite_conf("/x", json!({"dbiDynamicHashEnabled": 0}))).unwrap();
    assert!(clear.clear_text());
}

#[test]
fn values_shaped_like_hashes_never_match_as_clear_text() {
    let h = Hashing::parse(true, "", "", "", "").unwrap();
    assert!(h.verify("plain", "plain"));
    assert!(!h.verify("{ssha512}abc", "{ssha512}abc"));
    assert!(!h.verify("$2y$10$abcdef", "$2y$10$abcdef"));
    assert!(!h.verify("!plain", "!plain"));
    assert!(!h.verify("!plain", "plain"));
    assert_eq!(describe("!{SSHA}xyz"), "{SSHA}");
    assert_eq!(describe("$6$salt$hash"), "$6$");
    assert_eq!(describe(""), "none");
    assert_eq!(describe("hunter2"), "clear");
}

fn temp_db(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("limette-dbi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("users.db").display().to_string()
}

fn store_on(path: &str, extra: Value) -> Users {
    let s = Settings::from_conf(&sqlite_conf(path, extra)).unwrap();
    let u = Users::open_store(s.store.as_ref(), true).unwrap();
    u.create_tables(&["cn".into(), "mail".into()]).unwrap();
    u
}

#[test]
fn users_on_sqlite() {
    let path = temp_db("api");
    let u = store_on(&path, json!({}));
    assert!(u.missing_columns().unwrap().is_empty());
    let attrs = json!({"cn": "Alice", "mail": "alice@example.org"});
    u.add(
        "alice",
        Secret::Clear("wonderland".into()),
        attrs.as_object().unwrap(),
    )
    .unwrap();
    let dup = u
        .add("alice", Secret::Clear("x".into()), &Map::new())
        .unwrap_err();
    assert!(matches!(dup, Error::Conflict(_)), "{dup}");
    let got = u.check("alice", "wonderland").unwrap().unwrap();
    assert_eq!(got["mail"], "alice@example.org");
    assert!(got.get("password").is_none());
    assert!(u.check("alice", "Wonderland").unwrap().is_none());
    assert!(u.check("nobody", "wonderland").unwrap().is_none());
    let shown = u.show("alice").unwrap().unwrap();
    assert_eq!((shown.scheme.as_str(), shown.locked), ("{ssha512}", false));
    assert!(u.lock("alice", true).unwrap());
    assert!(u.check("alice", "wonderland").unwrap().is_none());
    assert!(u.set_password("alice", "looking-glass").unwrap());
    assert!(
        u.show("alice").unwrap().unwrap().locked,
        "a new password keeps the lock"
    );
    assert!(u.lock("alice", false).unwrap());
    assert!(u.check("alice", "looking-glass").unwrap().is_some());
    assert!(!u.set_password("nobody", "x").unwrap());
    assert!(!u.lock("nobody", true).unwrap());
    assert_eq!(
        u.login_of_mail("alice@example.org").unwrap(),
        None,
        "no dbiMailCol: the pivot"
    );
    u.add(
        "bob",
        Secret::Hash(
            "{ssha256}".to_string()
                + &digest::salted("x", digest::Algo::Sha256, "builder", b"12345678")[3..],
        ),
        &Map::new(),
    )
    .unwrap();
    assert!(u.check("bob", "builder").unwrap().is_some());
    let e = u
        .add("carol", Secret::Hash("{SSHA}abcd".into()), &Map::new())
        .unwrap_err();
    assert!(e.to_string().contains("{SSHA}"), "{e}");
    let list = u.list(Some("li"), 0, 10).unwrap();
    assert_eq!(
        list.iter().map(|r| r.login.as_str()).collect::<Vec<_>>(),
        ["alice"]
    );
    assert_eq!(u.list(None, 1, 10).unwrap().len(), 1);
    assert!(u.delete("alice").unwrap());
    assert!(!u.delete("alice").unwrap());
    assert!(u.show("alice").unwrap().is_none());
}

#[test]
fn a_batch_is_all_or_nothing() {
    let path = temp_db("batch");
    let u = store_on(&path, json!({}));
    u.add("bob", Secret::Clear("b".into()), &Map::new())
        .unwrap();
    let batch = vec![
        ("carol".to_string(), Secret::Clear("c".into()), Map::new()),
        ("bob".to_string(), Secret::Clear("b".into()), Map::new()),
    ];
    assert!(matches!(u.add_all(batch), Err(Error::Conflict(_))));
    assert!(u.show("carol").unwrap().is_none());
    let bad_column = vec![(
        "dave".to_string(),
        Secret::Clear("d".into()),
        json!({"nope": "x"}).as_object().unwrap().clone(),
    )];
    assert!(u.add_all(bad_column).is_err());
    assert!(u.show("dave").unwrap().is_none());
}

#[test]
fn missing_columns_and_files_are_named() {
    let path = temp_db("columns");
    store_on(&path, json!({}));
    let s = Settings::from_conf(&sqlite_conf(
        &path,
        json!({"dbiAuthPasswordCol": "pwd", "dbiMailCol": "email"}),
    ))
    .unwrap();
    let missing = Users::open(&s).unwrap().missing_columns().unwrap();
    let keys: Vec<&str> = missing.iter().map(|m| m.0).collect();
    assert_eq!(keys, ["dbiAuthPasswordCol", "dbiMailCol"]);
    let f = findings(&s);
    assert!(
        f.iter()
            .any(|(err, key, m)| *err && *key == "dbiAuthPasswordCol" && m.contains("pwd")),
        "{f:?}"
    );
    let none = Settings::from_conf(&sqlite_conf(&format!("{path}.missing"), json!({}))).unwrap();
    let e = Users::open(&none)
        .unwrap()
        .password_ok("alice", "x")
        .unwrap_err();
    assert!(matches!(e, Error::Unavailable(_)), "{e}");
    assert!(
        !std::path::Path::new(&format!("{path}.missing")).exists(),
        "nothing is created"
    );
}

#[test]
fn exports_map_defined_columns_only() {
    let row = json!({"cn": "Alice", "mail": null, "uid": "alice"});
    let vars = vec![
        ("name".to_string(), "cn".to_string()),
        ("email".into(), "mail".into()),
        ("UA".into(), "HTTP_USER_AGENT".into()),
    ];
    let out = super::module::export(row.as_object().unwrap(), &vars);
    assert_eq!(Value::Object(out), json!({"name": "Alice"}));
}
