//! Tests of the records: typed, expiring, single use, families and their replay.
use super::*;
use serde_json::Map;
use std::sync::Arc;

type Mem = crate::storage::memory::MemorySessions;

#[test]
fn records_are_typed_expiring_and_single_use() {
    let mem = Mem::default();
    let id = create(&mem, RecordType::Code, Map::new(), 60).unwrap();
    assert!(is_token(&id));
    assert!(
        get(&mem, RecordType::Access, &id).unwrap().is_none(),
        "a code is not an access token"
    );
    assert!(get(&mem, RecordType::Code, &id).unwrap().is_some());
    assert!(take(&mem, RecordType::Code, &id).unwrap().is_some());
    assert!(
        take(&mem, RecordType::Code, &id).unwrap().is_none(),
        "single use"
    );
    let old = create(&mem, RecordType::Access, Map::new(), -1).unwrap();
    assert!(
        get(&mem, RecordType::Access, &old).unwrap().is_none(),
        "expired"
    );
    assert!(get(&mem, RecordType::Access, "../../x").unwrap().is_none());
}

#[test]
fn concurrent_takes_give_one_record() {
    let mem = Arc::new(Mem::default());
    let id = create(mem.as_ref(), RecordType::Code, Map::new(), 60).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (mem, id) = (mem.clone(), id.clone());
            std::thread::spawn(move || take(mem.as_ref(), RecordType::Code, &id).unwrap().is_some())
        })
        .collect();
    let wins = handles
        .into_iter()
        .filter_map(|h| h.join().ok())
        .filter(|w| *w)
        .count();
    assert_eq!(wins, 1);
}

#[test]
fn a_replayed_code_takes_its_family_away() {
    let mem = Mem::default();
    let code = create(&mem, RecordType::Code, Map::new(), 60).unwrap();
    assert!(matches!(redeem(&mem, &code).unwrap(), Redemption::Fresh(_)));
    let at = new_id();
    let fam = open_family(&mem, &code, &Record::default(), &[&at], 60, None).unwrap();
    assert_ne!(fam, code, "the code is not stored again");
    create_as(&mem, RecordType::Access, &at, Map::new(), 30).unwrap();
    assert!(
        create_as(&mem, RecordType::Access, &at, Map::new(), 30).is_err(),
        "an id is never stored twice"
    );
    let rt = create(&mem, RecordType::Refresh, Map::new(), 30).unwrap();
    assert!(record_issued(&mem, &fam, &[&rt], 3600).unwrap());
    let family = get(&mem, RecordType::Redeemed, &fam).unwrap().unwrap();
    assert_eq!(family.issued(), vec![at.as_str(), rt.as_str()]);
    assert!(family.expires().and_then(Value::as_i64).unwrap() >= util::now() + 3600);
    match redeem(&mem, &code).unwrap() {
        Redemption::Replayed(f) => revoke(&mem, &f.issued()).unwrap(),
        other => panic!("{other:?}"),
    }
    assert!(get(&mem, RecordType::Access, &at).unwrap().is_none());
    assert!(get(&mem, RecordType::Redeemed, &fam).unwrap().is_none());
    assert!(!record_issued(&mem, &fam, &[&at], 1).unwrap(), "gone");
    assert!(matches!(redeem(&mem, &code).unwrap(), Redemption::Unknown));
    assert!(matches!(redeem(&mem, "x").unwrap(), Redemption::Unknown));
}

#[test]
fn liveness_checks_type_and_expiry() {
    let mut r = Map::new();
    r.insert("_type".into(), json!("code"));
    r.insert("_exp".into(), json!(util::now() + 10));
    assert!(is_live(&r, RecordType::Code));
    assert!(!is_live(&r, RecordType::Access));
    r.insert("_exp".into(), json!(util::now() - 1));
    assert!(!is_live(&r, RecordType::Code));
    assert!(!is_token("../x") && is_token(&"a".repeat(64)));
}
