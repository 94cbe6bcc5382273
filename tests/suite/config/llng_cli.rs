//! The verbs of `lemonldap-ng-cli` on `limette config`, as an administrator's script sees them:
//! `get`'s formats and its unknown keys (exit 1, the others still printed), every verb's own
//! `--help`, `set`/`addKey`/`delKey` saving new numbers with the `-log` text, `set`'s
//! confirmation prompt, `save` then `restore` round trips, and the options Limette refuses.
//! Each test runs the real binary on its own File store, no server needed.
use super::common::config::{cli_command, conf_with, Run};
use super::common::TempDir;
use super::META;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;

/// A File store holding one configuration, and the INI file naming it.
pub struct Scratch {
    pub dir: TempDir,
    pub ini: PathBuf,
}

impl Scratch {
    /// `conf` saved as number 1.
    pub fn new(mut conf: Map<String, Value>) -> Scratch {
        let dir = TempDir::new("llngcli");
        let store = dir.path().join("conf");
        std::fs::create_dir_all(&store).unwrap();
        conf.insert("cfgNum".into(), json!(1));
        let text = serde_json::to_string(&conf).unwrap();
        std::fs::write(store.join("lmConf-1.json"), text).unwrap();
        let ini = dir.path().join("limette.ini");
        let section = format!(
            "[configuration]\ntype = File\ndirName = {}\n",
            store.display()
        );
        std::fs::write(&ini, section).unwrap();
        Scratch { dir, ini }
    }

    /// `limette -c <ini> config <args>`, stdin closed.
    pub fn run(&self, args: &[&str]) -> Run {
        cli_command(&self.ini, self.dir.path(), args)
            .output()
            .unwrap()
            .into()
    }

