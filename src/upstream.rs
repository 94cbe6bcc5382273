//! The one outbound HTTP agent (ureq): timeouts on every call and a cap on response size. The
//! only file that names ureq (with its guard, `guard`).
//!
//! Two doors: [`send`], for every URL a client can steer (a relying party's `request_uri`, its
//! back-channel logout URL), goes through the outbound guard (`guard`: no loopback, private,
//! link-local... address unless `outboundAllowTo` allows it); [`send_configured`], for the
//! operator's own backends (REST session, configuration and directory servers, typically on
//! private addresses), does not. A new fetch is guarded unless it chooses otherwise.
use crate::error::{Error, Result};
use serde_json::Value;
use std::io::Read;
use std::time::Duration;

mod guard;
pub use guard::allow_to;

/// Largest response body read from a remote service.
const MAX_RESPONSE: u64 = 16 << 20;

/// An answer from a remote service.
#[derive(Debug)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Body bytes (at most `MAX_RESPONSE`).
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Result<Value> {
        serde_json::from_slice(&self.body)
            .map_err(|e| Error::Upstream(format!("bad JSON from upstream: {e}")))
    }
}

/// One outbound request.
pub struct Call<'a> {
    /// Method.
    pub method: &'a str,
    /// Full URL.
    pub url: &'a str,
    /// Basic credentials.
    pub basic: Option<(&'a str, &'a str)>,
    /// JSON body.
    pub json: Option<&'a Value>,
    /// `application/x-www-form-urlencoded` body, already encoded (used when `json` is `None`).
    pub form: Option<&'a str>,
    /// Total timeout.
    pub timeout: Duration,
}

/// Sends a request to a URL a client chose, through the outbound guard; any HTTP status is a
/// `Reply`, transport failures and refusals by the guard are `Upstream` errors (whose text,
/// for the log, says which).
pub fn send(call: &Call<'_>) -> Result<Reply> {
    send_limited(call, MAX_RESPONSE)
}

/// GETs a document a client named (through the guard, no redirect): its body when the answer
/// is 200 and at most `cap` bytes long. One byte more than `cap` is read at most, and an answer
/// that has it is refused whole, never cut. The error says why, for the log (`what` names the
/// document in it).
pub fn get_capped(
    url: &str,
    timeout: Duration,
    cap: usize,
    what: &str,
) -> std::result::Result<Vec<u8>, String> {
    let call = Call {
        method: "GET",
        url,
        basic: None,
        json: None,
        form: None,
        timeout,
    };
    let reply = send_limited(&call, cap as u64 + 1).map_err(|e| e.to_string())?;
    if reply.status != 200 {
        return Err(format!("answered {}", reply.status));
    }
    if reply.body.len() > cap {
        return Err(format!("{what} is over {} KiB", cap / 1024));
    }
    Ok(reply.body)
}

/// Sends a request as [`send`] does (through the guard), reading at most `most` bytes of the
/// answer's body (a caller that must refuse a larger answer asks for one byte more than it
/// takes).
pub fn send_limited(call: &Call<'_>, most: u64) -> Result<Reply> {
    exchange(call, Some(guard::Resolver::new()), most)
}

/// Sends a request to a URL of the operator's own settings (the REST backends), unguarded.
pub fn send_configured(call: &Call<'_>) -> Result<Reply> {
    exchange(call, None, MAX_RESPONSE)
}

fn exchange(call: &Call<'_>, guard: Option<guard::Resolver>, most: u64) -> Result<Reply> {
    let mut builder = ureq::AgentBuilder::new()
        .timeout(call.timeout)
        .timeout_connect(call.timeout.min(Duration::from_secs(5)))
        .redirects(0);
    if let Some(g) = guard {
        builder = builder.resolver(g);
    }
    let agent = builder.build();
    let mut req = agent
        .request(call.method, call.url)
        .set("Accept", "application/json");
    if let Some((u, p)) = call.basic {
        use base64::Engine;
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"));
        req = req.set("Authorization", &format!("Basic {token}"));
    }
    let res = match (call.json, call.form) {
        (Some(body), _) => req.send_json(body.clone()),
        (None, Some(form)) => req
            .set("Content-Type", "application/x-www-form-urlencoded")
            .send_string(form),
        (None, None) => req.call(),
    };
    let resp = match res {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => {
            return Err(Error::Upstream(format!(
                "{} {}: {e}",
                call.method, call.url
            )))
        }
    };
    let status = resp.status();
    let mut body = Vec::new();
    resp.into_reader()
        .take(most)
        .read_to_end(&mut body)
        .map_err(|e| Error::Upstream(format!("{}: reading the answer: {e}", call.url)))?;
    Ok(Reply { status, body })
}
