//! Sessions as files: `<Directory>/<id>` for SSO and persistent sessions (LemonLDAP::NG's
//! `Apache::Session::File` layout with JSON serialisation), `<Directory>/<kind>/<id>` for the
//! internal kinds.
use super::{
    create_atomic, ensure_dir, found, read_opt, remove_opt, take_opt, write_atomic, Durability,
};
use crate::error::{Error, Result};
use crate::storage::{check_id, Kind, Session, SessionStore};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The subfolders of the internal kinds, inside the folder of SSO sessions.
const INTERNAL: [&str; 2] = [Kind::Oidc.as_str(), Kind::Pending.as_str()];

/// A folder of session files.
pub struct FileSessions {
    dir: PathBuf,
    /// Serialises `update`, `delete` and `take` of this process, so that an update never
    /// recreates a file removed between its check and its rename. Another process sharing the
    /// folder keeps that window.
    removal: Mutex<()>,
}

impl FileSessions {
    /// Opens (and creates) the folder.
    pub fn open(dir: &Path) -> Result<FileSessions> {
        ensure_dir(dir)?;
        for k in INTERNAL {
            ensure_dir(&dir.join(k))?;
        }
        Ok(FileSessions {
            dir: dir.to_path_buf(),
            removal: Mutex::new(()),
        })
    }

    fn folder(&self, kind: Kind) -> PathBuf {
        match kind {
            Kind::Global | Kind::Persistent => self.dir.clone(),
            other => self.dir.join(other.as_str()),
        }
    }

    /// The file of a session. In the shared folder of SSO and persistent sessions, the names
    /// of the internal kinds' subfolders are no session ids: refused like any invalid id, so
    /// that no request reads, replaces or removes a folder.
    fn path(&self, kind: Kind, id: &str) -> Result<PathBuf> {
        check_id(id)?;
        if matches!(kind, Kind::Global | Kind::Persistent) && INTERNAL.contains(&id) {
            return Err(Error::bad("Invalid identifier"));
        }
        Ok(self.folder(kind).join(id))
    }

    fn removal(&self) -> Result<MutexGuard<'_, ()>> {
        self.removal
            .lock()
            .map_err(|_| Error::internal("session folder lock poisoned"))
    }
}

/// An empty file is a session whose data a power loss kept from the disk
/// ([`Durability::Cached`]): absent. Anything else that is not a JSON object is an error.
fn decode(bytes: &[u8]) -> Result<Option<Session>> {
    if bytes.is_empty() {
        return Ok(None);
    }
    match serde_json::from_slice(bytes) {
        Ok(serde_json::Value::Object(m)) => Ok(Some(m)),
        _ => Err(Error::storage("session file is not a JSON object")),
    }
}

fn encode(data: &Session) -> Result<Vec<u8>> {
    serde_json::to_vec(data).map_err(Error::internal)
}

impl SessionStore for FileSessions {
    fn get(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        match read_opt(&self.path(kind, id)?)? {
            Some(b) => decode(&b),
            None => Ok(None),
        }
    }

    /// A `stat` of the file: there and not empty (an empty file reads as absent, `decode`).
    fn exists(&self, kind: Kind, id: &str) -> Result<bool> {
        let path = self.path(kind, id)?;
        let meta = found(&path, fs::metadata(&path))?;
        Ok(meta.is_some_and(|m| m.is_file() && m.len() > 0))
    }

    fn put(&self, kind: Kind, id: &str, data: &Session) -> Result<()> {
        write_atomic(&self.path(kind, id)?, &encode(data)?, Durability::Cached)
    }

    fn update(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        let path = self.path(kind, id)?;
        let _guard = self.removal()?;
        if !path.is_file() {
            return Ok(false);
        }
        write_atomic(&path, &encode(data)?, Durability::Cached)?;
        Ok(true)
    }

    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        create_atomic(&self.path(kind, id)?, &encode(data)?, Durability::Cached)
    }

    fn delete(&self, kind: Kind, id: &str) -> Result<bool> {
        let path = self.path(kind, id)?;
        let _guard = self.removal()?;
        remove_opt(&path)
    }

    fn take(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        let path = self.path(kind, id)?;
        let _guard = self.removal()?;
        // unlink is atomic: of two concurrent takers only one removes the file, and the lock
        // keeps this process's updates from replacing it between the opening and the removal.
        match take_opt(&path)? {
            Some(b) => decode(&b),
            None => Ok(None),
        }
    }

    fn ids(&self, kind: Kind) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let rd = fs::read_dir(self.folder(kind))
            .map_err(|e| Error::storage(format!("{}: {e}", self.dir.display())))?;
        for entry in rd.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !crate::util::is_safe_id(&name) || !entry.path().is_file() {
                continue;
            }
            // Global and persistent share the folder: tell them apart by id length.
            let fits = match kind {
                Kind::Global => name.len() != 32,
                Kind::Persistent => name.len() == 32,
                _ => true,
            };
            if fits {
                out.push(name);
            }
        }
        crate::util::sort::sort(&mut out);
        Ok(out)
    }

    fn describe(&self) -> String {
        format!("File {}", self.dir.display())
    }
}
