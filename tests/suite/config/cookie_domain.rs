//! A cookie domain that would lock everybody out (the portal's host neither the domain nor
//! under it) is refused by `limette config set` with the reason, saves nothing, and is reported
//! by `limette config check`; a domain that fits is saved.
use super::common::config::{cli, cli_command, conf_with, start_on, Store};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// `conf` as `lmConf-1.json` in `dir/conf` (replaced), and an INI naming it.
fn write_setup(dir: &Path, conf: &Map<String, Value>) -> PathBuf {
    let conf_dir = dir.join("conf");
    std::fs::create_dir_all(&conf_dir).unwrap();
    let text = serde_json::to_vec_pretty(&Value::Object(conf.clone())).unwrap();
    std::fs::write(conf_dir.join("lmConf-1.json"), text).unwrap();
    let ini = dir.join("limette.ini");
    let sessions = dir.join("sessions");
    std::fs::write(
        &ini,
        format!(
            "[configuration]\ntype = File\ndirName = {}\n[portal]\nlisten = 127.0.0.1:0\n\
             globalStorage = File\nglobalStorageOptions = {{\"Directory\": \"{}\"}}\n",
            conf_dir.display(),
            sessions.display()
        ),
    )
    .unwrap();
    ini
}

fn latest(p: &super::common::Portal) -> Value {
    let run = cli(p, &["export"]);
    serde_json::from_str::<Value>(&run.stdout).unwrap()["cfgNum"].clone()
}

#[test]
fn config_set_refuses_a_domain_the_portal_is_not_in() {
    // The portal is http://127.0.0.1:<port>/: an IP address takes no other domain.
    let p = start_on(Store::File, conf_with(&[]));
    let before = latest(&p);
    for args in [
        &["-yes", "1", "set", "domain", "example.org"][..],
        &["-yes", "1", "set", "domain", ".0.0.1"],
        &[
            "-yes",
            "1",
            "set",
            "portal",
            "https://auth.example.com/",
            "domain",
            "example.org",
        ],
    ] {
        let r = cli(&p, args);
        assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
        assert!(
            r.stderr.contains("would lock everybody out") && r.stderr.contains("domain ="),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(latest(&p), before);
    }
    let ok = [
        "-yes",
        "1",
        "set",
        "portal",
        "https://auth.example.com/",
        "domain",
        ".Example.COM",
    ];
    let r = cli(&p, &ok);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert_ne!(latest(&p), before);
}

#[test]
fn config_check_reports_a_domain_the_portal_is_not_in() {
    let conf = conf_with(&[
        ("portal", json!("https://auth.example.com:8443/")),
        ("domain", json!("example.org")),
    ]);
    let dir = super::common::TempDir::new("domain");
    let ini = write_setup(dir.path(), &conf);
    let run = |ini: &std::path::Path| {
        let o = cli_command(ini, dir.path(), &["check"]).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (code, out) = run(&ini);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("domain = example.org would lock everybody out")
            && out.contains("host auth.example.com"),
        "{out}"
    );
    let fine = conf_with(&[
        ("portal", json!("https://auth.example.com:8443/")),
        ("domain", json!("example.com")),
    ]);
    let ini = write_setup(dir.path(), &fine);
    let (_, out) = run(&ini);
    assert!(!out.contains("would lock everybody out"), "{out}");
}
