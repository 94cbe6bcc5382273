//! The configuration area, seen by its users: the REST configuration proxy (every row of the
//! contract's configuration section, on the File and the SQLite stores), the error references
//! and language files, a second instance reading the first through the REST configuration
//! client, and the `limette config` command line (round trip, refusals, concurrent saves,
//! saves taking effect in a running server).
mod common;

use common::config::{cli, cli_command, conf_with, poll, start_on, Run, Store};
use common::{Portal, Resp};
use serde_json::{json, Map, Value};
use std::time::Duration;

const META: [&str; 6] = [
    "cfgNum",
    "cfgAuthor",
    "cfgAuthorIP",
    "cfgDate",
    "cfgLog",
    "cfgVersion",
];

fn get(p: &Portal, path: &str) -> Resp {
    p.client().get_json(path)
}

fn proxy_conf() -> Map<String, Value> {
    conf_with(&[
        ("restConfigServer", json!(1)),
        ("macros", json!({"UA": "$ENV{HTTP_USER_AGENT}", "A": "1"})),
    ])
}

fn assert_error(r: &Resp, status: u16, text: &str) {
    assert_eq!(r.status, status, "{}", r.text());
    assert_eq!(r.json(), json!({ "error": text }));
    assert!(r.header("cache-control").unwrap_or("").contains("no-store"));
}

