//! One shared `key`: a node that takes its configuration and its sessions from another over
//! REST logs users in, with the key of a seeded configuration and without any key (then both
//! use LemonLDAP::NG's empty key); and LemonLDAP::NG's own REST session client, driven by a
//! Perl script, creates, reads, updates and deletes sessions on a Limette.
use super::common::sessions::cookie;
use super::common::{Portal, TempDir};
use super::JSON;
use serde_json::{json, Value};
use std::process::Command;

/// A node on `a`'s configuration (REST configuration store) and sessions (REST storage).
fn remote_node(a: &Portal) -> Portal {
    Portal::builder()
        .ini_configuration(&format!("type = REST\nbaseUrl = {}", a.url("/config/")))
        .ini("globalStorage = REST")
        .ini(&format!(
            "globalStorageOptions = {{\"baseUrl\": \"{}\", \"timeout\": 5}}",
            a.url("/sessions/global")
        ))
        .start()
}

/// A login on `b` is a session at `a`; a logout on `b` deletes it at `a`.
fn login_on_b_lives_at_a(a: &Portal, b: &Portal) {
    let id = b.login("dwho");
    let on_a = a.client().get_json(&format!("/sessions/global/{id}"));
    assert_eq!(on_a.status, 200, "{}", on_a.text());
    assert_eq!(on_a.json()["uid"], "dwho");
    let home = b.client().get("/", &[JSON, ("Cookie", &cookie(&id))]);
    assert_eq!(home.json(), json!({"result": 1, "error": "0"}));
    let out = b
        .client()
        .get("/?logout=1", &[JSON, ("Cookie", &cookie(&id))]);
    assert_eq!(out.status, 200, "{}", out.text());
    let gone = a.client().get_json(&format!("/sessions/global/{id}"));
    assert_eq!(gone.status, 404, "{}", gone.text());
    let home = b.client().get("/", &[JSON, ("Cookie", &cookie(&id))]);
    assert_eq!(home.status, 401);
}

#[test]
fn a_node_on_another_nodes_seeded_configuration_and_sessions_logs_in() {
    // A: an empty File store, seeded at first start; its REST servers on by local override.
    let dir = TempDir::new("seeded");
    let store = dir.path().join("seeded");
    let a = Portal::builder()
        .ini_configuration(&format!("type = File\ndirName = {}", store.display()))
        .ini("restSessionServer = 1")
        .ini("restConfigServer = 1")
        .data(dir)
        .start();
    assert!(a.log().contains("first start"), "{}", a.log());
    let b = remote_node(&a);
    login_on_b_lives_at_a(&a, &b);
    assert!(!b.log().contains("has no key"), "{}", b.log());
    // The REST configuration store is never written: A still holds configuration 1 alone.
    let files: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("lmConf-"))
        .collect();
    assert_eq!(files, ["lmConf-1.json"]);
}

#[test]
fn without_a_key_both_nodes_use_lemonldap_ngs_empty_key() {
    // The test configuration sets no key.
    let a = Portal::builder()
        .conf("restSessionServer", json!(1))
        .conf("restConfigServer", json!(1))
        .start();
    assert!(a.log().contains("has no key"), "{}", a.log());
    let b = remote_node(&a);
    assert!(b.log().contains("has no key"), "{}", b.log());
    login_on_b_lives_at_a(&a, &b);
}

/// Runs the LemonLDAP::NG client script against `p`; fails the test when Perl or the
/// LemonLDAP::NG modules are missing (`.ci/setup.d/llng-perl.sh` installs them).
fn llng(p: &Portal, args: &[&str]) -> (bool, String) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sessions/llng_session.pl"
    );
    let out = Command::new("perl")
        .arg(script)
        .arg(p.url(""))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("perl is required (see .ci/setup.d/llng-perl.sh)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Can't locate"),
        "LemonLDAP::NG's Perl modules are required (see .ci/setup.d/llng-perl.sh): {stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.success(), format!("{stdout}{stderr}"))
}

/// Create, read, update and delete with LemonLDAP::NG's client, each checked on Limette.
fn llng_round_trip(p: &Portal) {
    let (ok, out) = llng(p, &["create", "uid=perl", "mail=perl@example.com"]);
    assert!(ok, "{out}\n{}", p.log());
    let id = out
        .lines()
        .find_map(|l| l.strip_prefix("id="))
        .unwrap_or_else(|| panic!("no id: {out}"))
        .to_string();
    let at = format!("/sessions/global/{id}");
    let s = p.client().get_json(&at);
    assert_eq!(s.status, 200, "{}\n{}", s.text(), p.log());
    assert_eq!(
        (s.json()["uid"].clone(), s.json()["mail"].clone()),
        (json!("perl"), json!("perl@example.com"))
    );

    let (ok, out) = llng(p, &["read", &id]);
    assert!(ok, "{out}");
    let read: Value = serde_json::from_str(out.lines().next().unwrap_or_default()).unwrap();
    assert_eq!(
        (read["uid"].clone(), read["_session_id"].clone()),
        (json!("perl"), json!(id))
    );

    let (ok, out) = llng(p, &["update", &id, "mail=new@example.com"]);
    assert!(ok, "{out}");
    assert_eq!(
        p.client().get_json(&format!("{at}/mail")).json(),
        json!("new@example.com")
    );
    assert_eq!(
        p.client().get_json(&format!("{at}/uid")).json(),
        json!("perl")
    );

    let (ok, out) = llng(p, &["delete", &id]);
    assert!(ok, "{out}");
    assert_eq!(p.client().get_json(&at).status, 404);
}

#[test]
fn lemonldap_ngs_rest_session_client_works_on_limette() {
    // A seeded configuration (random key), read by LemonLDAP::NG through Limette's /config.
    let dir = TempDir::new("llng");
    let store = dir.path().join("seeded");
    let p = Portal::builder()
        .ini_configuration(&format!("type = File\ndirName = {}", store.display()))
        .ini("restSessionServer = 1")
        .ini("restConfigServer = 1")
        .data(dir)
        .start();
    llng_round_trip(&p);

    // A client with another key creates nothing.
    let (_, out) = llng(&p, &["--key", "not-the-key", "create", "uid=intruder"]);
    let id = out
        .lines()
        .find_map(|l| l.strip_prefix("id="))
        .unwrap_or_default();
    assert_eq!(id.len(), 64, "{out}");
    assert_eq!(
        p.client()
            .get_json(&format!("/sessions/global/{id}"))
            .status,
        404
    );
    assert!(p.log().contains("__secret refused"), "{}", p.log());
}

#[test]
fn lemonldap_ngs_client_and_limette_agree_without_a_key() {
    let p = Portal::builder()
        .conf("restSessionServer", json!(1))
        .conf("restConfigServer", json!(1))
        .start();
    llng_round_trip(&p);
}
