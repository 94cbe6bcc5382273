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

/// One file of the picture, kept small since a folder may hold hundreds of thousands: its
/// name, and where the uid and the reference (base64, as in the name) sit in it. What else
/// the name says is parsed again for the few files a request reads.
#[derive(Debug, Clone)]
pub struct Entry {
    file: Box<str>,
    uid: (u16, u16),
    reference: (u16, u16),
    pub done: bool,
}

impl Entry {
    /// The entry of `file`, whose name parsed (`<date><sep><uid><sep><base64 ref>...`);
    /// `None` when it does not have that shape.
    pub fn new(file: String, sep: &str, done: bool) -> Option<Entry> {
        let (stem, _) = file.rsplit_once('.')?;
        let mut parts = stem.split(sep);
        let (date, uid, reference) = (parts.next()?, parts.next()?, parts.next()?);
        let u0 = date.len() + sep.len();
        let r0 = u0 + uid.len() + sep.len();
        let at = |n: usize| u16::try_from(n).ok();
        Some(Entry {
            uid: (at(u0)?, at(u0 + uid.len())?),
            reference: (at(r0)?, at(r0 + reference.len())?),
            done,
            file: file.into_boxed_str(),
        })
    }

    /// The file name.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The date as the name has it, `YYYYMMDD`.
    pub fn date(&self) -> &str {
        self.file.get(..8).unwrap_or("")
    }

    pub fn uid(&self) -> &str {
        self.part(self.uid)
    }

    /// The reference, base64 as in the name (a canonical encoding: names that decode only
    /// loosely never parse, so equal references have equal encodings).
    pub fn reference_b64(&self) -> &str {
        self.part(self.reference)
    }

    fn part(&self, (from, to): (u16, u16)) -> &str {
        self.file.get(from as usize..to as usize).unwrap_or("")
    }

    fn key(&self) -> u64 {
        key_of(self.uid(), self.reference_b64(), self.done)
    }
}

/// The index key of a uid+reference+done: a hash, so that the index holds no second copy of
/// every uid and reference (a picture of 40,000 notifications was half index). A hit is
/// confirmed against the names: two keys that collide never make a false duplicate.
fn key_of(uid: &str, reference_b64: &str, done: bool) -> u64 {
    use std::hash::BuildHasher;
    static SEED: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    SEED.get_or_init(Default::default)
        .hash_one((uid, reference_b64, done))
}

/// The folder's files with what their names say.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    /// The files, in no particular order.
    pub names: Vec<Entry>,
    /// How many files hold each uid+reference+done key (`key_of`): the duplicate check of an
    /// insert without a walk through every name.
    keys: HashMap<u64, u32>,
}

impl Entries {
    /// Room for about `files` files, and a few more.
    pub fn with_capacity(files: usize) -> Entries {
        let files = files + files / 16;
        Entries {
            names: Vec::with_capacity(files),
            keys: HashMap::with_capacity(files),
        }
    }

    /// Whether a file holds `uid`+`reference` (base64; pending, or accepted when `done`).
    pub fn holds(&self, uid: &str, reference_b64: &str, done: bool) -> bool {
        self.keys.contains_key(&key_of(uid, reference_b64, done))
            && self
                .names
                .iter()
                .any(|e| e.done == done && e.uid() == uid && e.reference_b64() == reference_b64)
    }

    /// Records a new file.
    pub fn add(&mut self, entry: Entry) {
        *self.keys.entry(entry.key()).or_insert(0) += 1;
        self.names.push(entry);
    }

    /// Forgets the files `gone` says are gone.
    pub fn remove(&mut self, gone: impl Fn(&str) -> bool) {
        let keys = &mut self.keys;
        self.names.retain(|e| {
            if !gone(e.file()) {
                return true;
            }
            if let Some(c) = keys.get_mut(&e.key()) {
                *c -= 1;
                if *c == 0 {
                    keys.remove(&e.key());
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
    /// for the next request unless an edit overlapped the scan). `scan` is told how many
    /// files the last picture held, to size the new one at once.
    pub fn current<E>(
        &self,
        dir: &Path,
        scan: impl FnOnce(usize) -> Result<Entries, E>,
    ) -> Result<Base, E> {
        let mtime = folder_mtime(dir);
        let now = Instant::now();
        let mut edits = None;
        let mut last = 0;
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
            last = st.kept.as_ref().map_or(0, |k| k.entries.names.len());
        }
        let started = SystemTime::now();
        let entries = Arc::new(scan(last)?);
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

    /// The entry of `<date>_<uid>_<reference>.json|.done` (the reference stands for its
    /// base64 form).
    fn entry(date: &str, uid: &str, reference: &str, done: bool) -> Entry {
        let ext = if done { "done" } else { "json" };
        Entry::new(format!("{date}_{uid}_{reference}.{ext}"), "_", done).unwrap()
    }

    #[test]
    fn an_entry_finds_the_parts_of_its_name() {
        let e = Entry::new("20240102--dwho--cjE=--Y29uZA==.xml".into(), "--", false).unwrap();
        assert_eq!(
            (e.date(), e.uid(), e.reference_b64()),
            ("20240102", "dwho", "cjE=")
        );
        assert!(Entry::new("20240102--dwho.json".into(), "--", false).is_none());
    }

    #[test]
    fn the_duplicate_index_is_exact_and_counts_files() {
        let mut e = Entries::default();
        e.add(entry("20240101", "dwho", "r1", false));
        e.add(entry("20240102", "dwho", "r1", false));
        e.add(entry("20240103", "rtyler", "r2", true));
        assert!(e.holds("dwho", "r1", false));
        assert!(!e.holds("dwho", "r1", true), "pending is not accepted");
        assert!(!e.holds("dwho", "r2", false) && !e.holds("rtyler", "r1", false));
        assert!(
            !e.holds("dwh", "or1", false),
            "the parts are not run together"
        );
        assert!(e.holds("rtyler", "r2", true));
        e.remove(|f| f == "20240101_dwho_r1.json");
        assert!(e.holds("dwho", "r1", false), "one of two files is left");
        e.remove(|f| f == "20240102_dwho_r1.json");
        assert!(!e.holds("dwho", "r1", false));
        // A key present with other names (as after a collision) is not a duplicate.
        e.keys.insert(key_of("msmith", "r3", false), 1);
        assert!(!e.holds("msmith", "r3", false));
    }
}
