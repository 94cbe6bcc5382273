//! The File notification store's picture of its folder: every parsed file name, and a count
//! of the uid+reference keys for the duplicate check. Reading a folder of 10,000 files takes
//! milliseconds, so the picture is kept between requests while the folder's modification time
//! says nobody changed it, and this process's own writes edit it in place instead of making the
//! next request read the folder again.
//!
//! File times are coarse (a clock tick): a change by another process in the same tick as the
//! time a picture was taken for goes unseen by the time check. A picture is therefore trusted
//! without limit only when it was read well after the folder's last change ("settled"); any
//! other (read just after a change, or edited after our own writes) is read again at most
//! [`SETTLE`] later. Changes by other processes are seen within that second at worst.
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How long an unsettled picture is trusted, and how old a folder change must be for a
/// picture read after it to be settled.
pub const SETTLE: Duration = Duration::from_secs(1);

/// What a file name says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub date: String,
    pub uid: String,
    pub reference: String,
    pub condition: String,
    pub done: bool,
}

impl Name {
    fn key(&self) -> (String, String, bool) {
        (self.uid.clone(), self.reference.clone(), self.done)
    }
}

/// The folder's files with what their names say.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    /// File name and its parsed form, in no particular order.
    pub names: Vec<(String, Name)>,
    /// How many files hold each uid+reference+done: the duplicate check of an insert without
    /// a walk through every name.
    keys: HashMap<(String, String, bool), usize>,
}

impl Entries {
    /// Builds the picture from parsed names.
    pub fn new(names: Vec<(String, Name)>) -> Entries {
        let mut e = Entries {
            names: Vec::with_capacity(names.len()),
            keys: HashMap::with_capacity(names.len()),
        };
        for (file, n) in names {
            e.add(file, n);
        }
        e
    }

    /// Whether a file holds `uid`+`reference` (pending, or accepted when `done`).
    pub fn holds(&self, uid: &str, reference: &str, done: bool) -> bool {
        // The map's key owns its strings; a lookup by borrowed parts would need a second
        // key type, and the allocation is small beside a file's creation.
        self.keys
            .contains_key(&(uid.to_string(), reference.to_string(), done))
    }

    /// Records a new file.
    pub fn add(&mut self, file: String, name: Name) {
        *self.keys.entry(name.key()).or_insert(0) += 1;
        self.names.push((file, name));
    }

    /// Forgets the files `gone` says are gone.
    pub fn remove(&mut self, gone: impl Fn(&str) -> bool) {
        let keys = &mut self.keys;
        self.names.retain(|(file, n)| {
            if !gone(file) {
                return true;
            }
            if let Some(c) = keys.get_mut(&n.key()) {
                *c -= 1;
                if *c == 0 {
                    keys.remove(&n.key());
                }
            }
            false
        });
    }
}

/// The kept picture and what it stands for.
struct Kept {
    mtime: SystemTime,
    /// `None`: settled, trusted while the time matches; `Some(t)`: trusted until `t` only.
    until: Option<Instant>,
    entries: Arc<Entries>,
}

#[derive(Default)]
struct State {
    kept: Option<Kept>,
    /// Bumped by every edit: a read of the folder that overlapped one is not kept.
    edits: u64,
}

/// The kept picture of one folder, shared by the workers.
#[derive(Default)]
pub struct Cache {
    state: Mutex<State>,
}

/// A picture handed out for an edit: the entries and how long they are trusted.
pub struct Base {
    entries: Arc<Entries>,
    until: Option<Instant>,
}

impl Base {
    /// The entries.
    pub fn entries(&self) -> &Entries {
        &self.entries
    }
}

/// The folder's modification time, `None` when it cannot be read (nothing is kept then).
pub fn folder_mtime(dir: &Path) -> Option<SystemTime> {
    fs::metadata(dir).and_then(|m| m.modified()).ok()
}

impl Cache {
    /// The current picture of `dir`: the kept one while it is trusted, else `scan`'s (kept
    /// for the next request unless an edit overlapped the scan).
    pub fn current<E>(
        &self,
        dir: &Path,
        scan: impl FnOnce() -> Result<Entries, E>,
    ) -> Result<Base, E> {
        let mtime = folder_mtime(dir);
        let now = Instant::now();
        let mut edits = None;
        if let Ok(st) = self.state.lock() {
            if let Some(k) = st
                .kept
                .as_ref()
                .filter(|k| Some(k.mtime) == mtime && k.until.map_or(true, |u| now < u))
            {
                return Ok(Base {
                    entries: k.entries.clone(),
                    until: k.until,
                });
            }
            edits = Some(st.edits);
        }
        let started = SystemTime::now();
        let entries = Arc::new(scan()?);
        let settled = mtime.is_some_and(|m| started.duration_since(m).is_ok_and(|d| d > SETTLE));
        let until = (!settled).then(|| now + SETTLE);
        if let (Some(m), Ok(mut st)) = (mtime, self.state.lock()) {
            if Some(st.edits) == edits {
                st.kept = Some(Kept {
                    mtime: m,
                    until,
                    entries: entries.clone(),
                });
            }
        }
        Ok(Base { entries, until })
    }

    /// After this process changed the folder (its callers hold the store's write lock, so
    /// edits never run side by side): `base` with `change` applied becomes the kept picture,
    /// trusted at most [`SETTLE`] from now since another process may have written meanwhile.
    pub fn edited(&self, dir: &Path, base: Base, change: impl FnOnce(&mut Entries)) {
        // Drop the kept reference first, so that `base` is usually the only one and is
        // edited in place rather than copied.
        if let Ok(mut st) = self.state.lock() {
            st.kept = None;
            st.edits += 1;
        }
        let Base { mut entries, until } = base;
        change(Arc::make_mut(&mut entries));
        let bound = Instant::now() + SETTLE;
        let until = Some(until.map_or(bound, |u| u.min(bound)));
        if let (Some(m), Ok(mut st)) = (folder_mtime(dir), self.state.lock()) {
            st.edits += 1;
            st.kept = Some(Kept {
                mtime: m,
                until,
                entries,
            });
        }
    }

    /// Whether a picture is kept (for tests).
    #[cfg(test)]
    pub fn is_kept(&self) -> bool {
        self.state.lock().map(|s| s.kept.is_some()).unwrap_or(false)
    }
}
