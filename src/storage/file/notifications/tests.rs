//! Unit tests of the File notification backend: naming and the cached listing.
use super::*;

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
    assert!(
        a.cache.lock().unwrap().is_some(),
        "a settled listing is kept"
    );
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
