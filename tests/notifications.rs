//! Notification server over HTTP: every row of the contract's rules, on File and SQLite
//! storage; the SOAP server with envelopes captured from SOAP::Lite (tests/fixtures/soap); the
//! 10,000-element array; entity bombs; the CLI.
mod common;

use common::notifications::{server, Backend, BACKENDS};
use common::{Client, Portal, Resp};
use serde_json::{json, Value};

fn post(c: &Client, body: &Value) -> Resp {
    c.send_json("POST", "/notifications", body)
}

fn refa() -> Value {
    json!({"uid":"rtyler","date":"2024-01-01","reference":"REFA","title":"Title A","subtitle":"Sub A",
           "text":"Text A","check":["I agree","I am sure"]})
}

fn note(uid: &str, reference: &str) -> Value {
    json!({"uid": uid, "date": "2024-01-02", "reference": reference, "text": "t"})
}

fn keys(r: &Resp) -> Vec<String> {
    let mut v: Vec<String> = r.json()["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no result list: {}", r.text()))
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o["uid"].as_str().unwrap(),
                o["reference"].as_str().unwrap()
            )
        })
        .collect();
    v.sort();
    v
}

fn error(r: &Resp) -> String {
    r.json()["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error: {}", r.text()))
        .to_string()
}

#[test]
fn insert_rows() {
    for b in BACKENDS {
        let (p, _store) = server(b, &[]);
        let c = p.client();
        let r = post(&c, &refa());
        assert_eq!(
            (r.status, r.json()),
            (200, json!({"result":1})),
            "{b:?} insert one"
        );
        assert_eq!(
            r.header("cache-control"),
            Some("no-cache, no-store, must-revalidate")
        );
        let arr = json!([note("dwho", "REFB"),
            {"uid":"allusers","date":"2024-01-03","reference":"GLOBAL1","condition":"$uid eq \"msmith\"","text":"all"}]);
        assert_eq!(post(&c, &arr).json(), json!({"result":2}), "{b:?} array");
        let r = post(&c, &refa());
        assert_eq!(
            (r.status, error(&r)),
            (
                409,
                "A notification already exists with reference REFA".into()
            ),
            "{b:?}"
        );
        // A duplicate second element: nothing of the array is written.
        let r = post(&c, &json!([note("dwho", "REFC"), refa()]));
        assert_eq!(r.status, 409, "{b:?}");
        assert_eq!(
            c.get_json("/notifications/dwho/REFC").status,
            404,
            "{b:?} array was partly written"
        );
        let r = post(&c, &json!([note("dwho", "REFD"), note("dwho", "REFD")]));
        assert_eq!(r.status, 409, "{b:?} duplicate inside the array");
        assert_eq!(c.get_json("/notifications/dwho/REFD").status, 404);
        // Missing fields, in LemonLDAP::NG's order.
        for (body, msg) in [
            (
                json!({"date":"2024-01-01","reference":"R"}),
                "Attribute uid is missing",
            ),
            (
                json!({"uid":"u","reference":"R"}),
                "Attribute date is missing",
            ),
            (json!({"reference":"R"}), "Attribute date is missing"),
            (
                json!({"uid":"u","date":"2024-01-01"}),
                "Attribute reference is missing",
            ),
        ] {
            let r = post(&c, &body);
            assert_eq!(
                (r.status, error(&r)),
                (400, msg.to_string()),
                "{b:?} {body}"
            );
        }
        let r = post(&c, &json!({"uid":"u","date":"2024-13-45","reference":"R"}));
        assert_eq!(r.status, 400, "{b:?} bad date");
        assert!(error(&r).contains("Bad date"));
        for raw in [&b"{not json"[..], b"[]", b"\"x\""] {
            let r = c.send(
                "POST",
                "/notifications",
                &[("Content-Type", "application/json")],
                raw,
            );
            assert_eq!(
                (r.status, error(&r)),
                (400, "Bad request".into()),
                "{b:?} {}",
                String::from_utf8_lossy(raw)
            );
        }
        assert_eq!(c.send("POST", "/notifications", &[], b"").status, 411);
        let long = "x".repeat(256);
        assert_eq!(
            post(
                &c,
                &json!({"uid": long, "date":"2024-01-01","reference":"R"})
            )
            .status,
            400
        );
        // A time part is cut off, `_` in a reference becomes `-`, extra keys are kept.
        let r = post(
            &c,
            &json!({"uid":"dwho","date":"2024-01-06 12:34:56","reference":"MY_REF","foo":"bar"}),
        );
        assert_eq!(r.json(), json!({"result":1}));
        let r = c.get_json("/notifications/dwho/MY-REF");
        assert_eq!(
            r.json(),
            json!({"result":[{"uid":"dwho"},{"reference":"MY-REF"},{"date":"2024-01-06"}]}),
            "{b:?}"
        );
    }
}

