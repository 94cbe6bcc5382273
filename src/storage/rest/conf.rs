//! The REST configuration client: a remote Limette's or LemonLDAP::NG's `/config` used as a
//! read-only configuration store, as LemonLDAP::NG's `Common/Conf/Backends/REST.pm`:
//! `GET <baseUrl>/latest` for the latest number, `GET <baseUrl>/<n>?full=1` for a document,
//! with the `User`/`Password` basic credentials and the `proxyOptions` timeout. Saving is
//! refused. All HTTP goes through `upstream`.
use crate::config::as_u64;
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use crate::upstream::{self, Call, Reply};
use serde_json::{Map, Value};
use std::time::Duration;

/// How far `numbers` walks back through `prev` links.
const MAX_LISTED: usize = 200;

/// A remote configuration proxy.
pub struct RestConf {
    base_url: String,
    user: Option<String>,
    password: Option<String>,
    timeout: Duration,
}

impl RestConf {
    /// A client of `base_url` (ending in `/config`).
    pub fn new(
        base_url: &str,
        user: Option<String>,
        password: Option<String>,
        timeout: Duration,
    ) -> RestConf {
        RestConf {
            base_url: base_url.trim_end_matches('/').to_string(),
            user,
            password,
            timeout,
        }
    }

    /// `GET <baseUrl>/<path>`: the object, or `None` when the remote says the configuration is
    /// not available (404 from Limette, 400 from LemonLDAP::NG without a local cache).
    fn get(&self, path: &str) -> Result<Option<Map<String, Value>>> {
        let url = format!("{}/{path}", self.base_url);
        let basic = match (&self.user, &self.password) {
            (Some(u), p) => Some((u.as_str(), p.as_deref().unwrap_or(""))),
            (None, _) => None,
        };
        let call = Call {
            method: "GET",
            url: &url,
            basic,
            json: None,
            form: None,
            timeout: self.timeout,
        };
        object(&url, &upstream::send_configured(&call)?)
    }

    /// The metadata of a configuration (`latest` or a number), when available.
    fn metadata(&self, which: &str) -> Result<Option<(u64, Map<String, Value>)>> {
        let Some(m) = self.get(which)? else {
            return Ok(None);
        };
        let num = m.get("cfgNum").and_then(as_u64).ok_or_else(|| {
            Error::Upstream(format!(
                "{}/{which}: no cfgNum in the answer",
                self.base_url
            ))
        })?;
        Ok(Some((num, m)))
    }
}

/// The JSON object of a reply, by status.
fn object(url: &str, reply: &Reply) -> Result<Option<Map<String, Value>>> {
    match reply.status {
        200 => match reply.json()? {
            Value::Object(m) => Ok(Some(m)),
            _ => Err(Error::Upstream(format!(
                "{url}: the answer is not a JSON object"
            ))),
        },
        400 | 404 => Ok(None),
        401 | 403 => Err(Error::Upstream(format!(
            "{url}: access refused ({}), check User and Password",
            reply.status
        ))),
        s => Err(Error::Upstream(format!("{url}: HTTP {s}"))),
    }
}

impl ConfStore for RestConf {
    /// The latest number and its predecessors, following `prev` (at most `MAX_LISTED`).
    fn numbers(&self) -> Result<Vec<u64>> {
        let Some((latest, mut meta)) = self.metadata("latest")? else {
            return Ok(Vec::new());
        };
        let mut nums = vec![latest];
        while nums.len() < MAX_LISTED {
            match meta.get("prev").and_then(as_u64) {
                Some(p) if nums.last().is_some_and(|last| p < *last) => {
                    match self.metadata(&p.to_string())? {
                        Some((_, m)) => {
                            nums.push(p);
                            meta = m;
                        }
                        None => break,
                    }
                }
                _ => break,
            }
        }
        nums.reverse();
        Ok(nums)
    }

    fn latest(&self) -> Result<Option<u64>> {
        Ok(self.metadata("latest")?.map(|(n, _)| n))
    }

    /// The full document; a LemonLDAP::NG server answers an unknown number with its cached
    /// configuration, so the number of the answer is checked.
    fn load(&self, num: u64) -> Result<Map<String, Value>> {
        let missing = || Error::not_found(format!("Configuration {num} is not available"));
        let m = self.get(&format!("{num}?full=1"))?.ok_or_else(missing)?;
        if m.get("cfgNum").and_then(as_u64) != Some(num) {
            return Err(missing());
        }
        Ok(m)
    }

    fn save(&self, _conf: &Map<String, Value>) -> Result<u64> {
        Err(Error::Forbidden(
            "a REST configuration store is read-only".into(),
        ))
    }

    fn describe(&self) -> String {
        format!("REST {}", self.base_url)
    }
}
