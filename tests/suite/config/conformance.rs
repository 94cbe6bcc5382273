//! One administrator's script run against the real `lemonldap-ng-cli` (LemonLDAP::NG 2.16, on
//! a scratch copy of its packaged configuration) and against `limette config` (on another copy,
//! with the same `lemonldap-ng.ini` apart from the folder): every step must give the same exit
//! status, the same stdout and the same saved number, and the saved documents the same values.
//! The real tool is required: without it this test fails (`.ci/setup.d/llng-cli.sh` installs
//! it).
use super::common::config::{cli_command, Run};
use super::common::TempDir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const LLNG_CLI: &str = "/usr/share/lemonldap-ng/bin/lemonldap-ng-cli";
const LLNG_CONF: &str = "/var/lib/lemonldap-ng/conf/lmConf-1.json";

/// The script: one invocation a line, options first, as administrators write them.
const SCRIPT: &[&[&str]] = &[
    &[
        "get",
        "portal",
        "timeout",
        "domain",
        "cookieName",
        "macros",
        "macros/_whatToTrace",
        "locationRules/auth.example.com",
    ],
    &[
        "-yes",
        "1",
        "-log",
        "step 1",
        "set",
        "timeout",
        "3600",
        "cookieName",
        "ssoc",
    ],
    &[
        "-log",
        "step 2",
        "addKey",
        "macros",
        "fullname",
        "$cn",
        "locationRules/auth.example.com",
        "^/adm",
        "deny",
    ],
    &["-log", "step 3", "delKey", "macros", "UA"],
    &[
        "get",
        "timeout",
        "cookieName",
        "macros",
        "macros/fullname",
        "locationRules/auth.example.com",
    ],
    &[
        "-sep",
        ",",
        "get",
        "locationRules,auth.example.com,^/adm",
        "macros,fullname",
    ],
    &["-cfgNum", "1", "get", "timeout", "cookieName"],
    &["-cfgNum", "2", "get", "timeout", "macros"],
];

/// A copy of the packaged configuration and a `lemonldap-ng.ini` naming it.
fn scratch(tag: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(tag);
    let conf = dir.path().join("conf");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::copy(LLNG_CONF, conf.join("lmConf-1.json")).unwrap();
    let ini = dir.path().join("lemonldap-ng.ini");
    std::fs::write(
        &ini,
        format!(
            "[all]\nlogLevel = error\n[configuration]\ntype = File\ndirName = {}\n\
             [portal]\ntemplateDir = /usr/share/lemonldap-ng/portal/templates\n\
             [manager]\ntemplateDir = /usr/share/lemonldap-ng/manager/htdocs/templates\n\
             enabledModules = conf\n",
            conf.display()
        ),
    )
    .unwrap();
    // The real tool drops to www-data when started as root: let it write its copy.
    for p in [dir.path(), &conf, &conf.join("lmConf-1.json")] {
        let _ = Command::new("chmod").arg("a+rwX").arg(p).status();
    }
    (dir, ini)
}

fn llng(ini: &Path, args: &[&str]) -> Run {
    Command::new(LLNG_CLI)
        .env("LLNG_DEFAULTCONFFILE", ini)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{LLNG_CLI}: {e}"))
        .into()
}

/// The `Saved under number N` of a run's stderr.
fn saved_number(r: &Run) -> Option<u64> {
    r.stderr
        .lines()
        .find_map(|l| l.strip_prefix("Saved under number "))
        .and_then(|n| n.trim().parse().ok())
}

/// Values as text, as LemonLDAP::NG stores what the CLI sets (`"3600"`) and Limette types it.
fn as_text(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::from(n.to_string()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), as_text(v))).collect()),
        other => other.clone(),
    }
}

#[test]
fn an_admin_script_gives_the_same_results_with_lemonldap_ng_cli_and_limette() {
    assert!(
        Path::new(LLNG_CLI).exists() && Path::new(LLNG_CONF).exists(),
        "{LLNG_CLI} and {LLNG_CONF} are required: install the Debian package lemonldap-ng \
         (.ci/setup.d/llng-cli.sh)"
    );
    let (real_dir, real_ini) = scratch("llng-real");
    let (ours_dir, ours_ini) = scratch("llng-ours");
    let ours = |args: &[&str]| -> Run {
        cli_command(&ours_ini, ours_dir.path(), args)
            .output()
            .unwrap()
            .into()
    };
    let mut printed = String::new();
    for args in SCRIPT {
        let (r, o) = (llng(&real_ini, args), ours(args));
        printed.push_str(&r.stdout);
        assert_eq!(
            r.code == Some(0),
            o.code == Some(0),
            "{args:?}\nreal: {r:?}\nours: {o:?}"
        );
        assert_eq!(o.stdout, r.stdout, "{args:?}\nreal stderr: {}", r.stderr);
        assert_eq!(
            saved_number(&o),
            saved_number(&r),
            "{args:?}\nreal: {r:?}\nours: {o:?}"
        );
    }
    // The script did print and save (both tools silent would compare equal).
    for expected in [
        "timeout = 72000\n",
        "macros/fullname = $cn\n",
        "macros,fullname = $cn\n",
    ] {
        assert!(printed.contains(expected), "{expected:?} not in {printed}");
    }
    // info: the same number and log (author, date and version differ by nature).
    let (r, o) = (llng(&real_ini, &["info"]), ours(&["info"]));
    let pick = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.is_empty() || l.starts_with("Num ") || l.starts_with("Log "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(pick(&o.stdout), pick(&r.stdout));
    assert_eq!(pick(&o.stdout), ["", "Num      : 4", "Log      : step 3"]);
    // save: the same document where the script changed it, in the same layout.
    let (r, o) = (llng(&real_ini, &["save"]), ours(&["save"]));
    assert_eq!((r.code, o.code), (Some(0), Some(0)), "{r:?}\n{o:?}");
    let real: Value = serde_json::from_str(&r.stdout).unwrap();
    let mine: Value = serde_json::from_str(&o.stdout).unwrap();
    for key in [
        "timeout",
        "cookieName",
        "macros",
        "locationRules",
        "cfgLog",
        "portal",
    ] {
        assert_eq!(as_text(&mine[key]), as_text(&real[key]), "{key}");
    }
    let line = |t: &str, key: &str| {
        t.lines()
            .find(|l| l.starts_with(&format!("   \"{key}\":")))
            .map(str::to_string)
    };
    for key in ["cookieName", "portal", "cfgLog"] {
        assert_eq!(line(&o.stdout, key), line(&r.stdout, key), "{key}");
    }
    drop(real_dir);
}