#[test]
fn list_and_delete_rows() {
    for b in BACKENDS {
        let (p, store) = server(b, &[]);
        let c = p.client();
        post(&c, &refa());
        post(
            &c,
            &json!([note("dwho", "REFB"), note("allusers", "GLOBAL1")]),
        );
        assert_eq!(
            keys(&c.get_json("/notifications")),
            ["allusers/GLOBAL1"],
            "{b:?} wildcard"
        );
        let all = ["allusers/GLOBAL1", "dwho/REFB", "rtyler/REFA"];
        assert_eq!(
            keys(&c.get_json("/notifications/_allPending_")),
            all,
            "{b:?}"
        );
        assert_eq!(
            keys(&c.get_json("/notifications/rtyler")),
            ["allusers/GLOBAL1", "rtyler/REFA"]
        );
        assert_eq!(
            keys(&c.get_json("/notifications/nobody")),
            ["allusers/GLOBAL1"]
        );
        let r = c.get_json("/notifications/rtyler/REFA");
        let want = json!({"result":[{"uid":"rtyler"},{"reference":"REFA"},{"date":"2024-01-01"},{"title":"Title A"},
            {"subtitle":"Sub A"},{"text":"Text A"},{"check":["I agree","I am sure"]}]});
        assert_eq!((r.status, r.json()), (200, want), "{b:?} one notification");
        assert_eq!(c.get_json("/notifications/rtyler/NOPE").status, 404);
        // An accepted notification: gone from pending, still existing, cannot be re-posted.
        assert!(store.mark_done("dwho", "REFB", 1_700_000_000).unwrap());
        assert_eq!(
            keys(&c.get_json("/notifications/_allPending_")),
            ["allusers/GLOBAL1", "rtyler/REFA"],
            "{b:?}"
        );
        assert_eq!(
            keys(&c.get_json("/notifications/_allExisting_")),
            all,
            "{b:?} existing keeps accepted ones"
        );
        assert_eq!(
            post(&c, &note("dwho", "REFB")).status,
            409,
            "{b:?} re-insert of an accepted one"
        );
        // Delete.
        let r = c.send("DELETE", "/notifications/rtyler/REFA", &[], b"");
        assert_eq!((r.status, r.json()), (200, json!({"result":1})), "{b:?}");
        assert_eq!(
            c.send("DELETE", "/notifications/rtyler/REFA", &[], b"")
                .status,
            404,
            "{b:?} delete again"
        );
        assert_eq!(
            c.send("DELETE", "/notifications/nobody/X", &[], b"").status,
            404
        );
        let r = c.send("DELETE", "/notifications/dwho", &[], b"");
        assert_eq!(
            (r.status, error(&r)),
            (400, "Missing parameters -> uid: dwho / ref: ".into())
        );
        assert_eq!(
            c.send("DELETE", "/notifications/allusers/GLOBAL1", &[], b"")
                .json(),
            json!({"result":1})
        );
        assert_eq!(
            keys(&c.get_json("/notifications/_allPending_")),
            Vec::<String>::new()
        );
        assert_eq!(c.send("PUT", "/notifications", &[], b"{}").status, 405);
    }
}

