//! The notification store as the notifications area sees it: the trait, the record and the
//! openers are storage's (`storage::notifications`, re-exported here); this file adds what
//! needs the model (a record from a notification and back) and the opener from the area's
//! `Settings`.
use super::model::{Invalid, Notification};
use super::Settings;
use crate::config::local::LocalConf;
use crate::error::Result;
pub use crate::storage::notifications::{check_batch, duplicate, NotificationStore, Record};
pub use crate::storage::open::open_choice;
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
}

/// Opens the store the notification settings name.
pub fn open(local: &LocalConf, s: &Settings) -> Result<Arc<dyn NotificationStore>> {
    crate::storage::open::open(local, s.storage.as_ref(), &s.separator)
}

/// The storage in force for these settings (see `storage::open::resolve`).
pub fn resolve(local: &LocalConf, s: &Settings) -> super::StorageChoice {
    crate::storage::open::resolve(local, s.storage.as_ref(), &s.separator)
}

#[cfg(test)]
mod tests;
