//! The storage contract: one suite of behaviours every `SessionStore` backend must show, run
//! against the file, SQLite, memory and (with the `postgres` feature) PostgreSQL backends, the
//! last on a throw-away cluster of its own (the REST client is covered end to end by the
//! integration tests, against a real server).
use super::file::sessions::FileSessions;
use super::sqlite::sessions::SqliteSessions;
use super::{Kind, Session, SessionStore};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

/// A temporary folder removed on drop.
struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!(
            "limette-contract-{tag}-{}",
            crate::util::random_hex(8)
        ));
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn session(uid: &str) -> Session {
    match json!({"uid": uid, "_utime": 1, "hGroups": {"g": {"name": "g"}}}) {
        Value::Object(m) => m,
        _ => Session::new(),
    }
}

/// What a backend needs kept alive while it is tested (a folder, a database cluster).
type Keep = Box<dyn std::any::Any>;

/// Every backend under test, each in its own folder (or cluster).
fn backends() -> Vec<(Keep, Arc<dyn SessionStore>)> {
    let f = Tmp::new("file");
    let file: Arc<dyn SessionStore> = Arc::new(FileSessions::open(&f.0).unwrap());
    let s = Tmp::new("sqlite");
    let sqlite: Arc<dyn SessionStore> =
        Arc::new(SqliteSessions::open(&s.0.join("sessions.db")).unwrap());
    let m = Tmp::new("memory");
    let memory: Arc<dyn SessionStore> = Arc::new(super::memory::MemorySessions::new());
    #[allow(unused_mut)]
    let mut all: Vec<(Keep, Arc<dyn SessionStore>)> = vec![
        (Box::new(f), file),
        (Box::new(s), sqlite),
        (Box::new(m), memory),
    ];
    #[cfg(feature = "postgres")]
    all.push(super::pg::tests::sessions());
    all
}

fn each(test: impl Fn(&str, &dyn SessionStore)) {
    for (_dir, store) in backends() {
        test(&store.describe(), store.as_ref());
    }
}

#[test]
fn put_get_delete() {
    each(|name, st| {
        assert_eq!(st.get(Kind::Global, "abc").unwrap(), None, "{name}");
        st.put(Kind::Global, "abc", &session("dwho")).unwrap();
        assert_eq!(
            st.get(Kind::Global, "abc").unwrap(),
            Some(session("dwho")),
            "{name}"
        );
        st.put(Kind::Global, "abc", &session("rtyler")).unwrap();
        assert_eq!(
            st.get(Kind::Global, "abc").unwrap(),
            Some(session("rtyler")),
            "{name}"
        );
        assert!(st.delete(Kind::Global, "abc").unwrap(), "{name}");
        assert!(!st.delete(Kind::Global, "abc").unwrap(), "{name}");
        assert_eq!(st.get(Kind::Global, "abc").unwrap(), None, "{name}");
    });
}

/// Internal kinds never collide with SSO sessions. (SSO and persistent sessions may share a
/// folder in the file backend, as in LemonLDAP::NG: the portal gives each its own store.)
#[test]
fn internal_kinds_are_separate() {
    each(|name, st| {
        st.put(Kind::Global, "same", &session("g")).unwrap();
        st.put(Kind::Oidc, "same", &session("o")).unwrap();
        assert_eq!(
            st.get(Kind::Global, "same").unwrap(),
            Some(session("g")),
            "{name}"
        );
        assert_eq!(
            st.get(Kind::Oidc, "same").unwrap(),
            Some(session("o")),
            "{name}"
        );
        assert_eq!(st.get(Kind::Pending, "same").unwrap(), None, "{name}");
    });
}

#[test]
fn create_only_when_free() {
    each(|name, st| {
        assert!(
            st.create(Kind::Oidc, "c1", &session("a")).unwrap(),
            "{name}"
        );
        assert!(
            !st.create(Kind::Oidc, "c1", &session("b")).unwrap(),
            "{name}"
        );
        assert_eq!(
            st.get(Kind::Oidc, "c1").unwrap(),
            Some(session("a")),
            "{name}"
        );
    });
}