#[test]
fn methods_switched_off() {
    for b in BACKENDS {
        let off = [
            ("notificationServerGET", json!(0)),
            ("notificationServerDELETE", json!(0)),
            ("notificationServerPOST", json!(0)),
        ];
        let (p, _) = server(b, &off);
        let c = p.client();
        assert_eq!(post(&c, &refa()).status, 405, "{b:?}");
        assert_eq!(c.get_json("/notifications").status, 405);
        assert_eq!(c.get_json("/notifications/_allPending_").status, 405);
        assert_eq!(c.send("DELETE", "/notifications/a/b", &[], b"").status, 405);
    }
    let p = Portal::builder()
        .conf("notificationServer", json!(0))
        .start();
    assert_eq!(post(&p.client(), &refa()).status, 404, "server off");
}

#[test]
fn ten_thousand_in_one_request() {
    for b in BACKENDS {
        let (p, _) = server(b, &[]);
        let c = p.client();
        let arr: Vec<Value> = (0..10_000)
            .map(|i| note(&format!("user{i}"), &format!("BULK{i}")))
            .collect();
        let t = std::time::Instant::now();
        let r = post(&c, &Value::from(arr));
        assert_eq!(
            (r.status, r.json()),
            (200, json!({"result":10_000})),
            "{b:?}"
        );
        eprintln!("{b:?}: 10,000 notifications inserted in {:?}", t.elapsed());
        let r = c.get_json("/notifications/_allPending_");
        assert_eq!(
            r.json()["result"].as_array().unwrap().len(),
            10_000,
            "{b:?}"
        );
        assert_eq!(
            keys(&c.get_json("/notifications/user9999")),
            ["user9999/BULK9999"]
        );
    }
}

