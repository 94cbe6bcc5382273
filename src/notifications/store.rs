//! The notification store: one object-safe trait with exactly the queries the server, the
//! portal flow and the CLI need, and `open`, which picks the backend named by
//! `notificationStorage` (default: the configuration store's type). The backends live in
//! `storage::file::notifications` and `storage::sqlite::notifications`; the contract suite in
//! `store/tests.rs` runs against both.
use super::model::{Format, Invalid, Notification};
use super::{Settings, StorageChoice};
use crate::config::local::{ConfBackend, LocalConf};
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::storage::file::notifications::FileNotifications;
use crate::storage::sqlite::notifications::SqliteNotifications;
use std::path::PathBuf;
use std::sync::Arc;

/// A stored notification: the keys a store indexes plus the document it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// User or wildcard.
    pub uid: String,
    /// Reference.
    pub reference: String,
    /// Display condition (empty when none).
    pub condition: String,
    /// The stored document (JSON object or one-notification XML document).
    pub doc: String,
    /// When it was accepted (Unix time), `None` while pending.
    pub done: Option<i64>,
}

impl Record {
    /// The record a validated notification is stored as.
    pub fn new(n: &Notification) -> Record {
        Record {
            date: n.date.clone(),
            uid: n.uid.clone(),
            reference: n.reference.clone(),
            condition: n.condition.clone(),
            doc: n.to_document(),
            done: None,
        }
    }

    /// The notification held by the document.
    pub fn notification(&self) -> Result<Notification, Invalid> {
        Notification::from_document(&self.doc)
    }

    /// The document's format.
    pub fn format(&self) -> Format {
        Format::of(&self.doc)
    }

    /// Sort key: date, then reference (the spec's display order).
    pub fn sort_key(&self) -> (String, String, String) {
        (self.date.clone(), self.reference.clone(), self.uid.clone())
    }
}

/// A notification backend. `insert` is all-or-nothing and atomic with respect to other workers.
pub trait NotificationStore: Send + Sync {
    /// Inserts every record or none. A uid+reference already stored (pending or accepted) or
    /// repeated inside `records` is a `Conflict` and nothing is written. Returns the count.
    fn insert(&self, records: &[Record]) -> Result<usize>;
    /// Pending notifications of `uid` and of the `wildcard`, sorted by date then reference;
    /// with `until` (`YYYY-MM-DD`), only those whose date is reached.
    fn pending_for(&self, uid: &str, wildcard: &str, until: Option<&str>) -> Result<Vec<Record>>;
    /// Every pending notification, sorted.
    fn all_pending(&self) -> Result<Vec<Record>>;
    /// Every stored notification, accepted ones too, sorted.
    fn all(&self) -> Result<Vec<Record>>;
    /// The notification `uid`+`reference`, the pending one first, else an accepted one.
    fn get(&self, uid: &str, reference: &str) -> Result<Option<Record>>;
    /// Marks the pending `uid`+`reference` accepted at `when`; `false` when none was pending.
    fn mark_done(&self, uid: &str, reference: &str, when: i64) -> Result<bool>;
    /// Deletes `uid`+`reference` (pending or accepted); the number removed.
    fn delete(&self, uid: &str, reference: &str) -> Result<usize>;
    /// Deletes accepted notifications accepted before `before` (Unix time); the number removed.
    fn purge_done(&self, before: i64) -> Result<usize>;
    /// A short description for logs and the CLI.
    fn describe(&self) -> String;
}

/// The conflict answered for a uid+reference that is already stored.
pub fn duplicate(reference: &str, done: bool) -> Error {
    if done {
        Error::Conflict(format!("This notification has been done: {reference}"))
    } else {
        Error::Conflict(format!(
            "A notification already exists with reference {reference}"
        ))
    }
}

/// Refuses a batch that names one uid+reference twice.
pub fn check_batch(records: &[Record]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for r in records {
        if !seen.insert((r.uid.as_str(), r.reference.as_str())) {
            return Err(duplicate(&r.reference, false));
        }
    }
    Ok(())
}

/// Opens the store named by the configuration.
pub fn open(local: &LocalConf, conf: &Conf) -> Result<Arc<dyn NotificationStore>> {
    open_choice(&resolve(local, &conf.notifications))
}

/// Opens a resolved storage choice.
pub fn open_choice(choice: &StorageChoice) -> Result<Arc<dyn NotificationStore>> {
    Ok(match choice {
        StorageChoice::File { dir, separator } => {
            Arc::new(FileNotifications::open(dir, separator)?)
        }
        StorageChoice::Sqlite { path, table } => Arc::new(SqliteNotifications::open(path, table)?),
    })
}

/// The storage in force: `notificationStorage` when set, else beside the configuration store
/// (a `notifications` folder next to the configuration folder, or a `notifications` table in
/// the configuration database; with a REST configuration, a folder in the data folder).
pub fn resolve(local: &LocalConf, s: &Settings) -> StorageChoice {
    if let Some(c) = &s.storage {
        return c.clone();
    }
    match &local.conf_backend {
        ConfBackend::File { dir } => {
            let parent = dir.parent().map(PathBuf::from).unwrap_or_default();
            StorageChoice::File {
                dir: parent.join("notifications"),
                separator: s.separator.clone(),
            }
        }
        ConfBackend::Sqlite { path, .. } => StorageChoice::Sqlite {
            path: path.clone(),
            table: "notifications".into(),
        },
        ConfBackend::Rest { .. } => StorageChoice::File {
            dir: local.data_dir.join("notifications"),
            separator: s.separator.clone(),
        },
    }
}

#[cfg(test)]
mod tests;
