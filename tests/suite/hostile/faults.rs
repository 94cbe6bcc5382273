//! kill -9 in the middle of write bursts, then a restart on the same data: every store must be
//! consistent (no torn record) and every write the server acknowledged must still be there.
use crate::common::{hostile, Builder, Portal, TempDir};
use limette::storage::{Kind, SessionStore};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Logs in from several threads until at least `min_acks` logins were answered, kills the
/// server with SIGKILL while the burst goes on, and returns the acknowledged session ids.
fn burst_then_kill(p: &mut Portal, min_acks: usize) -> Vec<String> {
    let acked = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..6)
        .map(|i| {
            let (acked, stop, port) = (acked.clone(), stop.clone(), p.port);
            std::thread::spawn(move || {
                let user = ["dwho", "rtyler", "msmith"][i % 3];
                let body = format!("user={user}&password={user}");
                while !stop.load(Ordering::SeqCst) {
                    let ct = "Content-Type: application/x-www-form-urlencoded\r\n";
                    match hostile::request(port, "POST", "/", ct, body.as_bytes()) {
                        Ok(r) if r.status == 200 => {
                            let id = r.json()["id"].as_str().unwrap_or_default().to_string();
                            acked.lock().unwrap().push(id);
                        }
                        Ok(r) => panic!("login answered {} {}", r.status, r.text()),
                        Err(_) => break, // the server is gone
                    }
                }
            })
        })
        .collect();
    let enough = hostile::wait_for(Duration::from_secs(10), || {
        acked.lock().unwrap().len() >= min_acks
    });
    assert!(
        enough,
        "only {} logins answered",
        acked.lock().unwrap().len()
    );
    p.kill9();
    stop.store(true, Ordering::SeqCst);
    for w in workers {
        w.join().expect("a login thread failed");
    }
    let ids = acked.lock().unwrap().clone();
    ids
}

/// Every record of the store reads back as a whole session whose id matches its name.
fn assert_store_consistent(store: &dyn SessionStore) -> usize {
    let ids = store.ids(Kind::Global).expect("list the store");
    for id in &ids {
        let s = store
            .get(Kind::Global, id)
            .unwrap_or_else(|e| panic!("session {id} is torn: {e}"));
        let s = s.unwrap_or_else(|| panic!("session {id} listed but unreadable"));
        assert_eq!(
            s["_session_id"],
            id.as_str(),
            "session {id} holds another id"
        );
    }
    ids.len()
}

/// Restarts on the same data and checks that each acknowledged session is still valid.
fn assert_acked_sessions_live(builder: Builder, acked: &[String]) {
    let p = builder.start();
    for id in acked {
        let r = hostile::request(
            p.port,
            "GET",
            "/",
            &format!("Cookie: lemonldap={id}\r\n"),
            b"",
        )
        .unwrap();
        assert_eq!(
            r.status,
            200,
            "acknowledged session {id} lost: {}",
            r.text()
        );
    }
    super::assert_serving(&p);
}

#[test]
fn kill_9_during_file_session_bursts_leaves_no_torn_file() {
    let mut p = Portal::start();
    let acked = burst_then_kill(&mut p, 60);
    let dir = p.dir.take().unwrap();
    let store =
        limette::storage::file::sessions::FileSessions::open(&dir.path().join("sessions")).unwrap();
    let n = assert_store_consistent(&store);
    assert!(
        n >= acked.len(),
        "{n} sessions stored, {} acknowledged",
        acked.len()
    );
    assert_acked_sessions_live(Portal::builder().data(dir), &acked);
}

#[test]
fn kill_9_during_sqlite_session_bursts_leaves_a_consistent_database() {
    let dir = TempDir::new("sqlite-kill");
    let db = dir.path().join("sessions.db");
    let sqlite = |b: Builder| {
        b.ini("globalStorage = SQLite").ini(&format!(
            "globalStorageOptions = {{\"DataSource\": \"{}\"}}",
            db.display()
        ))
    };
    let mut p = sqlite(Portal::builder().data(dir)).start();
    let acked = burst_then_kill(&mut p, 60);
    let dir = p.dir.take().unwrap();
    let store = limette::storage::sqlite::sessions::SqliteSessions::open(&db).unwrap();
    let n = assert_store_consistent(&store);
    assert!(
        n >= acked.len(),
        "{n} sessions stored, {} acknowledged",
        acked.len()
    );
    drop(store);
    assert_acked_sessions_live(sqlite(Portal::builder().data(dir)), &acked);
}
