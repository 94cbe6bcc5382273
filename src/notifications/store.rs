//! The notification store as the notifications area sees it: the trait, the record and the
//! openers are storage's (`storage::notifications`, re-exported here); this file adds what
//! needs the model (a record from a notification and back, its title, `insert_all`, `readable`), whose
//! notifications a session sees (`trace`) and the opener from the area's `Settings`.
use super::model::{Invalid, Notification};
use super::Settings;
use crate::config::local::LocalConf;
use crate::config::value_string;
use crate::error::Result;
pub use crate::storage::notifications::{check_batch, duplicate, NotificationStore, Record};
pub use crate::storage::open::open_choice;
use crate::storage::Session;
use std::sync::Arc;

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

    /// The notification's title (its titles joined, tags removed), `None` when it has none or
    /// its document cannot be read: the lists show it with the reference beside it.
    pub fn title(&self) -> Option<String> {
        let n = self.notification().ok()?;
        let t = n.title.join(" ").trim().to_string();
        (!t.is_empty()).then_some(t)
    }
}

/// Opens the store the notification settings name.
pub fn open(local: &LocalConf, s: &Settings) -> Result<Arc<dyn NotificationStore>> {
    crate::storage::open::open(local, s.storage.as_ref(), &s.separator)
}

/// The storage in force for these settings (see `storage::open::resolve`).
pub fn resolve(local: &LocalConf, s: &Settings) -> super::StorageChoice {
    crate::storage::open::resolve(local, s.storage.as_ref(), &s.separator)
}

/// The notification of a stored record; an unreadable one is logged and skipped.
pub fn readable(r: &Record) -> Option<Notification> {
    match r.notification() {
        Ok(n) => Some(n),
        Err(e) => {
            crate::log::error(&format!(
                "notification {} of {} is unreadable: {e:?}",
                r.reference, r.uid
            ));
            None
        }
    }
}

/// The `whatToTrace` value of a session.
pub fn trace(s: &Session) -> String {
    s.get("_whatToTrace").map(value_string).unwrap_or_default()
}

/// Stores validated notifications, all or nothing.
pub fn insert_all(store: &dyn NotificationStore, list: &[Notification]) -> Result<usize> {
    let records: Vec<Record> = list.iter().map(Record::new).collect();
    store.insert(&records)
}

#[cfg(test)]
mod tests;
