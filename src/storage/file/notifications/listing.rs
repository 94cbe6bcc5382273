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

/// Where one file's name sits in [`Entries::text`], and where its uid and reference (base64,
/// as in the name) sit in that name: 16 bytes, since a folder may hold hundreds of
/// thousands. What else a name says is parsed again for the few files a request reads.
#[derive(Debug, Clone, Copy)]
struct Slot {
    start: u32,
    len: u16,
    uid: (u16, u16),
    reference: (u16, u16),
    done: bool,
}

/// One file of the picture, as the picture's users see it.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    file: &'a str,
    slot: Slot,
}

impl<'a> Entry<'a> {
    /// The file name.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// Accepted (`.done`), or pending.
    pub fn done(&self) -> bool {
        self.slot.done
    }

    /// The date as the name has it, `YYYYMMDD`.
    pub fn date(&self) -> &'a str {
        self.file.get(..8).unwrap_or("")
    }

    pub fn uid(&self) -> &'a str {
        self.part(self.slot.uid)
    }

    /// The reference, base64 as in the name (a canonical encoding: names that decode only
    /// loosely never parse, so equal references have equal encodings).
    pub fn reference_b64(&self) -> &'a str {
        self.part(self.slot.reference)
    }

    fn part(&self, (from, to): (u16, u16)) -> &'a str {
        self.file.get(from as usize..to as usize).unwrap_or("")
    }

    fn key(&self) -> u64 {
        key_of(self.uid(), self.reference_b64(), self.done())
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

/// The folder's files with what their names say: three allocations whatever their number
/// (every name one after the other, a slot per file, the duplicate index), so that a
/// picture read again costs no heap of small pieces left in some worker's allocator.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    text: String,
    slots: Vec<Slot>,
    /// How many files hold each uid+reference+done key (`key_of`): the duplicate check of an
    /// insert without a walk through every name.
    keys: HashMap<u64, u32>,
}

impl Entries {
    /// Room for about `files` files, and a few more.
    pub fn with_capacity(files: usize) -> Entries {
        let files = files + files / 16;
        Entries {
            text: String::with_capacity(files * 48),
            slots: Vec::with_capacity(files),
            keys: HashMap::with_capacity(files),
        }
    }

    /// The same room, without any file.
    pub fn emptied(mut self) -> Entries {
        self.text.clear();
        self.slots.clear();
        self.keys.clear();
        self
    }

