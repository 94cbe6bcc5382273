//! The store contract, run against every backend.
use super::*;
use crate::config::local::ConfBackend;
use crate::error::Error;
use crate::notifications::model::parse_json;
use crate::notifications::StorageChoice;
use std::path::PathBuf;

fn stores() -> Vec<(Arc<dyn NotificationStore>, PathBuf)> {
    let base = std::env::temp_dir().join(format!("limette-ns-{}", crate::util::random_hex(6)));
    let file = StorageChoice::File {
        dir: base.join("files"),
        separator: "_".into(),
    };
    let sqlite = StorageChoice::Sqlite {
        path: base.join("n.db"),
        table: "notifications".into(),
    };
    vec![
        (open_choice(&file).unwrap(), base.clone()),
        (open_choice(&sqlite).unwrap(), base),
    ]
}

fn rec(uid: &str, date: &str, reference: &str) -> Record {
    let body = format!(
        r#"{{"uid":"{uid}","date":"{date}","reference":"{reference}","title":"T {reference}"}}"#
    );
    Record::new(&parse_json(body.as_bytes(), "").unwrap()[0])
}

fn refs(list: &[Record]) -> Vec<String> {
    list.iter()
        .map(|r| format!("{}/{}", r.uid, r.reference))
        .collect()
}

#[test]
fn contract() {
    for (s, base) in stores() {
        check_contract(s.as_ref());
        let _ = std::fs::remove_dir_all(base);
    }
}

/// The contract on LemonLDAP::NG's table in a throw-away PostgreSQL cluster.
#[cfg(feature = "postgres")]
#[test]
fn contract_on_postgres() {
    use crate::storage::pg;
    let c = pg::cluster::Cluster::start();
    let source = pg::tests::source(&c);
    let ddl = pg::schema::notifications_ddl("notifications");
    pg::schema::run(&pg::pool(&source, 2).unwrap(), &ddl).unwrap();
    let choice = StorageChoice::Pg {
        source,
        table: "notifications".into(),
    };
    check_contract(open_choice(&choice).unwrap().as_ref());
    // A row as LemonLDAP::NG's DBI module writes it (local time, no condition) reads back.
    c.psql("INSERT INTO notifications (date, uid, ref, xml) VALUES ('2024-03-04', 'u', 'L', '{}')");
    let r = open_choice(&choice)
        .unwrap()
        .get("u", "L")
        .unwrap()
        .unwrap();
    assert_eq!(
        (r.date.as_str(), r.condition.as_str(), r.done),
        ("2024-03-04", "", None)
    );
}

fn check_contract(s: &dyn NotificationStore) {
    {
        let d = s.describe();
        assert_eq!(
            s.insert(&[
                rec("dwho", "2024-01-02", "B"),
                rec("allusers", "2024-01-01", "G")
            ])
            .unwrap(),
            2,
            "{d}"
        );
        assert_eq!(s.insert(&[rec("rtyler", "2099-01-01", "F")]).unwrap(), 1);
        // Duplicate alone, and inside a batch: nothing written.
        assert!(
            matches!(
                s.insert(&[rec("dwho", "2024-05-05", "B")]),
                Err(Error::Conflict(_))
            ),
            "{d}"
        );
        assert!(matches!(
            s.insert(&[rec("x", "2024-01-01", "N"), rec("x", "2024-01-01", "N")]),
            Err(Error::Conflict(_))
        ));
        assert!(matches!(
            s.insert(&[rec("y", "2024-01-01", "N"), rec("dwho", "2024-01-01", "B")]),
            Err(Error::Conflict(_))
        ));
        assert!(
            s.get("y", "N").unwrap().is_none(),
            "{d}: batch was not all-or-nothing"
        );
        let p = s
            .pending_for("dwho", "allusers", Some("2024-06-01"))
            .unwrap();
        assert_eq!(refs(&p), ["allusers/G", "dwho/B"], "{d}");
        assert_eq!(
            refs(
                &s.pending_for("rtyler", "allusers", Some("2024-06-01"))
                    .unwrap()
            ),
            ["allusers/G"]
        );
        assert_eq!(s.pending_for("rtyler", "allusers", None).unwrap().len(), 2);
        assert_eq!(s.all_pending().unwrap().len(), 3);
        let one = s.get("dwho", "B").unwrap().unwrap();
        assert_eq!(one.notification().unwrap().title, ["T B"]);
        // Accepting: idempotent, listed by `all` only, a re-insert is a conflict.
        assert!(s.mark_done("dwho", "B", 1_700_000_000).unwrap(), "{d}");
        assert!(!s.mark_done("dwho", "B", 1_700_000_100).unwrap());
        assert_eq!(s.all_pending().unwrap().len(), 2);
        assert_eq!(s.all().unwrap().len(), 3);
        assert_eq!(
            s.get("dwho", "B").unwrap().unwrap().done,
            Some(1_700_000_000),
            "{d}"
        );
        match s.insert(&[rec("dwho", "2024-01-02", "B")]) {
            Err(Error::Conflict(m)) => assert!(m.contains("done"), "{m}"),
            other => panic!("{d}: {other:?}"),
        }
        assert_eq!(s.purge_done(1_600_000_000).unwrap(), 0);
        assert_eq!(s.purge_done(1_800_000_000).unwrap(), 1, "{d}");
        assert_eq!(s.delete("allusers", "G").unwrap(), 1);
        assert_eq!(s.delete("allusers", "G").unwrap(), 0);
        assert_eq!(refs(&s.all().unwrap()), ["rtyler/F"]);
    }
}

#[test]
fn default_storage_sits_beside_the_configuration() {
    let local = LocalConf::embedded(std::path::Path::new("/d"));
    let s = Settings::default();
    assert_eq!(
        resolve(&local, &s),
        StorageChoice::File {
            dir: "/d/notifications".into(),
            separator: "_".into()
        }
    );
    let mut local = local;
    local.conf_backend = ConfBackend::Sqlite {
        path: "/d/c.db".into(),
        table: "lmConfig".into(),
    };
    assert_eq!(
        resolve(&local, &s),
        StorageChoice::Sqlite {
            path: "/d/c.db".into(),
            table: "notifications".into()
        }
    );
}
