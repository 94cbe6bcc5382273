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

    /// `GET <baseUrl>/<path>`; 404 becomes `NotFound`, any other failure `Upstream`.
    fn get(&self, path: &str) -> Result<Map<String, Value>> {
        let url = format!("{}/{path}", self.base_url);
        let basic = match (&self.user, &self.password) {
            (Some(u), p) => Some((u.as_str(), p.as_deref().unwrap_or(""))),
            (None, _) => None,
        };
        let reply = upstream::send(&Call {
            method: "GET",
            url: &url,
            basic,
            json: None,
            timeout: self.timeout,
        })?;
        object(&url, &reply)
    }

    /// The metadata of a configuration (`latest` or a number).
    fn metadata(&self, which: &str) -> Result<(u64, Map<String, Value>)> {
        let m = self.get(which)?;
        let num = m.get("cfgNum").and_then(as_u64).ok_or_else(|| {
            Error::Upstream(format!(
                "{}/{which}: no cfgNum in the answer",
                self.base_url
            ))
        })?;
        Ok((num, m))
    }
}

/// The JSON object of a reply, by status.
fn object(url: &str, reply: &Reply) -> Result<Map<String, Value>> {
    match reply.status {
        200 => match reply.json()? {
            Value::Object(m) => Ok(m),
            _ => Err(Error::Upstream(format!(
                "{url}: the answer is not a JSON object"
            ))),
        },
        404 => Err(Error::not_found("Configuration is not available")),
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
        let Some(latest) = self.latest()? else {
            return Ok(Vec::new());
        };
        let mut nums = vec![latest];
        let mut which = latest.to_string();
        while nums.len() < MAX_LISTED {
            let (_, m) = self.metadata(&which)?;
            match m.get("prev").and_then(as_u64) {
                Some(p) if nums.last().is_some_and(|last| p < *last) => {
                    nums.push(p);
                    which = p.to_string();
                }
                _ => break,
            }
        }
        nums.reverse();
        Ok(nums)
    }

    fn latest(&self) -> Result<Option<u64>> {
        match self.metadata("latest") {
            Ok((n, _)) => Ok(Some(n)),
            Err(Error::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The full document; a LemonLDAP::NG server answers an unknown number with its cached
    /// configuration, so the number of the answer is checked.
    fn load(&self, num: u64) -> Result<Map<String, Value>> {
        let missing = || Error::not_found(format!("Configuration {num} is not available"));
        let m = match self.get(&format!("{num}?full=1")) {
            Err(Error::NotFound(_)) => return Err(missing()),
            other => other?,
        };
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
