//! The notification store: one object-safe trait with exactly the queries the server, the
//! portal flow and the CLI need, the record it keeps, and the opener, which picks the backend
//! named by `notificationStorage` (default: beside the configuration store). The backends live
//! in `file::notifications` and `sqlite::notifications`; the contract suite in
//! `notifications/store/tests.rs` runs against both. Reading a record's document as a
//! notification is the notifications area's (`notifications::store`).
use crate::error::{Error, Result};

/// Which format a stored document is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON object (default since LemonLDAP::NG 2.0).
    Json,
    /// `<root><notification ...>...</notification></root>` (`oldNotifFormat` = 1).
    Xml,
}

impl Format {
    /// The file extension LemonLDAP::NG uses.
    pub fn ext(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Xml => "xml",
        }
    }

    /// The format of a stored document (XML documents start with `<`).
    pub fn of(doc: &str) -> Format {
        if doc.trim_start().starts_with('<') {
            Format::Xml
        } else {
            Format::Json
        }
    }
}

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