#[test]
fn file_names_as_lemonldap() {
    let (p, _) = server(Backend::File, &[]);
    post(&p.client(), &refa());
    post(
        &p.client(),
        &json!({"uid":"allusers","date":"2024-01-03","reference":"GLOBAL1","condition":"$uid eq \"msmith\""}),
    );
    let dir = p.data().join("notifications");
    let a = std::fs::read_to_string(dir.join("20240101_rtyler_UkVGQQ==.json")).unwrap();
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(
        (v["condition"].as_str(), v["reference"].as_str()),
        (Some(""), Some("REFA"))
    );
    assert!(dir
        .join("20240103_allusers_R0xPQkFMMQ==_JHVpZCBlcSAibXNtaXRoIg==.json")
        .exists());
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/soap/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Posts a captured envelope with the SOAPAction SOAP::Lite sent with it.
fn soap(c: &Client, name: &str) -> Resp {
    let action = std::fs::read_to_string(format!(
        "{}/tests/fixtures/soap/{name}.action",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_else(|_| "\"urn:Lemonldap::NG::Common::PSGI::SOAPService#newNotification\"".into());
    let body = fixture(&format!("{name}.xml"));
    c.send(
        "POST",
        "/notifications",
        &[
            ("Content-Type", "text/xml; charset=utf-8"),
            ("SOAPAction", action.trim()),
        ],
        &body,
    )
}

fn result_count(r: &Resp) -> u64 {
    let t = r.text();
    let start = t
        .find("<result xsi:type=\"xsd:int\">")
        .unwrap_or_else(|| panic!("no result: {t}"))
        + 27;
    t[start..].split('<').next().unwrap().parse().unwrap()
}

fn faultstring(r: &Resp) -> String {
    assert_eq!(r.status, 500, "a fault is HTTP 500: {}", r.text());
    assert!(r.header("content-type").unwrap().starts_with("text/xml"));
    let t = r.text();
    let s = t
        .split("<faultstring>")
        .nth(1)
        .unwrap_or_else(|| panic!("no fault: {t}"));
    s.split("</faultstring>").next().unwrap().to_string()
}

#[test]
fn soap_insert_delete_and_faults() {
    for b in BACKENDS {
        let (p, store) = server(b, &[("oldNotifFormat", json!(1))]);
        let c = p.client();
        let r = soap(&c, "1-new-two");
        assert_eq!(
            (r.status, result_count(&r)),
            (200, 2),
            "{b:?}: {}",
            r.text()
        );
        assert!(r.text().contains(
            "<newNotificationResponse xmlns=\"urn:Lemonldap::NG::Common::PSGI::SOAPService\">"
        ));
        let one = store
            .get("rtyler", "XMLA")
            .unwrap()
            .unwrap()
            .notification()
            .unwrap();
        assert_eq!(one.check, ["I know appli-1", "I know appli-2"], "{b:?}");
        assert_eq!(one.subtitle, ["XML sub"]);
        assert!(store.get("allusers", "XMLALL").unwrap().is_some());
        assert!(
            faultstring(&soap(&c, "1-new-two")).contains("already exists with reference XMLA"),
            "{b:?} duplicate"
        );
        let r = soap(&c, "2-delete");
        assert_eq!((r.status, result_count(&r)), (200, 1), "{b:?} delete");
        assert!(r.text().contains("deleteNotificationResponse"));
        assert!(store.get("rtyler", "XMLA").unwrap().is_none());
        assert_eq!(result_count(&soap(&c, "2-delete")), 0, "{b:?} delete again");
        assert!(
            faultstring(&soap(&c, "3-not-xml")).contains("not well-formed XML"),
            "{b:?}"
        );
        assert_eq!(
            faultstring(&soap(&c, "4-no-date")),
            "Attribute date is missing"
        );
        assert_eq!(
            faultstring(&soap(&c, "5-unknown-method")),
            "getAttributes is not an authorized function"
        );
        assert!(
            faultstring(&soap(&c, "6-inner-bomb")).contains("DOCTYPE"),
            "{b:?}"
        );
        let r = c.send(
            "POST",
            "/notifications",
            &[("SOAPAction", "\"x\"")],
            b"<x/>",
        );
        assert!(faultstring(&r).contains("root element"));
        // Not SOAP at all.
        let r = c.send(
            "POST",
            "/notifications",
            &[("Content-Type", "text/xml")],
            &fixture("1-new-two.xml"),
        );
        assert_eq!((r.status, error(&r)), (400, "SOAP requests only".into()));
        assert_eq!(c.get_json("/notifications").status, 400);
        assert_eq!(
            c.send("POST", "/notifications", &[("SOAPAction", "\"x\"")], b"")
                .status,
            411
        );
    }
}

fn vm_hwm_kb(p: &Portal) -> u64 {
    let pid = p.child.as_ref().unwrap().id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn soap_entity_bombs_fault_at_once_with_memory_flat() {
    let (p, store) = server(Backend::File, &[("oldNotifFormat", json!(1))]);
    let c = p.client();
    // Warm up: one ordinary call, so the baseline holds the normal working set.
    assert_eq!(result_count(&soap(&c, "1-new-two")), 2);
    let before = vm_hwm_kb(&p);
    for name in ["envelope-bomb", "envelope-xxe", "6-inner-bomb"] {
        let t = std::time::Instant::now();
        let f = faultstring(&soap(&c, name));
        assert!(f.contains("DOCTYPE"), "{name}: {f}");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(2),
            "{name} took {:?}",
            t.elapsed()
        );
        assert!(!f.contains("root:"), "{name}: external entity resolved");
    }
    let after = vm_hwm_kb(&p);
    assert!(
        after < before + 10_240,
        "peak memory grew from {before} kB to {after} kB"
    );
    assert_eq!(store.all().unwrap().len(), 2, "nothing stored by the bombs");
}

#[test]
fn cli_add_list_delete_purge() {
    for b in BACKENDS {
        let (p, store) = server(b, &[]);
        let ini = p.data().join("limette.ini");
        let run = |args: &[&str], stdin: Option<&str>| {
            let mut cmd = std::process::Command::new(common::bin());
            cmd.arg("-c")
                .arg(&ini)
                .arg("--data")
                .arg(p.data())
                .arg("notifications")
                .args(args);
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
            Some(1),
            "--before is required"
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