/// Every row of the contract's configuration section, on one store.
fn contract_rows(store: Store) {
    let p = start_on(store, proxy_conf());
    // Metadata of the only configuration: integers, no neighbours.
    let m = get(&p, "/config/latest");
    assert_eq!(m.status, 200, "{}", m.text());
    assert!(m.header("cache-control").unwrap().contains("no-store"));
    let m = m.json();
    assert_eq!(m["cfgNum"], 1);
    assert!(m["cfgDate"].is_i64(), "{m}");
    for k in META {
        assert!(m.get(k).is_some(), "{k} missing in {m}");
    }
    assert!(m.get("prev").is_none() && m.get("next").is_none(), "{m}");

    // A second configuration, saved by the CLI: metadata stamped, prev/next as integers.
    let r = cli(&p, &["set", "timeout", "1234", "--log", "second one"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (Some(0), "Saved under number 2\n"),
        "{r:?}"
    );
    let latest = get(&p, "/config/latest").json();
    assert_eq!(latest["cfgNum"], 2);
    assert_eq!(latest["prev"], 1);
    assert!(latest.get("next").is_none());
    assert_eq!(latest["cfgLog"], "second one");
    assert_eq!(latest["cfgAuthorIP"], "127.0.0.1");
    assert!(!latest["cfgAuthor"].as_str().unwrap().is_empty());
    assert_eq!(latest["cfgVersion"], env!("CARGO_PKG_VERSION"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(
        (latest["cfgDate"].as_i64().unwrap() - now).abs() < 60,
        "{latest}"
    );
    assert_eq!(get(&p, "/config/2").json(), latest);
    let first = get(&p, "/config/1").json();
    assert_eq!(
        (first["cfgNum"].clone(), first["next"].clone()),
        (json!(1), json!(2))
    );
    assert!(first.get("prev").is_none());

    // Numbers that do not name a configuration.
    assert_error(
        &get(&p, "/config/99"),
        404,
        "Configuration 99 is not available",
    );
    assert_error(
        &get(&p, "/config/99?full=1"),
        404,
        "Configuration 99 is not available",
    );
    assert_error(
        &get(&p, "/config/99/portal"),
        404,
        "Configuration 99 is not available",
    );
    assert_error(&get(&p, "/config/abc"), 400, "cfgNum must be a number");
    assert_error(&get(&p, "/config"), 400, "Missing configuration number");
    assert_error(&get(&p, "/config/"), 400, "Missing configuration number");

    // Keys, with defaults merged.
    assert_eq!(
        get(&p, "/config/latest/portal").json(),
        json!({"value": "http://127.0.0.1:8080/"})
    );
    assert_eq!(get(&p, "/config/1/timeout").json(), json!({"value": 72000}));
    assert_eq!(get(&p, "/config/2/timeout").json(), json!({"value": 1234}));
    assert_eq!(
        get(&p, "/config/latest/notificationWildcard").json(),
        json!({"value": "allusers"})
    );
    assert_error(
        &get(&p, "/config/latest/nokeyatall"),
        404,
        "Unknown key nokeyatall",
    );
    assert_error(
        &get(&p, "/config/latest/macros/nope"),
        404,
        "Unknown key macros/nope",
    );
    assert_eq!(
        get(&p, "/config/latest/macros").json(),
        json!([
            {"id": "macros/A", "title": "A", "type": "keyText", "data": "1"},
            {"id": "macros/UA", "title": "UA", "type": "keyText", "data": "$ENV{HTTP_USER_AGENT}"}
        ])
    );
    assert_eq!(
        get(&p, "/config/latest/macros/UA").json(),
        json!({"value": "$ENV{HTTP_USER_AGENT}"})
    );
    assert_error(
        &get(&p, "/config/latest/portal/x"),
        400,
        "Key portal is not a hash",
    );
    assert_eq!(
        get(&p, "/config/latest/locationRules").json(),
        json!({"value": {"127.0.0.1": {"(?#admin)^/admin": "inGroup(\"timelords\")", "default": "accept"}}})
    );
    assert_eq!(
        get(&p, "/config/latest/virtualHosts").json(),
        json!([{"id": "virtualHosts/127.0.0.1", "title": "127.0.0.1", "type": "virtualHost", "template": "virtualHost"}])
    );
    assert_eq!(
        get(&p, "/config/latest/oidcRPMetaDataNodes").json()[0]["id"],
        "oidcRPMetaDataNodes/demo"
    );
    assert_eq!(
        get(
            &p,
            "/config/latest/oidcRPMetaDataNodes/demo/oidcRPMetaDataOptionsClientID"
        )
        .json(),
        json!({"value": "demo"})
    );

    // The full document: defaults merged, sorted, 3-space indent, as an attachment.
    let full = get(&p, "/config/latest?full=1");
    assert_eq!(full.status, 200);
    assert_eq!(
        full.header("content-disposition"),
        Some("Attachment; filename=lmConf-2.json")
    );
    let text = full.text();
    assert!(
        text.starts_with("{\n   \"") && !text.starts_with("{\n    "),
        "not a 3-space indent: {text}"
    );
    let doc = full.json();
    assert_eq!(
        (doc["cfgNum"].clone(), doc["timeout"].clone()),
        (json!(2), json!(1234))
    );
    assert_eq!(doc["notificationWildcard"], "allusers");
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(
        get(&p, "/config/1?full=1").header("content-disposition"),
        Some("Attachment; filename=lmConf-1.json")
    );
    for q in ["?full", "?full=0", "?full=no"] {
        let r = get(&p, &format!("/config/latest{q}"));
        assert!(r.header("content-disposition").is_none(), "{q}");
        assert_eq!(r.json(), latest, "{q}");
    }
    // Read-only.
    let r = p.client().send(
        "POST",
        "/config/latest",
        &[("Accept", "application/json")],
        b"",
    );
    assert_eq!(r.status, 405);
}

#[test]
fn proxy_follows_the_contract_on_the_file_store() {
    contract_rows(Store::File);
}

#[test]
fn proxy_follows_the_contract_on_the_sqlite_store() {
    contract_rows(Store::Sqlite);
}

#[test]
fn proxy_is_off_unless_rest_config_server_is_set() {
    let p = Portal::start();
    assert_error(&get(&p, "/config/latest"), 404, "Not found");
    // The error references are public.
    assert_eq!(get(&p, "/error").status, 200);
}

#[test]
fn error_references_point_at_the_language_files() {
    let p = start_on(Store::File, proxy_conf());
    assert_eq!(
        get(&p, "/error/fr/5").json(),
        json!({"result": 1, "lang": "fr", "errorNum": "5", "errorMsgRef": "PE5",
               "errorsFileURL": "/static/languages/fr.json"})
    );
    let all = json!({"result": 1, "lang": "en", "errorNum": "all", "errorsFileURL": "/static/languages/en.json"});
    assert_eq!(get(&p, "/error/en").json(), all);
    assert_eq!(get(&p, "/error").json(), all);
    assert_eq!(get(&p, "/error/xx/9999").json()["errorMsgRef"], "PE9999");
    assert_eq!(get(&p, "/error/%3Cb%3E").status, 400);
    for (lang, pe5) in [
        ("en", "Wrong username or password"),
        ("fr", "Identifiant ou mot de passe incorrect"),
    ] {
        let file = get(&p, &format!("/static/languages/{lang}.json"));
        assert_eq!(file.status, 200);
        assert_eq!(file.json()["PE5"], pe5);
    }
    // The portal's own pages take their text from the same files.
    let en = get(&p, "/static/languages/en.json").json();
    let r = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "bad")], &[]);
    let page = r.text();
    let shown = en
        .as_object()
        .unwrap()
        .iter()
        .any(|(k, v)| k.starts_with("PE") && page.contains(v.as_str().unwrap()));
    assert!(shown, "no message of en.json on the page: {page}");
}

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
        &["set", "cookieName", "remotesso", "timeout", "4321"],
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
    assert!(r.stdout.starts_with("Num      : 2\n"), "{}", r.stdout);
    assert_eq!(cli(&second, &["get", "timeout"]).stdout, "timeout = 4321\n");
    assert_eq!(cli(&second, &["list"]).stdout.lines().count(), 2);
    let r = cli(&second, &["set", "timeout", "1"]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stderr.contains("read-only"), "{}", r.stderr);
}

