//! kill -9 in the middle of a 10,000-notification insert and of concurrent configuration saves:
//! the stores must come back consistent (all or nothing for the transactional backend, whole
//! documents and unique configuration numbers everywhere). The kill lands where it matters
//! because the process is held at a pause point (`limette::pause`, debug builds with the test
//! hooks on) and killed there: the log line of the point proves the write had begun.
use crate::common::{hostile, Builder, Portal, TempDir};
use limette::notifications::store::open_choice;
use limette::notifications::StorageChoice;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// A JSON array of `n` valid notifications with distinct references.
fn bulk(n: usize) -> Vec<u8> {
    let list: Vec<Value> = (0..n)
        .map(|i| json!({"uid": format!("u{}", i % 50), "date": "2024-01-01", "reference": format!("BULK{i}"), "text": "t"}))
        .collect();
    serde_json::to_vec(&list).unwrap()
}

/// Arms the pause point `point`: the process holds there while `hold` exists.
fn paused_at(b: Builder, point: &str, hold: &Path) -> Builder {
    std::fs::write(hold, b"").unwrap();
    b.test_hooks()
        .env("LIMETTE_TEST_PAUSE", &format!("{point}@{}", hold.display()))
}

/// Posts a batch of notifications from a thread; the result is whatever the client saw.
fn post_batch(port: u16, body: Vec<u8>) -> std::thread::JoinHandle<std::io::Result<u16>> {
    std::thread::spawn(move || {
        let json = "Content-Type: application/json\r\n";
        hostile::request(port, "POST", "/notifications", json, &body).map(|r| r.status)
    })
}

/// Waits until the portal's log shows it held at `point`.
fn assert_held(p: &Portal, point: &str) {
    let line = format!("paused at {point}");
    assert!(
        hostile::wait_for(Duration::from_secs(60), || p.log().contains(&line)),
        "never reached the pause point {point} (pause points exist in debug builds only); log:\n{}",
        p.log()
    );
}

fn sqlite_notifications(b: Builder, db: &Path) -> Builder {
    b.conf("notificationServer", json!(1))
        .conf("notificationStorage", json!("SQLite"))
        .conf(
            "notificationStorageOptions",
            json!({"dbiChain": format!("dbi:SQLite:dbname={}", db.display()), "dbiTable": "notifs"}),
        )
}

#[test]
fn kill_9_inside_the_insert_transaction_leaves_nothing_in_sqlite() {
    let dir = TempDir::new("notif-kill");
    let db = dir.path().join("notifications.db");
    let hold = dir.path().join("hold");
    let choice = StorageChoice::Sqlite {
        path: db.clone(),
        table: "notifs".into(),
    };
    let b = sqlite_notifications(Portal::builder(), &db).data(dir);
    let mut p = paused_at(b, "notification-insert", &hold).start();
    let sender = post_batch(p.port, bulk(10_000));
    // Every row is written inside the transaction; the commit has not run.
    assert_held(&p, "notification-insert");
    p.kill9();
    assert!(
        sender.join().unwrap().is_err(),
        "the killed insert was answered"
    );
    let store = open_choice(&choice).unwrap();
    assert_eq!(
        store.all().unwrap().len(),
        0,
        "a killed transaction left rows"
    );
    drop(store);
    let integrity: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    // The same batch goes in whole after a restart (nothing half-kept makes it a duplicate),
    // and once acknowledged it survives another kill -9.
    let dir = p.dir.take().unwrap();
    let mut p = sqlite_notifications(Portal::builder(), &db)
        .data(dir)
        .start();
    assert_eq!(
        post_batch(p.port, bulk(10_000)).join().unwrap().unwrap(),
        200
    );
    p.kill9();
    assert_eq!(open_choice(&choice).unwrap().all().unwrap().len(), 10_000);
}

