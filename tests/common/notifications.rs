//! Helpers of the notification-server tests: a portal with the server on, on File or SQLite
//! storage, and the store it uses opened from the test (to accept notifications).
use super::{Builder, Portal, TempDir};
use limette::notifications::store::{open_choice, NotificationStore};
use limette::notifications::StorageChoice;
use serde_json::{json, Value};
use std::sync::Arc;

/// Storage backends the tests run on.
#[derive(Debug, Clone, Copy)]
pub enum Backend {
    File,
    Sqlite,
}

pub const BACKENDS: [Backend; 2] = [Backend::File, Backend::Sqlite];

/// A portal whose notification server is on with every REST method enabled, on `backend`.
pub fn server(backend: Backend, extra: &[(&str, Value)]) -> (Portal, Arc<dyn NotificationStore>) {
    let dir = TempDir::new("notif");
    let choice = match backend {
        // The default: a `notifications` folder beside the configuration folder.
        Backend::File => StorageChoice::File {
            dir: dir.path().join("notifications"),
            separator: "_".into(),
        },
        Backend::Sqlite => StorageChoice::Sqlite {
            path: dir.path().join("notifications.db"),
            table: "notifs".into(),
        },
    };
    let mut b: Builder = Portal::builder()
        .conf("notificationServer", json!(1))
        .conf("notificationServerGET", json!(1))
        .conf("notificationServerDELETE", json!(1));
    if let StorageChoice::Sqlite { path, .. } = &choice {
        b = b.conf("notificationStorage", json!("SQLite")).conf(
            "notificationStorageOptions",
            json!({"dbiChain": format!("dbi:SQLite:dbname={}", path.display()), "dbiTable": "notifs"}),
        );
    }
    for (k, v) in extra {
        b = b.conf(k, v.clone());
    }
    let portal = b.data(dir).start();
    let store = open_choice(&choice).unwrap();
    (portal, store)
}
