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
    fn key(&self) -> u64 {
        key_of(&self.uid, &self.reference, self.done)
    }
}

/// The index key of a uid+reference+done: a hash, so that the index holds no second copy of
/// every uid and reference (a picture of 40,000 notifications was half index). A hit is
/// confirmed against the names: two keys that collide never make a false duplicate.
fn key_of(uid: &str, reference: &str, done: bool) -> u64 {
    use std::hash::BuildHasher;
    static SEED: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    SEED.get_or_init(Default::default)
        .hash_one((uid, reference, done))
}

/// The folder's files with what their names say.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    /// File name and its parsed form, in no particular order.
    pub names: Vec<(String, Name)>,
    /// How many files hold each uid+reference+done key (`key_of`): the duplicate check of an
    /// insert without a walk through every name.
    keys: HashMap<u64, u32>,
}

impl Entries {
    /// Whether a file holds `uid`+`reference` (pending, or accepted when `done`).
    pub fn holds(&self, uid: &str, reference: &str, done: bool) -> bool {
        self.keys.contains_key(&key_of(uid, reference, done))
            && self
                .names
                .iter()
                .any(|(_, n)| n.done == done && n.uid == uid && n.reference == reference)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn name(uid: &str, reference: &str, done: bool) -> Name {
        Name {
            date: "2024-01-01".into(),
            uid: uid.into(),
            reference: reference.into(),
            condition: String::new(),
            done,
        }
    }

    #[test]
    fn the_duplicate_index_is_exact_and_counts_files() {
        let mut e = Entries::default();
        e.add("a.json".into(), name("dwho", "r1", false));
        e.add("b.json".into(), name("dwho", "r1", false));
        e.add("c.done".into(), name("rtyler", "r2", true));
        assert!(e.holds("dwho", "r1", false));
        assert!(!e.holds("dwho", "r1", true), "pending is not accepted");
        assert!(!e.holds("dwho", "r2", false) && !e.holds("rtyler", "r1", false));
        assert!(
            !e.holds("dwh", "or1", false),
            "the parts are not run together"
        );
        assert!(e.holds("rtyler", "r2", true));
        e.remove(|f| f == "a.json");
        assert!(e.holds("dwho", "r1", false), "one of two files is left");
        e.remove(|f| f == "b.json");
        assert!(!e.holds("dwho", "r1", false));
        // A key present with other names (as after a collision) is not a duplicate.
        e.keys.insert(key_of("msmith", "r3", false), 1);
        assert!(!e.holds("msmith", "r3", false));
    }
}
