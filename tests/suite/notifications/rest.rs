//! REST/JSON rows of the contract, on File and SQLite storage.
use super::common::notifications::{server, Backend, BACKENDS};
use super::common::Portal;
use super::*;
use serde_json::{json, Value};

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

#[test]
fn default_condition_is_appended_to_every_insert() {
    for b in BACKENDS {
        let (p, store) = server(
            b,
            &[("notificationDefaultCond", json!("$authenticationLevel > 0"))],
        );
        let c = p.client();
        post(
            &c,
            &json!([{"uid":"a","date":"2024-01-01","reference":"C1","condition":"$uid eq 'a'"},
            {"uid":"b","date":"2024-01-01","reference":"C2"}]),
        );
        let cond = |uid: &str, r: &str| store.get(uid, r).unwrap().unwrap().condition;
        assert_eq!(
            cond("a", "C1"),
            "($uid eq 'a') and ($authenticationLevel > 0)",
            "{b:?}"
        );
        assert_eq!(cond("b", "C2"), "$authenticationLevel > 0", "{b:?}");
    }
}

#[test]
fn default_storage_is_a_table_in_the_sqlite_configuration_database() {
    use super::common::config::{start_on, Store};
    let mut conf = super::common::default_conf();
    conf.insert("notificationServer".into(), json!(1));
    conf.insert("notificationServerGET".into(), json!(1));
    let p = start_on(Store::Sqlite, conf);
    let c = p.client();
    assert_eq!(post(&c, &refa()).json(), json!({"result":1}));
    assert_eq!(keys(&c.get_json("/notifications/rtyler")), ["rtyler/REFA"]);
    let db = rusqlite::Connection::open(p.data().join("conf.db")).unwrap();
    let row: (String, String, String) = db
        .query_row("SELECT date, uid, ref FROM notifications", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(row, ("2024-01-01".into(), "rtyler".into(), "REFA".into()));
    assert!(
        !p.data().join("notifications").exists(),
        "no folder when the configuration is in SQLite"
    );
}
