//! The REST session client: a remote Limette's or LemonLDAP::NG's session server used as a
//! session store. It speaks LemonLDAP::NG's own client protocol (`Common/Apache/Session/REST.pm`):
//! `GET <baseUrl>/<id>` reads, `PUT <baseUrl>/<id>` with the whole session plus a fresh
//! `__secret` creates or updates, `DELETE <baseUrl>/<id>` deletes. Every call goes through
//! `upstream` (timeouts, size cap, basic authentication when `user` is set); a remote that is
//! down is an `Error::Upstream`, never a hang or a panic.
//!
//! The remote serves only SSO and persistent sessions; the portal's internal short-lived
//! records (OpenID Connect codes and tokens, pending logins) stay in this process's memory.
use super::{check_id, Kind, Session, SessionStore};
use crate::error::{Error, Result};
use crate::upstream::{self, Call};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// Sessions kept by a remote REST session server.
pub struct RestSessions {
    base_url: String,
    basic: Option<(String, String)>,
    key: String,
    timeout: Duration,
    /// Internal kinds the remote does not serve.
    local: Mutex<HashMap<(Kind, String), Session>>,
}

impl RestSessions {
    /// Reads `baseUrl`, `user`, `password` and `timeout` (seconds, default 5) from the
    /// options; `key` is the configuration key used for `__secret`.
    pub fn new(options: &Map<String, Value>, key: &str) -> Result<RestSessions> {
        let opt = |k: &str| options.get(k).and_then(Value::as_str).map(str::to_string);
        let base_url = opt("baseUrl").ok_or_else(|| Error::bad("baseUrl option is required"))?;
        if !base_url.starts_with("http://") && !base_url.starts_with("https://") {
            return Err(Error::bad(format!("baseUrl: not an http URL: {base_url}")));
        }
        let secs = options
            .get("timeout")
            .and_then(crate::config::as_i64)
            .unwrap_or(5);
        Ok(RestSessions {
            base_url: base_url.trim_end_matches('/').to_string(),
            basic: opt("user").map(|u| (u, opt("password").unwrap_or_default())),
            key: key.to_string(),
            timeout: Duration::from_secs(secs.clamp(1, 300) as u64),
            local: Mutex::new(HashMap::new()),
        })
    }

    fn remote(kind: Kind) -> bool {
        matches!(kind, Kind::Global | Kind::Persistent)
    }

    fn call(&self, method: &str, id: &str, body: Option<&Value>) -> Result<upstream::Reply> {
        check_id(id)?;
        let url = format!("{}/{id}", self.base_url);
        upstream::send(&Call {
            method,
            url: &url,
            basic: self.basic.as_ref().map(|(u, p)| (u.as_str(), p.as_str())),
            json: body,
            timeout: self.timeout,
        })
    }

    fn local(&self) -> Result<std::sync::MutexGuard<'_, HashMap<(Kind, String), Session>>> {
        self.local
            .lock()
            .map_err(|_| Error::internal("session map lock poisoned"))
    }
}

/// An answer other than the expected ones: the remote's status, never its body.
fn unexpected(what: &str, reply: &upstream::Reply) -> Error {
    Error::Upstream(format!(
        "REST session server: {what} answered HTTP {}",
        reply.status
    ))
}

impl SessionStore for RestSessions {
    fn get(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        if !Self::remote(kind) {
            return Ok(self.local()?.get(&(kind, id.to_string())).cloned());
        }
        let reply = self.call("GET", id, None)?;
        match reply.status {
            200 => match reply.json()? {
                Value::Object(m) => Ok(Some(m)),
                _ => Err(Error::Upstream(
                    "REST session server: not a session object".into(),
                )),
            },
            // A Limette answers 404; LemonLDAP::NG answers 400 for an unknown id.
            400 | 404 => Ok(None),
            _ => Err(unexpected("GET", &reply)),
        }
    }

    fn put(&self, kind: Kind, id: &str, data: &Session) -> Result<()> {
        if !Self::remote(kind) {
            self.local()?.insert((kind, id.to_string()), data.clone());
            return Ok(());
        }
        let mut body = data.clone();
        let secret = crate::sessions::secret::fresh(&self.key, crate::util::now());
        body.insert("__secret".into(), Value::String(secret));
        let reply = self.call("PUT", id, Some(&Value::Object(body)))?;
        match reply.status {
            200 => Ok(()),
            _ => Err(unexpected("PUT", &reply)),
        }
    }

    /// Not atomic across clients: the protocol has no create-if-absent (a fresh random id
    /// makes a collision practically impossible).
    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        if !Self::remote(kind) {
            let mut map = self.local()?;
            if map.contains_key(&(kind, id.to_string())) {
                return Ok(false);
            }
            map.insert((kind, id.to_string()), data.clone());
            return Ok(true);
        }
        if self.get(kind, id)?.is_some() {
            return Ok(false);
        }
        self.put(kind, id, data)?;
        Ok(true)
    }

    fn delete(&self, kind: Kind, id: &str) -> Result<bool> {
        if !Self::remote(kind) {
            return Ok(self.local()?.remove(&(kind, id.to_string())).is_some());
        }
        let reply = self.call("DELETE", id, None)?;
        match reply.status {
            200 => Ok(true),
            400 | 404 => Ok(false),
            _ => Err(unexpected("DELETE", &reply)),
        }
    }

    /// Of two concurrent takers the one whose `DELETE` succeeds gets the session.
    fn take(&self, kind: Kind, id: &str) -> Result<Option<Session>> {
        if !Self::remote(kind) {
            return Ok(self.local()?.remove(&(kind, id.to_string())));
        }
        let Some(s) = self.get(kind, id)? else {
            return Ok(None);
        };
        Ok(self.delete(kind, id)?.then_some(s))
    }

    /// The remote protocol cannot list sessions: the remote server purges its own.
    fn ids(&self, kind: Kind) -> Result<Vec<String>> {
        if !Self::remote(kind) {
            let map = self.local()?;
            return Ok(map
                .keys()
                .filter(|(k, _)| *k == kind)
                .map(|(_, id)| id.clone())
                .collect());
        }
        Err(Error::Upstream(
            "a REST session store cannot list sessions; use the remote server's tools".into(),
        ))
    }

    fn describe(&self) -> String {
        format!("REST {}", self.base_url)
    }
}