    /// Every file.
    pub fn iter(&self) -> impl Iterator<Item = Entry<'_>> {
        self.slots.iter().map(|&slot| self.entry(slot))
    }

    fn entry(&self, slot: Slot) -> Entry<'_> {
        let from = slot.start as usize;
        Entry {
            file: self.text.get(from..from + slot.len as usize).unwrap_or(""),
            slot,
        }
    }

    /// Whether a file holds `uid`+`reference` (base64; pending, or accepted when `done`).
    pub fn holds(&self, uid: &str, reference_b64: &str, done: bool) -> bool {
        self.keys.contains_key(&key_of(uid, reference_b64, done))
            && self
                .iter()
                .any(|e| e.done() == done && e.uid() == uid && e.reference_b64() == reference_b64)
    }

    /// Records a new file, whose name parsed (`<date><sep><uid><sep><base64 ref>...`);
    /// `false` (nothing recorded) when it does not have that shape.
    pub fn add(&mut self, file: &str, sep: &str, done: bool) -> bool {
        let Some(slot) = self.slot(file, sep, done) else {
            return false;
        };
        self.text.push_str(file);
        let key = self.entry(slot).key();
        *self.keys.entry(key).or_insert(0) += 1;
        self.slots.push(slot);
        true
    }

    /// The slot `file` would have at the end of the text.
    fn slot(&self, file: &str, sep: &str, done: bool) -> Option<Slot> {
        let (stem, _) = file.rsplit_once('.')?;
        let mut parts = stem.split(sep);
        let (date, uid, reference) = (parts.next()?, parts.next()?, parts.next()?);
        let u0 = date.len() + sep.len();
        let r0 = u0 + uid.len() + sep.len();
        let at = |n: usize| u16::try_from(n).ok();
        Some(Slot {
            start: u32::try_from(self.text.len()).ok()?,
            len: at(file.len())?,
            uid: (at(u0)?, at(u0 + uid.len())?),
            reference: (at(r0)?, at(r0 + reference.len())?),
            done,
        })
    }

    /// Forgets the files `gone` says are gone; the names' text is packed again once most of
    /// it belongs to forgotten files.
    pub fn remove(&mut self, gone: impl Fn(&str) -> bool) {
        let mut slots = std::mem::take(&mut self.slots);
        slots.retain(|&slot| {
            let e = self.entry(slot);
            if !gone(e.file()) {
                return true;
            }
            let key = e.key();
            if let Some(c) = self.keys.get_mut(&key) {
                *c -= 1;
                if *c == 0 {
                    self.keys.remove(&key);
                }
            }
            false
        });
        let live: usize = slots.iter().map(|s| s.len as usize).sum();
        if self.text.len() > 2 * live + 4096 {
            let mut text = String::with_capacity(live);
            for slot in &mut slots {
                let file = self.entry(*slot).file;
                // `live` bytes in all: the offsets fit, as they did in the larger text.
                slot.start = text.len() as u32;
                text.push_str(file);
            }
            self.text = text;
        }
        self.slots = slots;
    }

    /// How many files.
    pub fn count(&self) -> usize {
        self.slots.len()
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
    /// for the next request unless an edit overlapped the scan). `scan` fills the room of the
    /// stale picture again when nobody else holds it (else new room of its size): a folder
    /// under a stream of inserts is read again every [`SETTLE`], and a new picture each time,
    /// made by whichever worker came, left that much free memory in every worker's allocator.
    pub fn current<E>(
        &self,
        dir: &Path,
        scan: impl FnOnce(Entries) -> Result<Entries, E>,
    ) -> Result<Base, E> {
        let mtime = folder_mtime(dir);
        let now = Instant::now();
        let mut edits = None;
        let mut room = Entries::default();
        if let Ok(mut st) = self.state.lock() {
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
            if let Some(k) = st.kept.take() {
                room = Arc::try_unwrap(k.entries)
                    .map(Entries::emptied)
                    .unwrap_or_else(|held| Entries::with_capacity(held.count()));
            }
        }
        let started = SystemTime::now();
        let entries = Arc::new(scan(room)?);
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

    /// Adds `<date>_<uid>_<reference>.json|.done` (the reference stands for its base64 form).
    fn add(e: &mut Entries, date: &str, uid: &str, reference: &str, done: bool) {
        let ext = if done { "done" } else { "json" };
        assert!(e.add(&format!("{date}_{uid}_{reference}.{ext}"), "_", done));
    }

    #[test]
    fn an_entry_finds_the_parts_of_its_name() {
        let mut e = Entries::default();
        assert!(e.add("20240102--dwho--cjE=--Y29uZA==.xml", "--", false));
        assert!(!e.add("20240102--dwho.json", "--", false), "no reference");
        let x = e.iter().next().unwrap();
        assert_eq!(
            (x.date(), x.uid(), x.reference_b64()),
            ("20240102", "dwho", "cjE=")
        );
        assert_eq!(x.file(), "20240102--dwho--cjE=--Y29uZA==.xml");
    }

    #[test]
    fn forgetting_most_files_packs_the_names() {
        let mut e = Entries::default();
        for i in 0..1000 {
            add(&mut e, "20240101", &format!("u{i}"), "r", false);
        }
        let before = e.text.len();
        e.remove(|f| !f.starts_with("20240101_u7_"));
        assert_eq!(e.count(), 1);
        assert!(
            e.text.len() < before / 100,
            "packed: {} bytes",
            e.text.len()
        );
        assert!(e.holds("u7", "r", false) && !e.holds("u8", "r", false));
        assert_eq!(e.iter().next().unwrap().file(), "20240101_u7_r.json");
    }

    #[test]
    fn the_duplicate_index_is_exact_and_counts_files() {
        let mut e = Entries::default();
        add(&mut e, "20240101", "dwho", "r1", false);
        add(&mut e, "20240102", "dwho", "r1", false);
        add(&mut e, "20240103", "rtyler", "r2", true);
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
