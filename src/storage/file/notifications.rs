//! Notifications as files, named exactly as LemonLDAP::NG's `Common/Notifications/File.pm` does
//! so that a folder moves between the two:
//! `<YYYYMMDD><sep><uid><sep><base64 ref>[<sep><base64 cond>].json|.xml`, the extension replaced
//! by `.done` once accepted (its modification time is the acceptance time). Names are parsed,
//! never trusted: a file that does not parse is skipped. Inserts hold one lock, check the whole
//! batch against the folder, create each file atomically and remove them all again on failure;
//! the folder is then synced once for every insert waiting at that moment. The picture of the
//! folder is kept between requests (`listing`).
mod listing;

use crate::error::{Error, Result};
use crate::storage::notifications::{check_batch, duplicate, NotificationStore, Record};
use crate::util::parse_date;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use listing::{Base, Cache, Entries, Entry, Name};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;
use std::time::{Duration, UNIX_EPOCH};

/// A folder of notification files.
pub struct FileNotifications {
    dir: PathBuf,
    sep: String,
    /// Serialises this process's changes of the folder (and of the kept picture).
    write: Mutex<()>,
    cache: Cache,
    synced: super::FolderSync,
}

impl FileNotifications {
    /// Opens (and creates) the folder.
    pub fn open(dir: &Path, sep: &str) -> Result<FileNotifications> {
        if sep.is_empty() || sep.contains('/') {
            return Err(Error::bad(
                "fileNameSeparator must be a non-empty string without '/'",
            ));
        }
        super::ensure_dir(dir)?;
        Ok(FileNotifications {
            dir: dir.to_path_buf(),
            sep: sep.to_string(),
            write: Mutex::new(()),
            cache: Cache::default(),
            synced: super::FolderSync::default(),
        })
    }

    /// The file name of a pending record.
    fn file_name(&self, r: &Record, ext: &str) -> Result<String> {
        let sep = &self.sep;
        if r.uid.contains(sep.as_str()) {
            return Err(Error::bad(format!(
                "uid {} contains the file name separator {sep}",
                r.uid
            )));
        }
        let mut name = format!(
            "{}{sep}{}{sep}{}",
            r.date.replace('-', ""),
            r.uid,
            B64.encode(&r.reference)
        );
        if !r.condition.is_empty() {
            name.push_str(&format!("{sep}{}", B64.encode(&r.condition)));
        }
        name.push('.');
        name.push_str(ext);
        if name.contains('/') || name.len() > 250 {
            return Err(Error::bad(format!(
                "reference {} or its condition cannot be stored as a file name",
                r.reference
            )));
        }
        Ok(name)
    }

    /// Parses a file name; `None` for anything else (temp files, foreign files).
    fn parse(&self, file: &str) -> Option<Name> {
        let (stem, ext) = file.rsplit_once('.')?;
        let done = match ext {
            "json" | "xml" => false,
            "done" => true,
            _ => return None,
        };
        let mut parts = stem.split(self.sep.as_str());
        let d = parts.next()?;
        let date = parse_date(&format!(
            "{}-{}-{}",
            d.get(0..4)?,
            d.get(4..6)?,
            d.get(6..8)?
        ))
        .filter(|_| d.len() == 8)?;
        let uid = parts.next()?.to_string();
        let reference = String::from_utf8(B64.decode(parts.next()?).ok()?).ok()?;
        let condition = match parts.next() {
            Some(c) => String::from_utf8(B64.decode(c).ok()?).ok()?,
            None => String::new(),
        };
        parts.next().is_none().then_some(Name {
            date,
            uid,
            reference,
            condition,
            done,
        })
    }

    /// Adds a file whose name parses to the picture; anything else is left out.
    fn add_to(&self, entries: &mut Entries, file: &str) {
        if let Some(n) = self.parse(file) {
            entries.add(file, &self.sep, n.done);
        }
    }

    /// The picture of the folder (kept between requests, see `listing`).
    fn names(&self) -> Result<Base> {
        self.cache.current(&self.dir, |room| self.scan(room))
    }

    /// Reads and parses the folder into a picture, in `out`'s room (built as it is read: no
    /// second list).
    fn scan(&self, mut out: Entries) -> Result<Entries> {
        let rd = fs::read_dir(&self.dir)
            .map_err(|e| Error::storage(format!("{}: {e}", self.dir.display())))?;
        for entry in rd {
            let entry =
                entry.map_err(|e| Error::storage(format!("{}: {e}", self.dir.display())))?;
            if let Some(file) = entry.file_name().to_str() {
                self.add_to(&mut out, file);
            }
        }
        Ok(out)
    }