#[test]
fn create_all_writes_all_or_none() {
    each(|name, st| {
        let (a, b, c) = (session("a"), session("b"), session("c"));
        let batch = [("f1", &a), ("t1", &b), ("t2", &c)];
        assert!(st.create_all(Kind::Oidc, &batch).unwrap(), "{name}");
        for (id, rec) in batch {
            assert_eq!(
                st.get(Kind::Oidc, id).unwrap().as_ref(),
                Some(rec),
                "{name} {id}"
            );
        }
        // One id taken (the middle one): none of the batch is written, the taken one unchanged.
        st.create(Kind::Oidc, "t4", &session("held")).unwrap();
        let batch = [("t3", &a), ("t4", &b), ("t5", &c)];
        assert!(!st.create_all(Kind::Oidc, &batch).unwrap(), "{name}");
        assert_eq!(st.get(Kind::Oidc, "t3").unwrap(), None, "{name}");
        assert_eq!(
            st.get(Kind::Oidc, "t4").unwrap(),
            Some(session("held")),
            "{name}"
        );
        assert_eq!(st.get(Kind::Oidc, "t5").unwrap(), None, "{name}");
        // An invalid id refuses the batch before anything is written.
        assert!(
            st.create_all(Kind::Oidc, &[("t6", &a), ("../x", &b)])
                .is_err(),
            "{name}"
        );
        assert_eq!(st.get(Kind::Oidc, "t6").unwrap(), None, "{name}");
        // The store still works after a refused batch (no transaction left open).
        assert!(st.create_all(Kind::Oidc, &[("t7", &a)]).unwrap(), "{name}");
        let mut ids = st.ids(Kind::Oidc).unwrap();
        crate::util::sort::sort(&mut ids);
        assert_eq!(ids, ["f1", "t1", "t2", "t4", "t7"], "{name}");
    });
}

#[test]
fn exists_as_get_finds() {
    each(|name, st| {
        assert!(!st.exists(Kind::Oidc, "e1").unwrap(), "{name}");
        st.put(Kind::Oidc, "e1", &session("a")).unwrap();
        assert!(st.exists(Kind::Oidc, "e1").unwrap(), "{name}");
        // One kind does not answer for another.
        assert!(!st.exists(Kind::Pending, "e1").unwrap(), "{name}");
        st.put(Kind::Oidc, "e2", &session("b")).unwrap();
        assert!(st.take(Kind::Oidc, "e2").unwrap().is_some(), "{name}");
        assert!(!st.exists(Kind::Oidc, "e2").unwrap(), "{name}");
        assert!(st.delete(Kind::Oidc, "e1").unwrap(), "{name}");
        assert!(!st.exists(Kind::Oidc, "e1").unwrap(), "{name}");
        assert!(st.exists(Kind::Oidc, "../e1").is_err(), "{name}");
    });
}

#[test]
fn take_removes() {
    each(|name, st| {
        st.put(Kind::Pending, "t1", &session("a")).unwrap();
        assert_eq!(
            st.take(Kind::Pending, "t1").unwrap(),
            Some(session("a")),
            "{name}"
        );
        assert_eq!(st.take(Kind::Pending, "t1").unwrap(), None, "{name}");
        assert_eq!(st.get(Kind::Pending, "t1").unwrap(), None, "{name}");
    });
}

#[test]
fn ids_lists_one_kind() {
    each(|name, st| {
        // Ids as the portal makes them: 64 hex for SSO sessions, 32 for persistent ones.
        let sso: Vec<String> = (0..3).map(|_| crate::util::random_hex(32)).collect();
        for id in &sso {
            st.put(Kind::Global, id, &session(id)).unwrap();
        }
        let pid = crate::util::random_hex(16);
        st.put(Kind::Persistent, &pid, &session("p")).unwrap();
        st.put(Kind::Oidc, "code1", &session("o")).unwrap();
        let mut ids = st.ids(Kind::Global).unwrap();
        crate::util::sort::sort(&mut ids);
        let mut want = sso.clone();
        crate::util::sort::sort(&mut want);
        assert_eq!(ids, want, "{name}");
        assert_eq!(st.ids(Kind::Persistent).unwrap(), vec![pid], "{name}");
        assert_eq!(st.ids(Kind::Oidc).unwrap(), vec!["code1"], "{name}");
        assert!(st.ids(Kind::Pending).unwrap().is_empty(), "{name}");
    });
}

