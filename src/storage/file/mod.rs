//! File backends: one JSON document per record. Every write goes to a temp file in the same
//! folder which is then renamed (replace) or hard-linked (create only if absent) into place, so
//! a reader never sees a torn file and a crash leaves at worst a stray temp file. Where the
//! file system allows, a new record's temp file has no name at all (`O_TMPFILE`): it is
//! linked into place once written, and a crash before that leaves nothing. Creating it takes
//! no lock on the folder, and it saves creating and removing a temp name: on a busy folder
//! that is about a third of a new file's cost.
//!
//! Durable records (configurations, the portal key) are also synced to the disk before the
//! rename. Sessions are not ([`Durability::Cached`]), as `Apache::Session::File` does not: a
//! killed process still never tears one (the rename happens in the kernel's cache, which
//! outlives the process), and only a power loss can lose the last seconds of sessions or leave
//! one empty, which then reads as absent (its user logs in again). One sync per session write
//! cost about 80 % of the login and token throughput on File storage.
//!
//! Whatever the umask: every file is created 0600 (sessions are named by the SSO cookie, and
//! configurations, tokens and the key are secrets) and every folder 0700.
pub mod conf;
pub mod notifications;
pub mod sessions;

use crate::error::{Error, Result};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

/// Mode of every file Limette creates.
pub const FILE_MODE: u32 = 0o600;

/// Mode of every folder Limette creates.
pub const DIR_MODE: u32 = 0o700;

/// Creates the folder (and parents) if missing, [`DIR_MODE`]; an existing one is left as is.
pub fn ensure_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .map_err(|e| Error::storage(format!("{}: {e}", dir.display())))
}

/// Opens a new file for writing, [`FILE_MODE`]; fails when it exists.
pub fn create_new(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path)
}

/// Refuses a folder that its group or others may write (they could replace the key, plant a
/// session or a configuration); `Ok` when it is absent.
pub fn check_private_dir(dir: &Path) -> std::result::Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    match fs::metadata(dir) {
        Ok(m) if m.permissions().mode() & 0o022 != 0 => Err(format!(
            "{} is writable by its group or others (mode {:o}): chmod 700 it",
            dir.display(),
            m.permissions().mode() & 0o7777
        )),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", dir.display())),
    }
}

/// Whether a write must be on the disk before it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Synced before it is renamed into place: survives a power loss.
    Synced,
    /// Left in the kernel's cache: survives the process, not a power loss.
    Cached,
}

/// Writes `bytes` to a fresh temp file beside `target` and returns its path.
fn write_temp(target: &Path, bytes: &[u8], durability: Durability) -> Result<PathBuf> {
    let dir = target
        .parent()
        .ok_or_else(|| Error::internal("path without parent"))?;
    let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("x");
    let tmp = dir.join(format!(".{name}.tmp.{}", crate::util::random_hex(6)));
    let mut f = create_new(&tmp).map_err(|e| Error::storage(format!("{}: {e}", tmp.display())))?;
    let res = f.write_all(bytes).and_then(|_| match durability {
        Durability::Synced => f.sync_data(),
        Durability::Cached => Ok(()),
    });
    if let Err(e) = res {
        let _ = fs::remove_file(&tmp);
        return Err(Error::storage(format!("{}: {e}", tmp.display())));
    }
    Ok(tmp)
}

/// Replaces `target` atomically.
pub fn write_atomic(target: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    let tmp = write_temp(target, bytes, durability)?;
    fs::rename(&tmp, target).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::storage(format!("{}: {e}", target.display()))
    })
}

/// Creates `target` atomically only if it does not exist; `false` when it does.
pub fn create_atomic(target: &Path, bytes: &[u8], durability: Durability) -> Result<bool> {
    if let Some(created) = create_unnamed(target, bytes, durability) {
        return created;
    }
    let tmp = write_temp(target, bytes, durability)?;
    crate::pause::point("file-create"); // written, not yet published: the crash tests kill here
    let res = fs::hard_link(&tmp, target);
    let _ = fs::remove_file(&tmp);
    match res {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::storage(format!("{}: {e}", target.display()))),
    }
}

