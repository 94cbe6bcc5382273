//! `limette notifications` against a running portal, on File and SQLite storage.
use super::common::notifications::{server, BACKENDS};
use super::*;
use serde_json::json;

#[test]
fn cli_add_list_delete_purge() {
    for b in BACKENDS {
        let (p, store) = server(b, &[]);
        let ini = p.data().join("limette.ini");
        let run = |args: &[&str], stdin: Option<&str>| {
            let mut cmd = common::command(&ini, p.data(), &["notifications"]);
            cmd.args(args);
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            if let Some(s) = stdin {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
            }
            drop(child.stdin.take());
            let out = child.wait_with_output().unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let json_file = p.data().join("n.json");
        std::fs::write(
            &json_file,
            serde_json::to_vec(&json!([refa(), note("allusers", "G")])).unwrap(),
        )
        .unwrap();
        let (code, out, err) = run(&["add", json_file.to_str().unwrap()], None);
        assert_eq!(code, Some(0), "{b:?}: {err}");
        assert!(out.contains("2 notification(s) inserted"));
        let xml = r#"<root><notification uid="dwho" date="2024-01-05" reference="X1"><text>x</text></notification></root>"#;
        let (code, _, err) = run(&["add", "-"], Some(xml));
        assert_eq!(code, Some(0), "{b:?}: {err}");
        let (code, _, err) = run(&["add", "-"], Some(xml));
        assert_eq!(code, Some(1), "duplicate");
        assert!(err.contains("already exists"), "{err}");
        let (_, out, _) = run(&["list", "rtyler"], None);
        assert_eq!(out.lines().count(), 2, "{b:?}: {out}");
        assert!(out.contains("2024-01-01\trtyler\tREFA\tpending"), "{out}");
        // The server sees what the CLI added.
        assert_eq!(
            keys(&p.client().get_json("/notifications/dwho")),
            ["allusers/G", "dwho/X1"]
        );
        let (code, out, _) = run(&["delete", "dwho", "X1"], None);
        assert_eq!((code, out.trim()), (Some(0), "1 notification(s) deleted"));
        assert_eq!(run(&["delete", "dwho", "X1"], None).0, Some(1));
        store.mark_done("rtyler", "REFA", 1_700_000_000).unwrap();
        let (_, out, _) = run(&["list"], None);
        assert!(out.contains("REFA\tdone 2023-11-14"), "{b:?}: {out}");
        assert_eq!(
            run(&["purge-done"], None).0,
            Some(2),
            "--before is required: a usage error, found before anything is opened"
        );
        let (code, out, _) = run(&["purge-done", "--before", "2023-11-01"], None);
        assert_eq!(
            (code, out.trim()),
            (Some(0), "0 accepted notification(s) purged")
        );
        let (_, out, _) = run(&["purge-done", "--before", "2023-11-15"], None);
        assert_eq!(out.trim(), "1 accepted notification(s) purged", "{b:?}");
        assert_eq!(store.all().unwrap().len(), 1);
    }
}