#[test]
fn traversal_ids_are_refused() {
    each(|name, st| {
        for bad in [
            "../x",
            "..",
            "a/b",
            "/etc/passwd",
            ".hidden",
            "",
            "a\0b",
            "a b",
        ] {
            assert!(
                st.put(Kind::Global, bad, &session("x")).is_err(),
                "{name} put {bad:?}"
            );
            assert!(st.get(Kind::Global, bad).is_err(), "{name} get {bad:?}");
            assert!(
                st.delete(Kind::Global, bad).is_err(),
                "{name} delete {bad:?}"
            );
            assert!(
                st.create(Kind::Global, bad, &session("x")).is_err(),
                "{name} create"
            );
            assert!(st.take(Kind::Global, bad).is_err(), "{name} take {bad:?}");
        }
        assert!(st.ids(Kind::Global).unwrap().is_empty(), "{name}");
    });
}

#[test]
fn concurrent_take_has_exactly_one_winner() {
    for (_dir, store) in backends() {
        for round in 0..5 {
            let id = format!("code{round}");
            store.put(Kind::Oidc, &id, &session("once")).unwrap();
            let n = 8;
            let barrier = Arc::new(Barrier::new(n));
            let wins = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = (0..n)
                .map(|_| {
                    let (store, barrier, wins, id) =
                        (store.clone(), barrier.clone(), wins.clone(), id.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        if store.take(Kind::Oidc, &id).unwrap().is_some() {
                            wins.fetch_add(1, Ordering::SeqCst);
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            assert_eq!(wins.load(Ordering::SeqCst), 1, "{}", store.describe());
        }
    }
}

/// File sessions are not synced (`Durability::Cached`): what a power loss can leave, an empty
/// file, reads as no session (and is not there for `exists`); a file with other garbage
/// stays an error.
#[test]
fn an_empty_session_file_reads_as_absent() {
    let tmp = Tmp::new("empty");
    let st = FileSessions::open(&tmp.0).unwrap();
    std::fs::write(tmp.0.join("cut"), b"").unwrap();
    assert_eq!(st.get(Kind::Global, "cut").unwrap(), None);
    assert!(!st.exists(Kind::Global, "cut").unwrap());
    std::fs::write(tmp.0.join("torn"), b"{\"uid\":").unwrap();
    assert!(st.get(Kind::Global, "torn").is_err());
}

#[test]
fn update_replaces_only_what_still_exists() {
    each(|name, st| {
        assert!(
            !st.update(Kind::Global, "u1", &session("a")).unwrap(),
            "{name}"
        );
        assert_eq!(st.get(Kind::Global, "u1").unwrap(), None, "{name}");
        st.put(Kind::Global, "u1", &session("a")).unwrap();
        assert!(
            st.update(Kind::Global, "u1", &session("b")).unwrap(),
            "{name}"
        );
        assert_eq!(
            st.get(Kind::Global, "u1").unwrap(),
            Some(session("b")),
            "{name}"
        );
        assert!(st.delete(Kind::Global, "u1").unwrap(), "{name}");
        assert!(
            !st.update(Kind::Global, "u1", &session("c")).unwrap(),
            "{name}"
        );
        assert_eq!(
            st.get(Kind::Global, "u1").unwrap(),
            None,
            "{name}: brought back"
        );
    });
}

/// Updates racing deletes: once the delete has returned, no update brings the session back.
#[test]
fn an_update_racing_a_delete_never_resurrects() {
    each(|name, st| {
        for round in 0..50 {
            let id = format!("race{round}");
            st.put(Kind::Global, &id, &session("a")).unwrap();
            let barrier = Barrier::new(2);
            std::thread::scope(|sc| {
                sc.spawn(|| {
                    barrier.wait();
                    st.update(Kind::Global, &id, &session("b")).unwrap();
                });
                barrier.wait();
                st.delete(Kind::Global, &id).unwrap();
            });
            // Whichever ran first, the session is gone: an update before the delete was
            // deleted with it, an update after it found nothing to replace.
            let left = st.get(Kind::Global, &id).unwrap();
            assert_eq!(left, None, "{name}: round {round} brought the session back");
        }
    });
}