/// `create_atomic` through a file without a name, linked into place once written; `None`
/// when this file system or system cannot (no `O_TMPFILE`, no `/proc`): the caller then takes
/// the named way, which reports its own errors.
fn create_unnamed(target: &Path, bytes: &[u8], durability: Durability) -> Option<Result<bool>> {
    let file = write_unnamed(target.parent()?, bytes, durability)?;
    crate::pause::point("file-create"); // written, not yet published: the crash tests kill here
    publish_unnamed(&file, target)
}

/// Links a file made by `write_unnamed` as `target`: `false` when `target` exists, `None`
/// when linking is not possible here (the caller takes the named way).
fn publish_unnamed(file: &fs::File, target: &Path) -> Option<Result<bool>> {
    match link_unnamed(file, target) {
        Ok(()) => Some(Ok(true)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Some(Ok(false)),
        Err(_) => None,
    }
}

/// A file without a name in `dir`, [`FILE_MODE`], holding `bytes`; `None` when the file
/// system cannot make one, or it could not be written.
fn write_unnamed(dir: &Path, bytes: &[u8], durability: Durability) -> Option<fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
    let fd = rustix::fs::open(dir, flags, Mode::from_raw_mode(FILE_MODE)).ok()?;
    let mut file = fs::File::from(fd);
    file.write_all(bytes).ok()?;
    if durability == Durability::Synced {
        file.sync_data().ok()?;
    }
    Some(file)
}

/// Whether the kernel refused to link an unnamed file by its descriptor (`AT_EMPTY_PATH`:
/// allowed without privilege since Linux 6.10, before that only with `CAP_DAC_READ_SEARCH`).
/// Set once the way through `/proc/self/fd` worked where it failed, so that older kernels
/// pay for the refusal once, not on every file.
static NO_EMPTY_PATH: AtomicBool = AtomicBool::new(false);

/// Gives a file made by `write_unnamed` its name; fails when `target` exists. By its
/// descriptor where the kernel allows it, otherwise through `/proc/self/fd`, which needs no
/// privilege but walks that path through the process's file table on every link.
fn link_unnamed(file: &fs::File, target: &Path) -> std::io::Result<()> {
    use rustix::fs::{linkat, AtFlags, CWD};
    if NO_EMPTY_PATH.load(Ordering::Relaxed) {
        return link_through_proc(file, target);
    }
    match linkat(file, "", CWD, target, AtFlags::EMPTY_PATH) {
        // ENOENT is also what an older kernel answers without the capability.
        Err(e) if e == rustix::io::Errno::NOENT || e == rustix::io::Errno::PERM => {}
        done => return done.map_err(std::io::Error::from),
    }
    link_through_proc(file, target)?;
    NO_EMPTY_PATH.store(true, Ordering::Relaxed);
    Ok(())
}

/// `link_unnamed` through `/proc/self/fd/<fd>`.
fn link_through_proc(file: &fs::File, target: &Path) -> std::io::Result<()> {
    use rustix::fs::{linkat, AtFlags, CWD};
    use std::os::fd::AsRawFd;
    let fd_path = format!("/proc/self/fd/{}", file.as_raw_fd());
    linkat(CWD, fd_path.as_str(), CWD, target, AtFlags::SYMLINK_FOLLOW)
        .map_err(std::io::Error::from)
}

/// Reads a file; `None` when absent. Records are small: one buffer of a page, grown only for
/// a larger file, and no `statx` for a size hint (`fs::read` and `File::read_to_end` ask for
/// one on every call, which was a tenth of a session read's system time; reading through
/// `Read::take` skips it).
pub fn read_opt(path: &Path) -> Result<Option<Vec<u8>>> {
    found(path, fs::File::open(path).and_then(read_all))
}

/// What an operation on `path` gave: `None` when the file is absent, any other failure a
/// storage error naming the path.
pub fn found<T>(path: &Path, done: std::io::Result<T>) -> Result<Option<T>> {
    match done {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::storage(format!("{}: {e}", path.display()))),
    }
}