    /// Reads the records whose names pass `keep`, sorted by date then reference.
    fn load(&self, keep: impl Fn(&Entry<'_>) -> bool) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        // The few names wanted are copied and the picture let go at once, before any file is
        // read: a writer that edits the picture meanwhile then edits it in place instead of
        // copying all of it (under a steady stream of inserts those copies, a few MiB each,
        // piled up in every worker's allocator heap).
        let wanted: Vec<(String, Name)> = {
            let base = self.names()?;
            let entries = base.entries();
            entries
                .iter()
                .filter(|e| keep(e))
                .filter_map(|e| Some((e.file().to_string(), self.parse(e.file())?)))
                .collect()
        };
        for (file, n) in &wanted {
            let path = self.dir.join(file);
            // A file removed since the listing (accepted, deleted) is simply gone.
            let Some(bytes) = super::read_opt(&path)? else {
                continue;
            };
            let done = if n.done { Some(mtime(&path)) } else { None };
            out.push(Record {
                date: n.date.clone(),
                uid: n.uid.clone(),
                reference: n.reference.clone(),
                condition: n.condition.clone(),
                doc: String::from_utf8_lossy(&bytes).into_owned(),
                done,
            });
        }
        crate::util::sort::sort_by_key(&mut out, Record::sort_key);
        Ok(out)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, ()>> {
        self.write
            .lock()
            .map_err(|_| Error::internal("notification folder lock poisoned"))
    }

    /// Files of `uid`+`reference` in `base`, each with whether it is accepted.
    fn files_of(base: &Base, uid: &str, reference: &str) -> Vec<(String, bool)> {
        let reference = B64.encode(reference);
        base.entries()
            .iter()
            .filter(|e| e.uid() == uid && e.reference_b64() == reference)
            .map(|e| (e.file().to_string(), e.done()))
            .collect()
    }
}

/// Batches at least this large have their files written ahead on a helper thread.
const AHEAD_FROM: usize = 64;

/// For a large batch: a helper thread that writes each notification, in order, to a file
/// without a name in `dir` and hands it over (`None` for one it could not make: the caller
/// takes the named way for it). Making and writing a new file is about half of an insert's
/// cost and takes no lock on the folder, so it runs beside the linking of the files before
/// it; the caller still links them one by one, in order, so a crash leaves a prefix of the
/// batch, whole. The helper stops when the caller drops the receiver.
fn written_ahead(dir: &Path, named: &[(String, &Record)]) -> Option<Receiver<Option<fs::File>>> {
    if named.len() < AHEAD_FROM {
        return None;
    }
    let docs: Vec<Vec<u8>> = named
        .iter()
        .map(|(_, r)| r.doc.as_bytes().to_vec())
        .collect();
    let dir = dir.to_path_buf();
    let (tx, rx) = sync_channel(AHEAD_FROM);
    let spawned = std::thread::Builder::new()
        .name("notif-write".into())
        .spawn(move || {
            for doc in docs {
                let file = super::write_unnamed(&dir, &doc, super::Durability::Cached);
                if tx.send(file).is_err() {
                    return;
                }
            }
        });
    spawned.ok().map(|_| rx)
}

fn mtime(path: &Path) -> i64 {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl NotificationStore for FileNotifications {
    fn insert(&self, records: &[Record]) -> Result<usize> {
        check_batch(records)?;
        let named: Vec<(String, &Record)> = records
            .iter()
            .map(|r| Ok((self.file_name(r, r.format().ext())?, r)))
            .collect::<Result<_>>()?;
        let guard = self.lock()?;
        let base = self.names()?;
        for r in records {
            let reference = B64.encode(&r.reference);
            for done in [false, true] {
                if base.entries().holds(&r.uid, &reference, done) {
                    return Err(duplicate(&r.reference, done));
                }
            }
        }
        let mut written: Vec<PathBuf> = Vec::with_capacity(named.len());
        let mut ahead = written_ahead(&self.dir, &named);
        for (name, r) in &named {
            if written.len() == named.len() / 2 {
                crate::pause::point("notification-insert"); // the crash tests kill here
            }
            let path = self.dir.join(name);
            let made = ahead.as_mut().and_then(|rx| rx.recv().ok().flatten());
            let published = made.and_then(|file| super::publish_unnamed(&file, &path));
            let cached = super::Durability::Cached;
            match published.unwrap_or_else(|| super::create_atomic(&path, r.doc.as_bytes(), cached))
            {
                Ok(true) => written.push(path),
                other => {
                    for p in &written {
                        let _ = fs::remove_file(p);
                    }
                    return Err(other
                        .err()
                        .unwrap_or_else(|| duplicate(&r.reference, false)));
                }
            }
        }
        self.cache.edited(&self.dir, base, |e| {
            for (name, _) in &named {
                self.add_to(e, name);
            }
        });
        drop(guard);
        // One folder sync for the batch, and one for all the inserts waiting at that moment,
        // instead of one file sync per notification.
        self.synced.sync(&self.dir);
        Ok(written.len())
    }

    fn pending_for(&self, uid: &str, wildcard: &str, until: Option<&str>) -> Result<Vec<Record>> {
        // Names carry the date as YYYYMMDD; `until` is YYYY-MM-DD.
        let until = until.map(|u| u.replace('-', ""));
        self.load(|e| {
            !e.done()
                && (e.uid() == uid || e.uid() == wildcard)
                && until.as_deref().map_or(true, |u| e.date() <= u)
        })
    }

    fn all_pending(&self) -> Result<Vec<Record>> {
        self.load(|e| !e.done())
    }

    fn all(&self) -> Result<Vec<Record>> {
        self.load(|_| true)
    }

    fn get(&self, uid: &str, reference: &str) -> Result<Option<Record>> {
        let r64 = B64.encode(reference);
        let mut list = self.load(|e| e.uid() == uid && e.reference_b64() == r64)?;
        crate::util::sort::sort_by_key(&mut list, |r| r.done.is_some());
        Ok(list.into_iter().next())
    }

    fn mark_done(&self, uid: &str, reference: &str, when: i64) -> Result<bool> {
        let _guard = self.lock()?;
        let base = self.names()?;
        let mut moved = Vec::new();
        let mut failed = None;
        for (file, _) in Self::files_of(&base, uid, reference)
            .into_iter()
            .filter(|(_, done)| !done)
        {
            let from = self.dir.join(&file);
            let stem = file.rsplit_once('.').map(|(s, _)| s).unwrap_or(&file);
            let done_name = format!("{stem}.done");
            let at = UNIX_EPOCH + Duration::from_secs(when.max(0) as u64);
            if let Ok(f) = fs::File::options().write(true).open(&from) {
                let _ = f.set_modified(at);
            }
            match fs::rename(&from, self.dir.join(&done_name)) {
                Ok(()) => moved.push((file, Some(done_name))),
                // Another process accepted it first: accepting is idempotent.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => moved.push((file, None)),
                Err(e) => {
                    failed = Some(Error::storage(format!("{}: {e}", from.display())));
                    break;
                }
            }
        }
        let any = moved.iter().any(|(_, to)| to.is_some());
        self.cache.edited(&self.dir, base, |e| {
            e.remove(|f| moved.iter().any(|(from, _)| from == f));
            for to in moved.into_iter().filter_map(|(_, to)| to) {
                e.add(&to, &self.sep, true);
            }
        });
        failed.map_or(Ok(any), Err)
    }

    fn delete(&self, uid: &str, reference: &str) -> Result<usize> {
        let _guard = self.lock()?;
        let base = self.names()?;
        let files = Self::files_of(&base, uid, reference);
        // Every file tried leaves the picture: removed now, or gone already.
        let mut tried = Vec::new();
        let mut n = 0;
        let mut failed = None;
        for (file, _) in files {
            match super::remove_opt(&self.dir.join(&file)) {
                Ok(removed) => n += usize::from(removed),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
            tried.push(file);
        }
        self.cache.edited(&self.dir, base, |e| {
            e.remove(|f| tried.iter().any(|r| r == f))
        });
        failed.map_or(Ok(n), Err)
    }

    fn purge_done(&self, before: i64) -> Result<usize> {
        let _guard = self.lock()?;
        let base = self.names()?;
        let mut tried = std::collections::HashSet::new();
        let mut n = 0;
        let mut failed = None;
        for file in base.entries().iter().filter(|e| e.done()).map(|e| e.file()) {
            let path = self.dir.join(file);
            if mtime(&path) >= before {
                continue;
            }
            match super::remove_opt(&path) {
                Ok(removed) => n += usize::from(removed),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
            tried.insert(file.to_string());
        }
        self.cache
            .edited(&self.dir, base, |e| e.remove(|f| tried.contains(f)));
        failed.map_or(Ok(n), Err)
    }

    fn describe(&self) -> String {
        format!("File notifications in {}", self.dir.display())
    }
}

#[cfg(test)]
mod tests;
