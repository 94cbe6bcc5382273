//! What an action did, said once on the next page (post/redirect/get): a form that changed
//! something answers with a redirect that sets a short-lived cookie, `limetteflash`, naming a
//! message key of the language files and the values of its `{name}` placeholders; the next
//! page that shows such messages (the console's frame, the portal's menu, the second-factor
//! list) reads it, says the message in the page's language and clears the cookie, so that it
//! is seen on one page view and a reload shows it no more.
//!
//! The value is `<base64url of a JSON [key, [[name, value]...]]>.<epoch>.<HMAC-SHA256>` under
//! the configuration's key (`Conf::key`), good for [`LIFETIME`] seconds. Nothing a client
//! writes can reach the page: a forged, altered or stale cookie is ignored, the key must be
//! one the English file holds, and the values (written by the server: a user's name, a
//! version number) are escaped like every other value of a template. Host-only, `HttpOnly`,
//! with `SameSite` and `Secure` as the portal's own cookies. No store, no query parameter.
use crate::config::Conf;
use crate::http::{Method, Request, Response};
use crate::util;
use crate::web::{cookies, messages, Page};
use base64::Engine;
use hmac::{Hmac, Mac};
use maud::{html, Markup};
use sha2::Sha256;

/// The cookie's name.
pub const COOKIE: &str = "limetteflash";

/// How long a message waits for its page, in seconds.
pub const LIFETIME: i64 = 60;

/// The longest value kept (a name, a number): longer ones are cut.
const MAX_VALUE: usize = 120;

/// A message to say: its key in the language files and its placeholders' values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The message key (`mgrSessionDeleted`, ...).
    pub key: String,
    /// The `{name}` placeholders' values.
    pub values: Vec<(String, String)>,
}

impl Said {
    /// The message `key`, without values.
    pub fn new(key: &str) -> Said {
        Said {
            key: key.to_string(),
            values: Vec::new(),
        }
    }

    /// The same message with `{name}` filled by `value`.
    pub fn with(mut self, name: &str, value: &str) -> Said {
        let value: String = value
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_VALUE)
            .collect();
        self.values.push((name.to_string(), value));
        self
    }

    /// The message in the page's language, in a status box (`#done`).
    pub fn markup(&self, page: &Page) -> Markup {
        let values: Vec<(&str, &str)> = self
            .values
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        html! {
            div class="message done" id="done" role="status" { p { (page.say_fill(&self.key, &values)) } } "\n"
        }
    }
}

/// A redirect to `to` that says `said` on the page it leads to.
pub fn redirect(conf: &Conf, to: &str, said: &Said) -> Response {
    Response::redirect(to).with_cookie(&cookie(conf, said))
}

/// The cookie that carries `said`.
pub fn cookie(conf: &Conf, said: &Said) -> String {
    let json = serde_json::json!([said.key, said.values]).to_string();
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json);
    let now = util::now();
    let value = format!("{payload}.{now}.{}", mac(conf, &payload, now));
    let c = cookies::portal_cookie(conf, COOKIE, &value, false);
    format!("{c}; Max-Age={LIFETIME}")
}

/// The message a page read with `GET` or `HEAD` carries, if its cookie is genuine and fresh,
/// and the cookie that clears it (whenever the request has one: a bad one goes too).
pub fn take(conf: &Conf, req: &Request) -> (Option<Said>, Option<String>) {
    if !matches!(req.method, Method::Get | Method::Head) {
        return (None, None);
    }
    let Some(value) = req.cookie(COOKIE).filter(|v| !v.is_empty() && v != "0") else {
        return (None, None);
    };
    let clear = cookies::portal_cookie(conf, COOKIE, "0", true);
    (verify(conf, &value), Some(clear))
}

/// The message of a cookie's value: MAC (constant time), then age, then a known key.
fn verify(conf: &Conf, value: &str) -> Option<Said> {
    let mut parts = value.splitn(3, '.');
    let (payload, epoch, sig) = (parts.next()?, parts.next()?, parts.next()?);
    let epoch: i64 = epoch.parse().ok()?;
    if !util::ct_eq(mac(conf, payload, epoch).as_bytes(), sig.as_bytes()) {
        return None;
    }
    if !(-5..=LIFETIME).contains(&(util::now() - epoch)) {
        return None;
    }
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()?;
    let (key, values): (String, Vec<(String, String)>) = serde_json::from_slice(&json).ok()?;
    messages::lookup(messages::DEFAULT, &key)?;
    Some(Said { key, values })
}

fn mac(conf: &Conf, payload: &str, epoch: i64) -> String {
    let Ok(mut m) = Hmac::<Sha256>::new_from_slice(conf.key.as_bytes()) else {
        return String::new(); // HMAC accepts any key length
    };
    m.update(format!("flash:{epoch}:{payload}").as_bytes());
    util::hex(&m.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf() -> Conf {
        let mut c = Conf::of_json(serde_json::json!({"cfgNum": 1, "portal": "http://p/"}));
        c.key = "k".into();
        c
    }

    fn read(conf: &Conf, set: &str) -> Option<Said> {
        let value = set.split(';').next()?.split_once('=')?.1.to_string();
        let req =
            Request::new(Method::Get, "/").with_header("Cookie", &format!("{COOKIE}={value}"));
        take(conf, &req).0
    }

    #[test]
    fn says_what_the_server_wrote_and_nothing_forged() {
        let c = conf();
        let said = Said::new("mgrSaved").with("num", "7");
        assert_eq!(read(&c, &cookie(&c, &said)), Some(said.clone()));
        // Another key signed it: ignored.
        let mut other = conf();
        other.key = "other".into();
        assert_eq!(read(&other, &cookie(&c, &said)), None);
        // An unknown key, even signed: ignored.
        assert_eq!(read(&c, &cookie(&c, &Said::new("no such key"))), None);
        // Altered: ignored.
        let set = cookie(&c, &said).replacen(".", "x.", 1);
        assert_eq!(read(&c, &set), None);
        // A POST does not consume it.
        let req = Request::new(Method::Post, "/").with_header("Cookie", &format!("{COOKIE}=x"));
        assert_eq!(take(&c, &req), (None, None));
    }
}
