//! kill -9 in the middle of a 10,000-notification insert and of concurrent configuration saves:
//! the stores must come back consistent (all or nothing for the transactional backend, whole
//! documents and unique configuration numbers everywhere).
use crate::common::{bin, hostile, Portal, TempDir};
use limette::notifications::store::open_choice;
use limette::notifications::StorageChoice;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A JSON array of `n` valid notifications with distinct references.
fn bulk(n: usize) -> Vec<u8> {
    let list: Vec<Value> = (0..n)
        .map(|i| json!({"uid": format!("u{}", i % 50), "date": "2024-01-01", "reference": format!("BULK{i}"), "text": "t"}))
        .collect();
    serde_json::to_vec(&list).unwrap()
}

#[test]
fn kill_9_during_a_10000_notification_insert_leaves_all_or_nothing_in_sqlite() {
    let body = bulk(10_000);
    for delay_ms in [30, 120, 400] {
        let dir = TempDir::new("notif-kill");
        let db = dir.path().join("notifications.db");
        let choice = StorageChoice::Sqlite {
            path: db.clone(),
            table: "notifs".into(),
        };
        let mut p = Portal::builder()
            .conf("notificationServer", json!(1))
            .conf("notificationStorage", json!("SQLite"))
            .conf(
                "notificationStorageOptions",
                json!({"dbiChain": format!("dbi:SQLite:dbname={}", db.display()), "dbiTable": "notifs"}),
            )
            .data(dir)
            .start();
        let port = p.port;
        let body2 = body.clone();
        let sender = std::thread::spawn(move || {
            hostile::request(
                port,
                "POST",
                "/notifications",
                "Content-Type: application/json\r\n",
                &body2,
            )
        });
        std::thread::sleep(Duration::from_millis(delay_ms));
        p.kill9();
        let answered = matches!(sender.join().unwrap(), Ok(r) if r.status == 200);
        let n = open_choice(&choice).unwrap().all().unwrap().len();
        assert!(
            n == 0 || n == 10_000,
            "kill after {delay_ms} ms left {n} of 10,000"
        );
        if answered {
            assert_eq!(n, 10_000, "an acknowledged insert was lost");
        }
    }
}

#[test]
fn kill_9_during_file_notification_inserts_leaves_no_torn_file() {
    let dir = TempDir::new("notif-file-kill");
    let folder = dir.path().join("notifications");
    let choice = StorageChoice::File {
        dir: folder.clone(),
        separator: "_".into(),
    };
    let mut p = Portal::builder()
        .conf("notificationServer", json!(1))
        .data(dir)
        .start();
    let port = p.port;
    let body = bulk(2_000);
    let sender = std::thread::spawn(move || {
        hostile::request(
            port,
            "POST",
            "/notifications",
            "Content-Type: application/json\r\n",
            &body,
        )
    });
    assert!(hostile::wait_for(Duration::from_secs(10), || {
        std::fs::read_dir(&folder)
            .map(|d| d.count() > 20)
            .unwrap_or(false)
    }));
    p.kill9();
    let _ = sender.join();
    // The folder is LemonLDAP::NG's layout, one file per notification: a batch cut by a crash
    // may be partial (documented), but every file present must be whole.
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
    }
    let listed = open_choice(&choice).unwrap().all().unwrap();
    assert!(!listed.is_empty());
}

#[test]
fn kill_9_during_concurrent_configuration_saves_leaves_unique_whole_configurations() {
    let dir = Portal::start().stop_keep_data();
    let data = dir.path().to_path_buf();
    let ini = data.join("limette.ini");
    let mut children: Vec<_> = (0..12)
        .map(|i| {
            Command::new(bin())
                .arg("-c")
                .arg(&ini)
                .arg("--data")
                .arg(&data)
                .args([
                    "config",
                    "-yes",
                    "1",
                    "set",
                    "timeout",
                    &(1000 + i).to_string(),
                    "--log",
                    "fault test",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, c) in children.iter_mut().enumerate() {
        if i % 2 == 0 {
            std::thread::sleep(Duration::from_millis(3));
            let _ = c.kill();
        }
    }
    let saved = children
        .iter_mut()
        .map(|c| c.wait().map(|s| s.success()).unwrap_or(false))
        .filter(|ok| *ok)
        .count();
    let mut nums = Vec::new();
    for entry in std::fs::read_dir(data.join("conf")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(n) = name
            .strip_prefix("lmConf-")
            .and_then(|r| r.strip_suffix(".json"))
        else {
            continue;
        };
        let n: u64 = n.parse().unwrap();
        let doc: Value = serde_json::from_slice(&std::fs::read(entry.path()).unwrap())
            .unwrap_or_else(|e| panic!("torn {name}: {e}"));
        assert_eq!(doc["cfgNum"], n, "{name} holds another number");
        nums.push(n);
    }
    nums.sort();
    let expected: Vec<u64> = (1..=nums.len() as u64).collect();
    assert_eq!(nums, expected, "numbers are unique and without gaps");
    assert!(
        nums.len() > saved,
        "{} configurations for {saved} successful saves",
        nums.len()
    );
    // The server starts on the result.
    let p = Portal::builder().data(dir).start();
    crate::assert_serving(&p);
}
