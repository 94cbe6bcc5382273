//! Unit tests of the File notification backend: naming and the cached listing.
use super::*;
use std::time::SystemTime;

#[test]
fn names_as_llng() {
    let dir = std::env::temp_dir().join(format!("limette-fn-{}", crate::util::random_hex(4)));
    let s = FileNotifications::open(&dir, "_").unwrap();
    let r = Record {
        date: "2024-01-03".into(),
        uid: "allusers".into(),
        reference: "GLOBAL1".into(),
        condition: "$uid eq \"msmith\"".into(),
        doc: "{}".into(),
        done: None,
    };
    let name = s.file_name(&r, "json").unwrap();
    assert_eq!(
        name,
        "20240103_allusers_R0xPQkFMMQ==_JHVpZCBlcSAibXNtaXRoIg==.json"
    );
    let n = s.parse(&name).unwrap();
    assert_eq!(
        (n.uid.as_str(), n.reference.as_str(), n.condition.as_str()),
        ("allusers", "GLOBAL1", r.condition.as_str())
    );
    assert!(s.parse("20240101_rtyler_UkVGQQ==.done").unwrap().done);
    assert!(s.parse(".x.tmp.abc").is_none());
    assert!(s.parse("20241301_rtyler_UkVGQQ==.json").is_none());
    let bad = Record {
        uid: "a_b".into(),
        ..r
    };
    assert!(s.file_name(&bad, "json").is_err());
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn cached_listing_follows_changes_made_by_others() {
    let dir = std::env::temp_dir().join(format!("limette-fc-{}", crate::util::random_hex(4)));
    let (a, b) = (
        FileNotifications::open(&dir, "_").unwrap(),
        FileNotifications::open(&dir, "_").unwrap(),
    );
    let rec = |r: &str| Record {
        date: "2024-01-01".into(),
        uid: "u".into(),
        reference: r.into(),
        condition: String::new(),
        doc: "{}".into(),
        done: None,
    };
    a.insert(&[rec("A")]).unwrap();
    let age = |secs: u64| {
        let past = SystemTime::now() - Duration::from_secs(secs);
        fs::File::open(&dir).unwrap().set_modified(past).unwrap();
    };
    age(10);
    assert_eq!(a.all().unwrap().len(), 1);
    assert!(a.cache.is_kept(), "a settled listing is kept");
    b.insert(&[rec("B")]).unwrap();
    assert_eq!(
        a.all().unwrap().len(),
        2,
        "a change by another process is seen"
    );
    age(10);
    assert_eq!(a.pending_for("u", "allusers", None).unwrap().len(), 2);
    assert!(b.mark_done("u", "A", 1).unwrap());
    assert_eq!(a.pending_for("u", "allusers", None).unwrap().len(), 1);
    let _ = fs::remove_dir_all(dir);
}

fn record(uid: &str, reference: &str) -> Record {
    Record {
        date: "2024-01-01".into(),
        uid: uid.into(),
        reference: reference.into(),
        condition: String::new(),
        doc: "{}".into(),
        done: None,
    }
}

#[test]
fn own_changes_keep_the_picture_exact() {
    let dir = std::env::temp_dir().join(format!("limette-fe-{}", crate::util::random_hex(4)));
    let s = FileNotifications::open(&dir, "_").unwrap();
    s.insert(&[record("u", "A"), record("u", "B")]).unwrap();
    assert!(s.cache.is_kept(), "an insert edits the kept picture");
    // Within the same clock tick as the insert: the picture, not the folder time, knows.
    assert!(matches!(
        s.insert(&[record("u", "A")]),
        Err(Error::Conflict(_))
    ));
    assert!(s.mark_done("u", "A", 1_700_000_000).unwrap());
    let err = s.insert(&[record("u", "A")]).unwrap_err();
    assert_eq!(err.to_string(), duplicate("A", true).to_string());
    assert_eq!(s.pending_for("u", "allusers", None).unwrap().len(), 1);
    assert_eq!(s.delete("u", "A").unwrap(), 1);
    s.insert(&[record("u", "A")]).unwrap();
    let mine: Vec<_> = s.all().unwrap().into_iter().map(|r| r.reference).collect();
    let fresh = FileNotifications::open(&dir, "_").unwrap();
    let read: Vec<_> = fresh
        .all()
        .unwrap()
        .into_iter()
        .map(|r| r.reference)
        .collect();
    assert_eq!(mine, vec!["A", "B"]);
    assert_eq!(
        read, mine,
        "the picture is what a fresh read of the folder finds"
    );
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn concurrent_inserts_share_syncs_and_all_land() {
    let dir = std::env::temp_dir().join(format!("limette-fg-{}", crate::util::random_hex(4)));
    let s = FileNotifications::open(&dir, "_").unwrap();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let s = &s;
            scope.spawn(move || {
                for i in 0..20 {
                    assert_eq!(s.insert(&[record("u", &format!("R{t}-{i}"))]).unwrap(), 1);
                }
            });
        }
    });
    assert_eq!(s.all().unwrap().len(), 160);
    let fresh = FileNotifications::open(&dir, "_").unwrap();
    assert_eq!(fresh.all().unwrap().len(), 160);
    let _ = fs::remove_dir_all(dir);
}
