//! The REST session client: a remote Limette's or LemonLDAP::NG's session server used as a
//! session store. It speaks LemonLDAP::NG's own client protocol (`Common/Apache/Session/REST.pm`):
//! `GET <baseUrl>/<id>` reads, `PUT <baseUrl>/<id>` with the whole session plus a fresh
//! `__secret` creates or updates, `DELETE <baseUrl>/<id>` deletes. Every call goes through
//! `upstream` (timeouts, size cap, basic authentication when `user` is set); a remote that is
//! down is an `Error::Upstream`, never a hang or a panic.
//!
//! The remote serves only SSO and persistent sessions; the portal's internal short-lived
//! records (OpenID Connect codes and tokens, pending logins) stay in this process's memory.
pub mod conf;

use super::memory::MemorySessions;
use super::{check_id, Kind, Session, SessionStore};
use crate::error::{Error, Result};
use crate::upstream::{self, Call};
use serde_json::{Map, Value};
use std::time::Duration;

/// Sessions kept by a remote REST session server.
pub struct RestSessions {
    base_url: String,
    basic: Option<(String, String)>,
    key: String,
    timeout: Duration,
    /// Internal kinds the remote does not serve.
    local: MemorySessions,
}

impl RestSessions {
    /// Reads `baseUrl`, `user`, `password` and `timeout` (seconds, default 5) from the
    /// options; `key` is the configuration key used for `__secret`, as LemonLDAP::NG's cipher
    /// takes it (`Conf::crypto_key`: empty when the configuration has none), so that the
    /// remote, Limette or LemonLDAP::NG, decrypts it with the same configuration's key.
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
            local: MemorySessions::new(),
        })
    }

    fn remote(kind: Kind) -> bool {
        matches!(kind, Kind::Global | Kind::Persistent)
    }

    fn call(&self, method: &str, id: &str, body: Option<&Value>) -> Result<upstream::Reply> {
        check_id(id)?;
        let url = format!("{}/{id}", self.base_url);
        upstream::send_configured(&Call {
            method,
            url: &url,
            basic: self.basic.as_ref().map(|(u, p)| (u.as_str(), p.as_str())),
            json: body,
            form: None,
            timeout: self.timeout,
        })
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
            return self.local.get(kind, id);
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
            return self.local.put(kind, id, data);
        }
        let mut body = data.clone();
        let secret = crate::crypto::secret::fresh(&self.key, crate::util::now());
        body.insert("__secret".into(), Value::String(secret));
        let reply = self.call("PUT", id, Some(&Value::Object(body)))?;
        match reply.status {
            200 => Ok(()),
            _ => Err(unexpected("PUT", &reply)),
        }
    }

    /// A `PUT` without `__secret`: the server merges it into the session only if it exists
    /// (the protocol has no replace: keys absent from `data` stay on the server).
    fn update(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        if !Self::remote(kind) {
            return self.local.update(kind, id, data);
        }
        let reply = self.call("PUT", id, Some(&Value::Object(data.clone())))?;
        match reply.status {
            200 => Ok(true),
            400 | 404 => Ok(false),
            _ => Err(unexpected("PUT", &reply)),
        }
    }

    /// Not atomic across clients: the protocol has no create-if-absent (a fresh random id
    /// makes a collision practically impossible).
    fn create(&self, kind: Kind, id: &str, data: &Session) -> Result<bool> {
        if !Self::remote(kind) {
            return self.local.create(kind, id, data);
        }
        if self.get(kind, id)?.is_some() {
            return Ok(false);
        }
        self.put(kind, id, data)?;
        Ok(true)
    }

    fn delete(&self, kind: Kind, id: &str) -> Result<bool> {
        if !Self::remote(kind) {
            return self.local.delete(kind, id);
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
            return self.local.take(kind, id);
        }
        let Some(s) = self.get(kind, id)? else {
            return Ok(None);
        };
        Ok(self.delete(kind, id)?.then_some(s))
    }

    /// The remote protocol cannot list sessions: the remote server purges its own.
    fn ids(&self, kind: Kind) -> Result<Vec<String>> {
        if !Self::remote(kind) {
            return self.local.ids(kind);
        }
        Err(Error::Upstream(
            "a REST session store cannot list sessions; use the remote server's tools".into(),
        ))
    }

    fn describe(&self) -> String {
        format!("REST {}", self.base_url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::time::Instant;

    /// A one-shot server: answers `reply` (or nothing when `None`) and returns what it got.
    fn one_shot(reply: Option<&'static str>) -> (String, std::thread::JoinHandle<String>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/sessions/global", l.local_addr().unwrap());
        let h = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut head = String::new();
            let mut len = 0;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
                head.push_str(&line);
            }
            let mut body = vec![0; len];
            r.read_exact(&mut body).unwrap();
            match reply {
                Some(text) => {
                    let resp = format!(
                        "HTTP/1.1 {text}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
                    );
                    (&s).write_all(resp.as_bytes()).unwrap();
                }
                None => std::thread::sleep(Duration::from_secs(2)),
            }
            head + "\r\n" + &String::from_utf8_lossy(&body)
        });
        (url, h)
    }

    fn client(url: &str, extra: serde_json::Value) -> RestSessions {
        let mut o = json!({"baseUrl": url, "timeout": 1});
        if let (Some(o), serde_json::Value::Object(e)) = (o.as_object_mut(), extra) {
            o.extend(e);
        }
        RestSessions::new(o.as_object().unwrap(), "the key").unwrap()
    }

    #[test]
    fn put_sends_basic_auth_and_a_valid_secret() {
        let (url, h) = one_shot(Some("200 OK"));
        let c = client(&url, json!({"user": "u", "password": "p"}));
        let mut s = Session::new();
        s.insert("uid".into(), json!("dwho"));
        c.put(Kind::Global, "abc", &s).unwrap();
        let got = h.join().unwrap();
        assert!(got.starts_with("PUT /sessions/global/abc "), "{got}");
        assert!(got.contains("Authorization: Basic dTpw"), "u:p sent: {got}");
        let body: serde_json::Value =
            serde_json::from_str(got.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["uid"], "dwho");
        let secret = body["__secret"].as_str().unwrap();
        crate::crypto::secret::check("the key", secret, crate::util::now(), 15).unwrap();
    }

    #[test]
    fn unknown_ids_and_remote_errors() {
        let (url, h) = one_shot(Some("404 Not Found"));
        assert_eq!(
            client(&url, json!({})).get(Kind::Global, "abc").unwrap(),
            None
        );
        h.join().unwrap();
        let (url, h) = one_shot(Some("500 Internal Server Error"));
        let e = client(&url, json!({}))
            .get(Kind::Global, "abc")
            .unwrap_err();
        assert!(
            matches!(e, Error::Upstream(ref m) if m.contains("500")),
            "{e:?}"
        );
        h.join().unwrap();
        assert!(client(&url, json!({})).get(Kind::Global, "../x").is_err());
    }

    #[test]
    fn a_silent_remote_times_out() {
        let (url, h) = one_shot(None);
        let t = Instant::now();
        let e = client(&url, json!({}))
            .get(Kind::Global, "abc")
            .unwrap_err();
        assert!(matches!(e, Error::Upstream(_)), "{e:?}");
        assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
        h.join().unwrap();
    }

    #[test]
    fn internal_kinds_stay_local() {
        let c = client("http://127.0.0.1:9/sessions/global", json!({}));
        let s = Session::new();
        assert!(c.create(Kind::Oidc, "code", &s).unwrap());
        assert!(!c.create(Kind::Oidc, "code", &s).unwrap());
        assert_eq!(c.ids(Kind::Oidc).unwrap(), vec!["code"]);
        assert_eq!(c.take(Kind::Oidc, "code").unwrap(), Some(s));
        assert!(c.ids(Kind::Global).is_err());
    }
}