fn without_meta(v: &Value) -> Value {
    let mut m = v.as_object().unwrap().clone();
    for k in META {
        m.remove(k);
    }
    Value::Object(m)
}

fn cli_round_trip(store: Store) {
    let p = start_on(store, proxy_conf());
    let exported = cli(&p, &["export"]);
    assert_eq!(exported.code, Some(0), "{exported:?}");
    let one: Value = serde_json::from_str(&exported.stdout).unwrap();
    assert_eq!(one["cfgNum"], 1);
    let file = p.data().join("export.json");
    std::fs::write(&file, &exported.stdout).unwrap();
    let r = cli(&p, &["import", file.to_str().unwrap(), "--log", "restored"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (Some(0), "Saved under number 2\n"),
        "{r:?}"
    );
    let two: Value = serde_json::from_str(&cli(&p, &["export", "2"]).stdout).unwrap();
    assert_eq!(two["cfgNum"], 2);
    assert_eq!(two["cfgLog"], "restored");
    assert_eq!(without_meta(&two), without_meta(&one));
    assert_eq!(
        serde_json::from_str::<Value>(&cli(&p, &["export", "1"]).stdout).unwrap(),
        one
    );

    let r = cli(&p, &["get", "timeout", "macros/UA", "notificationWildcard"]);
    assert_eq!(
        r.stdout,
        "timeout = 72000\nmacros/UA = $ENV{HTTP_USER_AGENT}\nnotificationWildcard = allusers\n"
    );
    let r = cli(&p, &["info"]);
    assert!(
        r.stdout.contains("Num      : 2\n") && r.stdout.contains("Log      : restored\n"),
        "{}",
        r.stdout
    );
    let list = cli(&p, &["list"]).stdout;
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(
        list.lines().nth(1).unwrap().starts_with("2\t") && list.ends_with("\trestored\n"),
        "{list}"
    );

    // Refusals: exit 2, one clear line, nothing saved.
    let bad = p.data().join("bad.json");
    std::fs::write(&bad, "{not json").unwrap();
    let refusals: [(&[&str], &str); 9] = [
        (
            &["set", "timeout", "soon"],
            "timeout expects a non-negative integer, got \"soon\"",
        ),
        (
            &["set", "--", "timeout", "-1"],
            "timeout expects a non-negative integer",
        ),
        (&["set", "nokeyatall", "1"], "Unknown key nokeyatall"),
        (&["set", "portal", "ftp://x"], "portal: not an http URL"),
        (
            &["set", "cfgNum", "7"],
            "cfgNum is set when the configuration is saved",
        ),
        (&["set", "timeout"], "set expects KEY VALUE pairs"),
        (&["import", bad.to_str().unwrap()], "invalid JSON"),
        (&["get", "nokeyatall"], "Unknown key nokeyatall"),
        (&["export", "99"], "Configuration 99 is not available"),
    ];
    for (args, text) in refusals {
        let r = cli(&p, args);
        assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
        assert!(r.stderr.contains(text), "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
    }
    assert_eq!(
        cli(&p, &["list"]).stdout,
        list,
        "a refused command saved something"
    );
}

#[test]
fn cli_round_trips_and_refuses_bad_input_on_the_file_store() {
    cli_round_trip(Store::File);
}

#[test]
fn cli_round_trips_and_refuses_bad_input_on_the_sqlite_store() {
    cli_round_trip(Store::Sqlite);
}

fn set_is_in_force_and_saves_do_not_collide(store: Store) {
    let p = start_on(store, proxy_conf());
    let login = || {
        p.client().post_form(
            "/",
            &[("user", "dwho"), ("password", "dwho")],
            &[("Accept", "application/json")],
        )
    };
    assert!(login().cookie("lemonldap").is_some());
    let r = cli(&p, &["set", "cookieName", "newsso"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(
        poll(Duration::from_secs(5), || login()
            .cookie("newsso")
            .is_some()),
        "{}",
        p.log()
    );

    // Eight concurrent CLI processes: eight distinct consecutive numbers, eight intact documents.
    let ini = p.data().join("limette.ini");
    let children: Vec<_> = (0..8)
        .map(|i| {
            let t = (1000 + i).to_string();
            cli_command(
                &ini,
                p.data(),
                &["set", "timeout", &t, "--log", &format!("writer {i}")],
            )
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut nums: Vec<u64> = children
        .into_iter()
        .map(|c| {
            let r: Run = c.wait_with_output().unwrap().into();
            assert_eq!(r.code, Some(0), "{r:?}");
            r.stdout
                .trim()
                .strip_prefix("Saved under number ")
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    nums.sort_unstable();
    assert_eq!(nums, (3..=10).collect::<Vec<u64>>());
    let mut logs = Vec::new();
    for n in 3..=10 {
        let doc: Value =
            serde_json::from_str(&cli(&p, &["export", &n.to_string()]).stdout).unwrap();
        assert_eq!(doc["cfgNum"], n);
        assert_eq!(doc["cookieName"], "newsso");
        logs.push(doc["cfgLog"].as_str().unwrap().to_string());
    }
    logs.sort();
    assert_eq!(
        logs,
        (0..8).map(|i| format!("writer {i}")).collect::<Vec<_>>()
    );
    if store == Store::File {
        let names: Vec<String> = std::fs::read_dir(p.data().join("conf"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 10, "stray files: {names:?}");
    }
    assert!(poll(Duration::from_secs(5), || get(&p, "/config/latest")
        .json()["cfgNum"]
        == 10));
}

#[test]
fn set_is_in_force_and_concurrent_saves_on_the_file_store() {
    set_is_in_force_and_saves_do_not_collide(Store::File);
}

#[test]
fn set_is_in_force_and_concurrent_saves_on_the_sqlite_store() {
    set_is_in_force_and_saves_do_not_collide(Store::Sqlite);
}

#[test]
fn the_rest_client_speaks_to_lemonldap_ng_with_credentials_and_a_timeout() {
    // LemonLDAP::NG answers cfgNum as a string, and an unknown number with its cached
    // configuration: the client must not take that for the number it asked.
    let mut doc = conf_with(&[("cookieName", json!("llngsso"))]);
    doc.insert("cfgNum".into(), json!("7"));
    let body = Value::Object(doc).to_string();
    let remote = common::config::FakeRemote::start(move |path| match path {
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
    assert!(!p.log().contains("s3cret"), "the password reached the log");

    // A remote that never answers: the proxyOptions timeout bounds the wait.
    let silent = common::config::FakeRemote::start(|_| None);
    let dir = common::TempDir::new("silent");
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
    assert!(
        start.elapsed() < Duration::from_secs(5),
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
