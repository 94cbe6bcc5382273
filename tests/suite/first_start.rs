//! The first start and the portal URL: an empty File or SQLite store gets configuration 1 (the
//! embedded default with its own random `key`, `portal` left to the listening address), a
//! restart keeps it, `--listen` moves the issuer, the links and the cookie with it, and a
//! configured `portal` that is not the listening address is announced at start-up. A command
//! line that makes no command writes nothing, and the administration commands keep to what
//! concerns them: one line naming the problem, no warning meant for a running portal.
use crate::common;

use common::config::cli;
use common::{bin, embedded, free_port, Portal, TempDir};
use serde_json::Value;

const JSON: (&str, &str) = ("Accept", "application/json");

/// The stored configuration files of a File store, sorted.
fn conf_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("lmConf-"))
        .collect();
    names.sort();
    names
}

fn stored(dir: &std::path::Path, num: u64) -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(dir.join(format!("lmConf-{num}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn issuer(p: &Portal) -> String {
    let r = p.client().get("/.well-known/openid-configuration", &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["issuer"].as_str().unwrap().to_string()
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `limette <args>` in `dir` on the embedded default (its data folder `./limette-data`): exit
/// code and stderr.
fn limette_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = std::process::Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_command_line_that_makes_no_command_writes_nothing() {
    let dir = TempDir::new("nocmd");
    for (args, says) in [
        (&["frobnicate"][..], "limette: unknown command frobnicate\n"),
        (&["sessions", "frobnicate"], "limette sessions: usage: "),
        (&["sessions", "list", "extra"], "limette sessions: usage: "),
        (
            &["notifications", "purge-done"],
            "limette notifications: purge-done needs --before YYYY-MM-DD\n",
        ),
        (&["serve", "now"], "limette: unexpected argument now\n"),
        (
            &["config", "check", "--bogus"],
            "limette config: unknown option --bogus for check; usage: ",
        ),
    ] {
        let (code, stderr) = limette_in(dir.path(), args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with(says), "{args:?}: {stderr}");
        assert!(
            !dir.path().join("limette-data").exists(),
            "{args:?} created the data folder"
        );
    }
    // A missing -c file: one line naming it.
    let (code, stderr) = limette_in(dir.path(), &["-c", "missing.ini", "sessions", "list"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "limette: missing.ini: cannot read: No such file or directory (os error 2)\n"
    );
}

#[test]
fn administration_commands_keep_to_what_concerns_them() {
    let dir = TempDir::new("admin");
    // The first command seeds the store and says so; the demo accounts concern a running
    // portal, not a listing of sessions.
    let (code, stderr) = limette_in(dir.path(), &["sessions", "list"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("first start"), "{stderr}");
    assert!(!stderr.contains("demo accounts"), "{stderr}");
    let (code, stderr) = limette_in(dir.path(), &["notifications", "list"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    // `config check` says each disabled relying party once.
    let conf_dir = dir.path().join("limette-data/conf");
    let mut doc = stored(&conf_dir, 1);
    doc["oidcRPMetaDataOptions"]["demo"]["oidcRPMetaDataOptionsIDTokenSignAlg"] =
        Value::from("RS257");
    doc["cfgNum"] = Value::from(2);
    let text = serde_json::to_vec(&doc).unwrap();
    std::fs::write(conf_dir.join("lmConf-2.json"), text).unwrap();
    let out = std::process::Command::new(bin())
        .args(["config", "check"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(all.matches("relying party demo").count(), 1, "{all}");
    // A broken stored configuration: one error, naming it.
    std::fs::write(conf_dir.join("lmConf-3.json"), b"{ not json").unwrap();
    let (code, stderr) = limette_in(dir.path(), &["sessions", "list"]);
    assert_eq!(code, Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("lmConf-3.json"), "{stderr}");
}

#[test]
fn the_first_start_writes_the_embedded_default_with_its_own_key() {
    let (p, line) = embedded::start(TempDir::new("first"), "127.0.0.1:0", &[]);
    let url = p.url("/");
    assert!(
        line.contains(&format!("(portal {url}, from the listening address)")),
        "{line}"
    );
    assert_eq!(issuer(&p), url, "port 0: the portal is the port bound");
    assert!(p.log().contains("first start"), "{}", p.log());
    assert!(!p.log().contains("has no key"), "{}", p.log());
    let conf_dir = p.data().join("conf");
    assert_eq!(conf_files(&conf_dir), ["lmConf-1.json"]);
    let doc = stored(&conf_dir, 1);
    let key = doc["key"].as_str().unwrap().to_string();
    assert!(is_hex64(&key), "{key}");
    assert!(
        !doc.contains_key("portal"),
        "the seeded copy does not pin portal"
    );
    assert!(doc["cfgLog"].as_str().unwrap().contains("random key"));
    assert_eq!(doc["cfgNum"], 1);
    p.login("dwho");

    // A restart on the same data keeps configuration 1 and its key.
    let dir = p.stop_keep_data();
    let (p, _) = embedded::start(dir, "127.0.0.1:0", &[]);
    assert!(!p.log().contains("first start"), "{}", p.log());
    assert_eq!(conf_files(&conf_dir), ["lmConf-1.json"]);
    assert_eq!(stored(&conf_dir, 1)["key"], key.as_str());
    assert_eq!(issuer(&p), p.url("/"));

    // Another first start draws another key.
    let (other, _) = embedded::start(TempDir::new("first"), "127.0.0.1:0", &[]);
    let other_key = stored(&other.data().join("conf"), 1)["key"].clone();
    assert_ne!(other_key, key.as_str());
}

#[test]
fn listen_moves_the_issuer_the_links_and_the_cookie() {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let (p, line) = embedded::start(TempDir::new("listen"), &listen, &[]);
    let url = format!("http://{listen}/");
    assert!(line.contains(&format!("listening on http://{listen} (portal {url}")));
    assert_eq!(issuer(&p), url);
    // The links: a failed JSON login names the portal in its challenge.
    let bad = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "no")], &[JSON]);
    assert_eq!(bad.status, 401);
    assert_eq!(
        bad.header("www-authenticate"),
        Some(format!("SSO {url}").as_str())
    );
    // The cookie works on that portal.
    let ok = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    let id = ok.cookie("lemonldap").expect("SSO cookie");
    let home = p
        .client()
        .get("/", &[JSON, ("Cookie", &format!("lemonldap={id}"))]);
    assert_eq!(home.json()["result"], 1);
    assert!(
        !p.log().contains("not the listening address"),
        "{}",
        p.log()
    );
}

#[test]
fn a_configured_portal_elsewhere_is_announced_at_start_up() {
    // The test configuration pins http://127.0.0.1:8080/ while listening on another port.
    let p = Portal::start();
    // The notice follows the listening line: wait for it rather than read the log at once.
    let notice = format!(
        "the configuration sets portal http://127.0.0.1:8080/, which is not the listening address 127.0.0.1:{}: the portal announces http://127.0.0.1:8080/",
        p.port
    );
    let said = common::hostile::wait_for(std::time::Duration::from_secs(10), || {
        p.log().contains(&notice)
    });
    assert!(said, "{}", p.log());
    assert_eq!(issuer(&p), "http://127.0.0.1:8080/");
    // Where it matches, nothing is said.
    let p = Portal::builder().portal_url_matches().start();
    assert_eq!(issuer(&p), p.url("/"));
    assert!(
        !p.log().contains("not the listening address"),
        "{}",
        p.log()
    );
}

#[test]
fn an_empty_sqlite_store_named_by_an_ini_file_is_seeded_too() {
    let dir = TempDir::new("sqlseed");
    let db = dir.path().join("conf.db");
    let p = Portal::builder()
        .ini_configuration(&format!(
            "type = SQLite\ndbiChain = dbi:SQLite:dbname={}",
            db.display()
        ))
        .data(dir)
        .start();
    assert!(p.log().contains("first start"), "{}", p.log());
    assert_eq!(issuer(&p), p.url("/"));
    let r = cli(&p, &["get", "key"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    let key = r.stdout.trim().strip_prefix("key = ").unwrap_or_default();
    assert!(is_hex64(key), "{r:?}");
    let info = cli(&p, &["info"]).stdout;
    assert!(info.lines().any(|l| l == "Num      : 1"), "{info}");
    p.login("rtyler");
}

#[test]
fn config_set_portal_pins_it_in_a_running_portal() {
    let (p, _) = embedded::start(TempDir::new("pin"), "127.0.0.1:0", &[]);
    let run = |args: &[&str]| {
        std::process::Command::new(common::bin())
            .arg("--data")
            .arg(p.data())
            .arg("config")
            .args(args)
            .output()
            .unwrap()
    };
    let got = run(&["get", "portal"]);
    assert_eq!(String::from_utf8_lossy(&got.stdout), "portal = \n");
    let set = run(&["-yes", "1", "set", "portal", "http://127.0.0.1:7000/"]);
    assert!(set.status.success(), "{set:?}");
    let pinned = common::config::poll(std::time::Duration::from_secs(5), || {
        issuer(&p) == "http://127.0.0.1:7000/"
    });
    assert!(pinned, "{}", p.log());
}
