//! A second instance on a REST configuration store: reading another Limette (and seeing its
//! saves), a LemonLDAP::NG-like remote (string numbers, cached fallback, credentials, timeout),
//! and the path prefix.
use super::common::config::FakeRemote;
use super::common::config::{cli, cli_command, conf_with, poll, start_on, Run, Store};
use super::common::{Portal, TempDir};
use super::{get, proxy_conf};
use serde_json::{json, Value};
use std::time::Duration;

#[test]
fn a_second_instance_reads_the_first_through_rest() {
    let first = start_on(Store::File, proxy_conf());
    let second = Portal::builder()
        .ini_configuration(&format!(
            "type = REST\nbaseUrl = {}\nUser = reader\nPassword = secret\nproxyOptions = {{\"timeout\": 5}}",
            first.url("/config/")
        ))
        .start();
    assert_eq!(
        get(&second, "/config/latest").json(),
        get(&first, "/config/latest").json()
    );
    assert_eq!(
        get(&second, "/config/latest/macros/UA").json(),
        json!({"value": "$ENV{HTTP_USER_AGENT}"})
    );
    let login = |p: &Portal| {
        p.client().post_form(
            "/",
            &[("user", "dwho"), ("password", "dwho")],
            &[("Accept", "application/json")],
        )
    };
    assert!(login(&second).cookie("lemonldap").is_some());

    let r = cli(
        &first,
        &[
            "-yes",
            "1",
            "set",
            "cookieName",
            "remotesso",
            "timeout",
            "4321",
        ],
    );
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(
        poll(Duration::from_secs(5), || get(&second, "/config/latest")
            .json()["cfgNum"]
            == 2),
        "the REST client did not see configuration 2: {}",
        second.log()
    );
    assert_eq!(
        get(&second, "/config/latest/timeout").json(),
        json!({"value": 4321})
    );
    assert!(
        poll(Duration::from_secs(5), || login(&second)
            .cookie("remotesso")
            .is_some()),
        "{}",
        second.log()
    );

    // Through the REST store the CLI reads, and refuses to write.
    let r = cli(&second, &["info"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stdout.starts_with("\nNum      : 2\n"), "{}", r.stdout);
    assert_eq!(cli(&second, &["get", "timeout"]).stdout, "timeout = 4321\n");
    assert_eq!(cli(&second, &["list"]).stdout.lines().count(), 2);
    let r = cli(&second, &["-yes", "1", "set", "timeout", "1"]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stderr.contains("read-only"), "{}", r.stderr);
}

#[test]
fn the_rest_client_speaks_to_lemonldap_ng_with_credentials_and_a_timeout() {
    // LemonLDAP::NG answers cfgNum as a string, and an unknown number with its cached
    // configuration: the client must not take that for the number it asked.
    let mut doc = conf_with(&[("cookieName", json!("llngsso"))]);
    doc.insert("cfgNum".into(), json!("7"));
    let body = Value::Object(doc).to_string();
    let remote = FakeRemote::start(move |path| match path {
        "/index.fcgi/config/latest" => Some((
            200,
            r#"{"cfgNum":"7","cfgDate":"1795313125","prev":6}"#.into(),
        )),
        p if p.starts_with("/index.fcgi/config/") && p.ends_with("?full=1") => {
            Some((200, body.clone()))
        }
        _ => Some((400, r#"{"error":"cfgNum must be a number"}"#.into())),
    });
    let section = format!(
        "type = REST\nbaseUrl = http://127.0.0.1:{}/index.fcgi/config\nUser = reader\nPassword = s3cret\nproxyOptions = {{\"timeout\": 2}}",
        remote.port
    );
    let p = Portal::builder().ini_configuration(&section).start();
    let r = p.client().post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho")],
        &[("Accept", "application/json")],
    );
    assert!(r.cookie("llngsso").is_some(), "{:?}", r.headers);
    let heads = remote.heads.lock().unwrap().clone();
    assert!(
        heads
            .iter()
            .any(|h| h.starts_with("GET /index.fcgi/config/7?full=1 ")),
        "{heads:?}"
    );
    // base64("reader:s3cret")
    assert!(
        heads
            .iter()
            .all(|h| h.contains("Basic cmVhZGVyOnMzY3JldA==")),
        "{heads:?}"
    );
    let r = cli(&p, &["export", "6"]);
    assert_eq!(r.code, Some(2), "{r:?}");
    assert!(
        r.stderr.contains("Configuration 6 is not available"),
        "{}",
        r.stderr
    );
    // Configuration 6, named by `prev`, is not available: the list holds 7 only.
    let r = cli(&p, &["list"]);
    assert_eq!((r.code, r.stdout.lines().count()), (Some(0), 1), "{r:?}");
    assert!(r.stdout.starts_with("7\t"), "{}", r.stdout);
    assert!(!p.log().contains("s3cret"), "the password reached the log");

    // A remote that never answers: the proxyOptions timeout bounds the wait.
    let silent = FakeRemote::start(|_| None);
    let dir = TempDir::new("silent");
    let ini = dir.path().join("limette.ini");
    let section = format!(
        "[configuration]\ntype = REST\nbaseUrl = http://127.0.0.1:{}/config\nproxyOptions = {{\"timeout\": 1}}\n",
        silent.port
    );
    std::fs::write(&ini, section).unwrap();
    let start = std::time::Instant::now();
    let r: Run = cli_command(&ini, dir.path(), &["info"])
        .output()
        .unwrap()
        .into();
    assert_eq!(r.code, Some(1), "{r:?}");
    // The silent server never answers: any end is the timeout's; the deadline only tells a
    // hang apart (speed is measured by make bench, not here).
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn the_proxy_lives_under_the_path_prefix() {
    let first = Portal::builder()
        .conf("restConfigServer", json!(1))
        .ini("pathPrefix = /index.fcgi")
        .start();
    assert_eq!(get(&first, "/index.fcgi/config/latest").json()["cfgNum"], 1);
    let second = Portal::builder()
        .ini_configuration(&format!(
            "type = REST\nbaseUrl = {}",
            first.url("/index.fcgi/config")
        ))
        .start();
    // The second one has no prefix of its own, and serves the first's configuration.
    assert_eq!(get(&second, "/config/latest").json()["cfgNum"], 1);
    assert_eq!(get(&first, "/config/latest").status, 404);
    assert_eq!(get(&second, "/index.fcgi/config/latest").status, 404);
    assert_eq!(
        cli(&second, &["get", "restConfigServer"]).stdout,
        "restConfigServer = 1\n"
    );
}

/// The first instance keeps `/config` behind `restUser`/`restPassword`: a second one whose
/// `[configuration]` names the right `User` and `Password` starts on it; with a wrong password
/// it refuses to start, saying so.
#[test]
fn the_rest_client_sends_its_credentials_to_a_credentialed_limette() {
    let mut first = Portal::builder();
    for (k, v) in proxy_conf() {
        first = first.conf(&k, v);
    }
    let first = first
        .ini("restUser = reader")
        .ini("restPassword = s3cret pass")
        .start();
    assert_eq!(get(&first, "/config/latest").status, 401);
    let section = |password: &str| {
        format!(
            "type = REST\nbaseUrl = {}\nUser = reader\nPassword = {password}\nproxyOptions = {{\"timeout\": 5}}",
            first.url("/config/")
        )
    };
    let second = Portal::builder()
        .ini_configuration(&section("s3cret pass"))
        .start();
    let r = second.client().post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho")],
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let dir = TempDir::new("wrongpw");
    let ini = dir.path().join("limette.ini");
    std::fs::write(&ini, format!("[configuration]\n{}\n", section("wrong"))).unwrap();
    let r: Run = cli_command(&ini, dir.path(), &["info"])
        .output()
        .unwrap()
        .into();
    assert_ne!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("check User and Password"), "{r:?}");
}
