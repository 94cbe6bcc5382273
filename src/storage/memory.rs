//! The one in-memory session store: a map under a lock, so that `take` and `create` are atomic
//! as the trait requires. Handler tests use it in place of a real backend (the contract suite
//! runs against it too), and the REST store keeps in it the internal kinds its remote does not
//! serve. Ids are checked as every backend checks them; a poisoned lock is an internal error.
use super::{check_id, Kind, Session, SessionStore};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// Sessions of every kind, in memory.
#[derive(Default)]
pub struct MemorySessions(Mutex<HashMap<(Kind, String), Session>>);

impl MemorySessions {
    /// An empty store.
    pub fn new() -> MemorySessions {
        MemorySessions::default()
    }

    fn map(&self) -> Result<MutexGuard<'_, HashMap<(Kind, String), Session>>> {
        self.0
            .lock()
            .map_err(|_| Error::internal("session map lock poisoned"))
    }
}

/// The map key of a checked id.
fn key(kind: Kind, id: &str) -> Result<(Kind, String)> {
    check_id(id)?;
    Ok((kind, id.to_string()))
}

impl SessionStore for MemorySessions {
    fn get(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        let k = key(kind, id)?;
        Ok(self.map()?.get(&k).cloned())
    }

    fn exists(&self, kind: Kind, id: &str) -> Result<bool> {
        let k = key(kind, id)?;
        Ok(self.map()?.contains_key(&k))
    }

    fn put(&self, kind: Kind, id: &str, data: &Session) -> Result<()> {
        let k = key(kind, id)?;
        self.map()?.insert(k, data.clone());
        Ok(())
    }

    fn update(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        let k = key(kind, id)?;
        Ok(self.map()?.get_mut(&k).map(|s| *s = data.clone()).is_some())
    }

    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        let k = key(kind, id)?;
        let mut map = self.map()?;
        if map.contains_key(&k) {
            return Ok(false);
        }
        map.insert(k, data.clone());
        Ok(true)
    }

    fn delete(&self, kind: Kind, id: &str) -> Result<bool> {
        let k = key(kind, id)?;
        Ok(self.map()?.remove(&k).is_some())
    }

    fn take(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        let k = key(kind, id)?;
        Ok(self.map()?.remove(&k))
    }

    fn ids(&self, kind: Kind) -> Result<Vec<String>> {
        Ok(self
            .map()?
            .keys()
            .filter(|(k, _)| *k == kind)
            .map(|(_, id)| id.clone())
            .collect())
    }

    fn describe(&self) -> String {
        "memory".into()
    }
}