/// Reads a file and removes it, in one claim: of two takers only one removes the name, and
/// only that one gets the bytes, read from the file it opened before. `None` when absent, or
/// when another taker removed it first. The caller keeps replacements of `path` out between
/// the opening and the removal (a file renamed over it meanwhile would be removed unread).
pub fn take_opt(path: &Path) -> Result<Option<Vec<u8>>> {
    let Some(file) = found(path, fs::File::open(path))? else {
        return Ok(None);
    };
    if !remove_opt(path)? {
        return Ok(None);
    }
    found(path, read_all(file))
}

/// The whole of an open file, into one buffer of a page, grown only for a larger file.
fn read_all(file: fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::with_capacity(4096);
    file.take(u64::MAX).read_to_end(&mut buf).map(|_| buf)
}

/// Removes a file; `false` when absent.
pub fn remove_opt(path: &Path) -> Result<bool> {
    Ok(found(path, fs::remove_file(path))?.is_some())
}

/// Syncs one folder for concurrent writers ("group commit"): a writer returns once a sync
/// that started after its change has finished, and one sync serves every writer that was
/// waiting when it started. Under load this turns one folder sync per write into one per
/// group of writes, without acknowledging any write before it is synced.
#[derive(Default)]
pub struct FolderSync {
    state: Mutex<SyncState>,
    finished: Condvar,
}

#[derive(Default)]
struct SyncState {
    /// The number the next sync to start will carry (syncs count from 1).
    started: u64,
    /// The number of the last sync finished.
    finished: u64,
    running: bool,
}

impl FolderSync {
    /// Returns once `dir` has been synced after the caller's change. A failed sync is
    /// ignored as before: the files are already in place.
    pub fn sync(&self, dir: &Path) {
        let Ok(mut st) = self.state.lock() else {
            return sync_folder(dir);
        };
        let wanted = st.started + 1;
        loop {
            if st.finished >= wanted {
                return;
            }
            if !st.running {
                st.running = true;
                st.started += 1;
                let mine = st.started;
                drop(st);
                sync_folder(dir);
                let Ok(mut again) = self.state.lock() else {
                    return;
                };
                again.running = false;
                again.finished = mine;
                self.finished.notify_all();
                return;
            }
            st = match self.finished.wait(st) {
                Ok(s) => s,
                Err(_) => return sync_folder(dir),
            };
        }
    }
}

fn sync_folder(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways of naming an unnamed file: by its descriptor, and through `/proc/self/fd` (the
    /// way of kernels before 6.10, which the tests' kernel may never take): each publishes the
    /// written bytes with the store's mode, and neither replaces a file already there.
    #[test]
    fn an_unnamed_file_is_linked_whole_and_never_over_another() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("limette-link-{}", crate::util::random_hex(6)));
        ensure_dir(&dir).unwrap();
        let Some(first) = write_unnamed(&dir, b"{\"a\":1}", Durability::Cached) else {
            // No O_TMPFILE here: create_atomic takes the named way, tested by the store tests.
            let _ = fs::remove_dir_all(&dir);
            return;
        };
        let (by_fd, by_proc) = (dir.join("by-fd"), dir.join("by-proc"));
        link_unnamed(&first, &by_fd).unwrap();
        let second = write_unnamed(&dir, b"{\"b\":2}", Durability::Cached).unwrap();
        link_through_proc(&second, &by_proc).unwrap();
        for (path, want) in [(&by_fd, "{\"a\":1}"), (&by_proc, "{\"b\":2}")] {
            assert_eq!(fs::read_to_string(path).unwrap(), want);
            let mode = fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, FILE_MODE, "{}", path.display());
        }
        let third = write_unnamed(&dir, b"{\"c\":3}", Durability::Cached).unwrap();
        for path in [&by_fd, &by_proc] {
            let e = link_unnamed(&third, path).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
            let e = link_through_proc(&third, path).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        }
        assert_eq!(fs::read_to_string(&by_fd).unwrap(), "{\"a\":1}");
        let names = fs::read_dir(&dir).unwrap().count();
        assert_eq!(names, 2, "nothing but the two published files");
        fs::remove_dir_all(&dir).unwrap();
    }
}