    /// The same with `input` on stdin.
    pub fn run_with(&self, args: &[&str], input: &str) -> Run {
        let mut child = cli_command(&self.ini, self.dir.path(), args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A command that ends before reading its input (it refused an option, or did not ask)
        // closes the pipe: a broken pipe here is that command's answer, not a test failure.
        if let Err(e) = child.stdin.take().unwrap().write_all(input.as_bytes()) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        child.wait_with_output().unwrap().into()
    }

    /// Configuration `n` as `export` gives it.
    pub fn doc(&self, n: u64) -> Value {
        let r = self.run(&["export", &n.to_string()]);
        assert_eq!(r.code, Some(0), "{r:?}");
        serde_json::from_str(&r.stdout).unwrap()
    }

    /// How many configurations the store holds.
    pub fn count(&self) -> usize {
        self.run(&["list"]).stdout.lines().count()
    }
}

fn scratch() -> Scratch {
    Scratch::new(conf_with(&[(
        "macros",
        json!({"UA": "$ENV{HTTP_USER_AGENT}", "_whatToTrace": "$uid"}),
    )]))
}

fn without_meta(v: &Value) -> Value {
    let mut m = v.as_object().unwrap().clone();
    for k in META {
        m.remove(k);
    }
    Value::Object(m)
}

#[test]
fn get_prints_like_lemonldap_ng_cli_and_names_unknown_keys() {
    let s = scratch();
    let r = s.run(&[
        "get",
        "timeout",
        "macros",
        "nokeyatall",
        "macros/nope",
        "portal/x",
        "notificationWildcard",
        "locationRules/127.0.0.1",
    ]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert_eq!(
        r.stdout,
        "timeout = 72000\nmacros has the following keys:\n   UA\n   _whatToTrace\n\
         notificationWildcard = allusers\nlocationRules/127.0.0.1 has the following keys:\n   (?#admin)^/admin\n   default\n"
    );
    assert_eq!(
        r.stderr,
        "limette config: Unknown key nokeyatall\nlimette config: Unknown key macros/nope\n\
         limette config: Unknown key portal/x\n"
    );
    let r = s.run(&["-sep", ",", "get", "macros,UA", "cookieName"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (
            Some(0),
            "macros,UA = $ENV{HTTP_USER_AGENT}\ncookieName = lemonldap\n",
            ""
        )
    );
    let r = s.run(&["get"]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr.contains("get requires at least one key"),
        "{}",
        r.stderr
    );
}

#[test]
fn every_verb_has_its_own_help() {
    let s = scratch();
    let verbs = [
        ("info", ""),
        ("get", " KEY [KEY...]"),
        ("set", " KEY VALUE [KEY VALUE...]"),
        ("addKey", " KEY SUBKEY VALUE [KEY SUBKEY VALUE...]"),
        ("delKey", " KEY SUBKEY [KEY SUBKEY...]"),
        ("save", ""),
        ("restore", " FILE|-"),
        ("list", ""),
        ("export", " [N]"),
        ("import", " FILE|-"),
    ];
    for (verb, shape) in verbs {
        let r = s.run(&[verb, "--help"]);
        assert_eq!((r.code, r.stderr.as_str()), (Some(0), ""), "{verb}: {r:?}");
        let first = format!("Usage: limette config [OPTIONS] {verb}{shape}\n");
        assert!(r.stdout.starts_with(&first), "{verb}: {}", r.stdout);
        assert!(r.stdout.contains("-yes 0|1"), "{verb}: {}", r.stdout);
    }
    // Help of a verb with its arguments, and the general help: nothing is run.
    assert_eq!(s.run(&["set", "timeout", "5", "-h"]).code, Some(0));
    let all = s.run(&["--help"]);
    assert_eq!(all.code, Some(0));
    for (verb, _) in verbs {
        assert!(
            all.stdout.contains(&format!("\n  {verb} ")),
            "{verb}: {}",
            all.stdout
        );
    }
    assert_eq!(s.count(), 1);
}

#[test]
fn set_add_and_delete_save_new_numbers_with_the_log_text() {
    let s = scratch();
    let r = s.run(&[
        "-yes",
        "1",
        "-log",
        "shorter",
        "set",
        "timeout",
        "3600",
        "cookieName",
        "mysso",
    ]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (Some(0), "", "Saved under number 2\n")
    );
    let r = s.run(&["get", "timeout", "cookieName"]);
    assert_eq!(r.stdout, "timeout = 3600\ncookieName = mysso\n");
    assert_eq!(s.doc(2)["cfgLog"], "shorter");
    assert_eq!(s.doc(2)["timeout"], 3600);

    let r = s.run(&[
        "-log",
        "more rules",
        "addKey",
        "macros",
        "fullname",
        "$cn",
        "locationRules/new.example.com",
        "default",
        "deny",
    ]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(0), "Saved under number 3\n")
    );
    let r = s.run(&[
        "get",
        "macros/fullname",
        "locationRules/new.example.com/default",
    ]);
    assert_eq!(
        r.stdout,
        "macros/fullname = $cn\nlocationRules/new.example.com/default = deny\n"
    );
    let three = s.doc(3);
    assert_eq!(three["cfgLog"], "more rules");
    assert_eq!(
        three["locationRules"]["127.0.0.1"],
        s.doc(1)["locationRules"]["127.0.0.1"]
    );

    let r = s.run(&["delKey", "macros", "fullname", "--log", "gone"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(0), "Saved under number 4\n")
    );
    let r = s.run(&["get", "macros/fullname", "macros/UA"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "macros/UA = $ENV{HTTP_USER_AGENT}\n");
    let info = s.run(&["info"]).stdout;
    assert!(info.starts_with("\nNum      : 4\n"), "{info}");
    assert!(info.contains("\nLog      : gone\n"), "{info}");
    assert!(info.contains("\nAuthor IP: 127.0.0.1\n"), "{info}");

    // -cfgNum reads an older number.
    assert_eq!(
        s.run(&["-cfgNum", "2", "get", "cookieName"]).stdout,
        "cookieName = mysso\n"
    );
    assert!(s
        .run(&["-cfgNum", "1", "info"])
        .stdout
        .starts_with("\nNum      : 1\n"));
    assert_eq!(s.count(), 4);
}

#[test]
fn set_asks_for_confirmation_unless_yes() {
    let s = scratch();
    for input in ["n\n", "", "yes please\n"] {
        let r = s.run_with(&["set", "timeout", "60"], input);
        assert_eq!(r.code, Some(1), "{input:?}: {r:?}");
        assert!(
            r.stdout.starts_with(
                "Proposed changes:\nKey                       | Old value                 | New value                \n\
                 timeout                   | 72000                     | 60                       \nConfirm (N/y)? "
            ),
            "{}",
            r.stdout
        );
        assert_eq!(r.stderr, "limette config: Aborting: nothing saved\n");
        assert_eq!(s.count(), 1, "{input:?} saved something");
    }
    let r = s.run_with(&["set", "timeout", "60"], "y\n");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(0), "Saved under number 2\n")
    );
    assert_eq!(s.doc(2)["timeout"], 60);
    // A change that cannot be saved is refused before the question.
    let r = s.run_with(&["set", "portal", "ftp://x"], "y\n");
    assert_eq!((r.code, r.stdout.as_str()), (Some(2), ""));
    assert_eq!(s.count(), 2);
}

#[test]
fn set_shows_no_secret_in_its_proposed_changes() {
    let s = scratch();
    let key = "oidcRPMetaDataOptions/demo/oidcRPMetaDataOptionsClientSecret";
    let r = s.run_with(&["set", key, "typed-new-secret", "timeout", "60"], "n\n");
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stdout.starts_with("Proposed changes:"), "{}", r.stdout);
    assert!(
        r.stdout.contains(key) && r.stdout.contains("(secret)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("| 72000"), "{}", r.stdout);
    for secret in ["demosecret", "typed-new-secret"] {
        assert!(!r.stdout.contains(secret), "{secret}: {}", r.stdout);
    }
}

#[test]
fn save_then_restore_round_trips() {
    let s = scratch();
    let saved = s.run(&["save"]);
    assert_eq!(saved.code, Some(0), "{saved:?}");
    // Perl JSON's indent + canonical: three spaces, no space after the colon, keys sorted.
    assert!(saved.stdout.starts_with("{\n   \""), "{}", saved.stdout);
    assert!(
        saved.stdout.contains("\n   \"cfgNum\":1,\n"),
        "{}",
        saved.stdout
    );
    assert!(
        saved
            .stdout
            .contains("\n   \"macros\":{\n      \"UA\":\"$ENV{HTTP_USER_AGENT}\",\n"),
        "{}",
        saved.stdout
    );
    let keys: Vec<&str> = saved
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("   \"").and_then(|l| l.split('"').next()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    let one: Value = serde_json::from_str(&saved.stdout).unwrap();
    assert_eq!(one, s.doc(1));

    let file = s.dir.path().join("backup.json");
    std::fs::write(&file, &saved.stdout).unwrap();
    let r = s.run(&["-log", "back", "restore", file.to_str().unwrap()]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (Some(0), "", "Saved under number 2\n")
    );
    assert_eq!(without_meta(&s.doc(2)), without_meta(&one));
    assert_eq!(s.doc(2)["cfgLog"], "back");
    let r = s.run_with(&["restore", "-"], &saved.stdout);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(0), "Saved under number 3\n")
    );
    assert_eq!(without_meta(&s.doc(3)), without_meta(&one));
    assert_eq!(
        s.run(&["-cfgNum", "1", "save"]).stdout,
        saved.stdout,
        "save -cfgNum 1 is the first document"
    );

    let bad = s.dir.path().join("bad.json");
    std::fs::write(&bad, "{not json").unwrap();
    for file in [bad.to_str().unwrap(), "/nonexistent/lmConf.json"] {
        let r = s.run(&["restore", file]);
        assert_eq!(r.code, Some(2), "{r:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
    assert_eq!(s.count(), 3);
}

#[test]
fn options_limette_cannot_honour_are_refused_and_nothing_is_saved() {
    let s = scratch();
    assert_eq!(s.run(&["-yes", "1", "set", "timeout", "5"]).code, Some(0));
    let refusals: [(&[&str], &str); 9] = [
        (
            &["-force", "1", "-cfgNum", "1", "set", "timeout", "6"],
            "-force 1 is not supported",
        ),
        (
            &["-safe", "0", "-yes", "1", "set", "timeout", "6"],
            "-safe 0 is not supported",
        ),
        (
            &["-yes", "1", "-cfgNum", "1", "set", "timeout", "6"],
            "-cfgNum 1 is not the latest configuration (2)",
        ),
        (&["--user=root", "info"], "--user is not supported"),
        (&["-format", "%s", "info"], "-format is not supported"),
        (&["-frob", "1", "info"], "unknown option -frob"),
        (&["-yes", "2", "info"], "option -yes expects 0 or 1"),
        (
            &["-cfgNum", "7", "get", "timeout"],
            "Configuration 7 is not available",
        ),
        (
            &["addKey", "portal", "x", "1"],
            "portal is not a simple hash",
        ),
    ];
    for (args, text) in refusals {
        let r = s.run(args);
        assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
        assert!(r.stderr.contains(text), "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
    }
    // The options that change nothing Limette does are accepted.
    let r = s.run(&[
        "-safe", "1", "-force", "0", "-yes", "1", "-cfgNum", "2", "set", "timeout", "7",
    ]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(0), "Saved under number 3\n")
    );
    assert_eq!(s.count(), 3);
}