#[test]
fn kill_9_in_the_middle_of_a_file_notification_batch_leaves_no_torn_file() {
    let dir = TempDir::new("notif-file-kill");
    let folder = dir.path().join("notifications");
    let hold = dir.path().join("hold");
    let choice = StorageChoice::File {
        dir: folder.clone(),
        separator: "_".into(),
    };
    let b = Portal::builder()
        .conf("notificationServer", json!(1))
        .data(dir);
    let mut p = paused_at(b, "notification-insert", &hold).start();
    let sender = post_batch(p.port, bulk(2_000));
    // Half of the batch is in place, the other half not yet written.
    assert_held(&p, "notification-insert");
    p.kill9();
    assert!(
        sender.join().unwrap().is_err(),
        "the killed insert was answered"
    );
    // The folder is LemonLDAP::NG's layout, one file per notification: a batch cut by a crash
    // is partial (documented), but every file present must be whole.
    let mut whole = 0;
    for entry in std::fs::read_dir(&folder).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue; // a temp file never renamed into place
        }
        let doc = std::fs::read(entry.path()).unwrap();
        assert!(
            serde_json::from_slice::<Value>(&doc).is_ok(),
            "torn notification file {name}"
        );
        whole += 1;
    }
    assert_eq!(whole, 1_000, "the files written before the kill");
    assert_eq!(open_choice(&choice).unwrap().all().unwrap().len(), 1_000);
}

/// Starts `limette config set timeout <value>` on the data folder, held at the pause point
/// between writing a configuration and publishing it; its stderr goes to `log`.
fn held_save(data: &Path, value: u64, hold: &Path, log: &Path) -> std::process::Child {
    let set = ["config", "-yes", "1", "set", "timeout", &value.to_string()];
    crate::common::command(&data.join("limette.ini"), data, &set)
        .args(["--log", "fault test"])
        .env("LIMETTE_TEST_HOOKS", "1")
        .env(
            "LIMETTE_TEST_PAUSE",
            format!("file-create@{}", hold.display()),
        )
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// The numbers of the configurations in `conf`, each checked whole and holding its number,
/// and the temp files left beside them.
fn configurations(conf: &Path) -> (Vec<u64>, Vec<String>) {
    let (mut nums, mut temps) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(conf).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).unwrap();
        let doc: Value =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("torn {name}: {e}"));
        if name.starts_with(".lmConf-") {
            temps.push(name);
            continue;
        }
        let n: u64 = name
            .strip_prefix("lmConf-")
            .and_then(|r| r.strip_suffix(".json"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("stray file {name}"));
        assert_eq!(doc["cfgNum"], n, "{name} holds another number");
        nums.push(n);
    }
    nums.sort();
    (nums, temps)
}

#[test]
fn kill_9_during_concurrent_configuration_saves_leaves_unique_whole_configurations() {
    let dir = Portal::start().stop_keep_data();
    let data = dir.path().to_path_buf();
    let hold = data.join("hold");
    std::fs::write(&hold, b"").unwrap();
    let logs: Vec<_> = (0..12)
        .map(|i| data.join(format!("save-{i}.log")))
        .collect();
    let mut children: Vec<_> = (0..12)
        .map(|i| held_save(&data, 1000 + i as u64, &hold, &logs[i]))
        .collect();
    // All twelve hold a written, unpublished configuration; half of them are killed there.
    let held = |log: &Path| {
        std::fs::read_to_string(log).is_ok_and(|t| t.contains("paused at file-create"))
    };
    assert!(
        hostile::wait_for(Duration::from_secs(60), || logs.iter().all(|l| held(l))),
        "not every save reached its pause point"
    );
    for c in children.iter_mut().step_by(2) {
        c.kill().unwrap();
    }
    std::fs::remove_file(&hold).unwrap();
    let outcomes: Vec<bool> = children
        .iter_mut()
        .map(|c| c.wait().unwrap().success())
        .collect();
    let expected: Vec<bool> = (0..12).map(|i| i % 2 == 1).collect();
    assert_eq!(
        outcomes, expected,
        "the released saves succeed, the killed fail"
    );
    let (nums, temps) = configurations(&data.join("conf"));
    assert_eq!(
        nums,
        (1..=7).collect::<Vec<u64>>(),
        "unique numbers without gaps"
    );
    // Where the file system has unnamed temp files a killed save leaves nothing; elsewhere
    // each leaves its unpublished, whole, temp file (checked above).
    assert!(
        temps.is_empty() || temps.len() == 6,
        "a killed save left nothing, or its own unpublished file: {temps:?}"
    );
    // The server starts on the result and a later save takes the next number.
    let p = Portal::builder().data(dir).start();
    super::assert_serving(&p);
    let data = p.data().to_path_buf();
    let log = data.join("save-last.log");
    assert!(held_save(&data, 2000, &data.join("no-hold"), &log)
        .wait()
        .unwrap()
        .success());
    assert_eq!(
        configurations(&data.join("conf")).0,
        (1..=8).collect::<Vec<u64>>()
    );
}
