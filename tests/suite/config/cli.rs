//! `limette config` on a running server's store: export/import round trip, refusals that save
//! nothing, saves in force within 5 seconds, and eight concurrent saves. The verbs of
//! `lemonldap-ng-cli` have their own file, `llng_cli.rs`.
use super::common::config::{cli, cli_command, poll, start_on, Run, Store};
use super::{get, proxy_conf, META};
use serde_json::Value;
use std::time::Duration;

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
    let r = cli(
        &p,
        &[
            "get",
            "oidcRPMetaDataNodes/demo/oidcRPMetaDataOptionsClientID",
        ],
    );
    assert_eq!(
        r.stdout,
        "oidcRPMetaDataNodes/demo/oidcRPMetaDataOptionsClientID = demo\n"
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
    let refusals: [(&[&str], &str); 8] = [
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
        (&["export", "99"], "Configuration 99 is not available"),
    ];
    for (args, text) in refusals {
        let r = cli(&p, args);
        assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
        assert!(r.stderr.contains(text), "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
    }
    // An unknown key for get: named on stderr, exit 1, the known keys still printed.
    let r = cli(&p, &["get", "nokeyatall", "timeout"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (
            Some(1),
            "timeout = 72000\n",
            "limette config: Unknown key nokeyatall\n"
        )
    );
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
    let r = cli(&p, &["-yes", "1", "set", "cookieName", "newsso"]);
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
                &[
                    "-yes",
                    "1",
                    "set",
                    "timeout",
                    &t,
                    "--log",
                    &format!("writer {i}"),
                ],
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
            r.stderr
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

/// Issue 40, item 15: keys Limette honours with no default (`issuerDBOpenIDConnectRule`,
/// `oidcServiceAllowDynamicRegistration`, a hash of the service) answered "Unknown key".
#[test]
fn set_reaches_honoured_keys_without_a_default() {
    let p = start_on(Store::File, proxy_conf());
    // Unset, they read as what they mean unset.
    let r = cli(
        &p,
        &[
            "get",
            "issuerDBOpenIDConnectRule",
            "oidcServiceAllowDynamicRegistration",
        ],
    );
    assert_eq!(
        r.stdout,
        "issuerDBOpenIDConnectRule = 1
oidcServiceAllowDynamicRegistration = 0
",
        "{r:?}"
    );
    let r = cli(
        &p,
        &[
            "-yes",
            "1",
            "set",
            "issuerDBOpenIDConnectRule",
            "$uid ne \"guest\"",
            "oidcServiceAllowDynamicRegistration",
            "1",
            "oidcServiceDynamicRegistrationExportedVars/email",
            "mail",
        ],
    );
    assert_eq!(r.code, Some(0), "{r:?}");
    let r = cli(
        &p,
        &[
            "get",
            "issuerDBOpenIDConnectRule",
            "oidcServiceAllowDynamicRegistration",
            "oidcServiceDynamicRegistrationExportedVars/email",
        ],
    );
    assert_eq!(
        r.stdout,
        "issuerDBOpenIDConnectRule = $uid ne \"guest\"\noidcServiceAllowDynamicRegistration = 1\n\
         oidcServiceDynamicRegistrationExportedVars/email = mail\n",
        "{r:?}"
    );
    // Still refused: a key nobody knows, and one LemonLDAP::NG knows that Limette does not read.
    for (key, text) in [
        ("oidcServiceAllowDynamicRegistrationX", "Unknown key"),
        ("SMTPPort", "does not read"),
    ] {
        let r = cli(&p, &["set", key, "1"]);
        assert_eq!(r.code, Some(2), "{key}: {r:?}");
        assert!(r.stderr.contains(text), "{key}: {}", r.stderr);
    }
}
