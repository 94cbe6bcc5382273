//! The response handlers build. Headers are checked when written (no CR/LF can reach the wire).
use serde_json::Value;
use std::borrow::Cow;

/// A header's name or value: most are constants, kept without a copy.
pub type HeaderText = Cow<'static, str>;

/// One HTTP response.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Headers in order (names as written).
    pub headers: Vec<(HeaderText, HeaderText)>,
    /// Body bytes.
    pub body: Vec<u8>,
    /// Origins the page's forms lead to (`with_form_target`): not sent, added to the page's
    /// `form-action` by `web::headers`.
    pub form_targets: Vec<String>,
    /// Origins the page's iframes load (`with_frame_sources`): not sent, the page's
    /// `frame-src` (`web::headers`).
    pub frame_sources: Vec<String>,
    /// The origins that may frame this page (`with_frame_ancestors`), in place of the
    /// portal's `frame-ancestors` (`web::headers`); `None` for every other page.
    pub frame_ancestors: Option<Vec<String>>,
    /// An answer given later, off the worker pool (`Response::later`): the server hands the
    /// connection and this to its fetchers; the rest of the response is then unused.
    pub later: Option<Box<Later>>,
}

/// Work that produces an answer, run once on whichever thread takes it.
pub type Task = Box<dyn FnOnce() -> crate::error::Result<Response> + Send>;

/// An answer that waits on something slow (a fetch a client asked for): `run` gives it on a
/// fetcher thread, never on a worker; `busy` gives the refusal when no fetcher can take it now
/// (at once, on the worker). `key` names who asked (a client id): its tasks in hand are capped.
pub struct Later {
    /// Whose task this is, for the per-key cap.
    pub key: String,
    /// The answer, after the slow part.
    pub run: Task,
    /// The answer when the fetchers are full or `key` has its share in hand.
    pub busy: Task,
}

impl std::fmt::Debug for Later {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Later").field("key", &self.key).finish()
    }
}

/// The no-cache headers every JSON answer carries (contract, "Cross-cutting").
const NO_CACHE: [(&str, &str); 3] = [
    ("Cache-Control", "no-cache, no-store, must-revalidate"),
    ("Pragma", "no-cache"),
    ("Expires", "0"),
];

impl Response {
    /// An empty response with a status.
    pub fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            form_targets: Vec::new(),
            frame_sources: Vec::new(),
            frame_ancestors: None,
            later: None,
        }
    }

    /// An answer given later (see [`Later`]).
    pub fn later(key: impl Into<String>, run: Task, busy: Task) -> Response {
        let mut r = Response::empty(500);
        r.later = Some(Box::new(Later {
            key: key.into(),
            run,
            busy,
        }));
        r
    }

    /// A JSON response with the no-cache headers.
    pub fn json(status: u16, value: &Value) -> Response {
        let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
        Response::uncached(status, "application/json; charset=utf-8", body)
    }

    /// A body of any type with the no-cache headers every JSON answer carries (a signed JWT
    /// answer, `application/jwt`, holds the same data and the same headers).
    pub fn uncached(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
        let mut r = Response::bytes(status, content_type, body);
        for (k, v) in NO_CACHE {
            r = r.with_header(k, v);
        }
        r
    }

    /// An HTML page (the router adds the security headers: `web::headers`).
    pub fn html(status: u16, body: impl Into<String>) -> Response {
        let mut r = Response::empty(status).with_header("Content-Type", "text/html; charset=utf-8");
        r.body = body.into().into_bytes();
        r
    }

    /// A body of any type.
    pub fn bytes(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
        let mut r = Response::empty(status).with_header("Content-Type", content_type);
        r.body = body.into();
        r
    }

    /// A 302 redirect. Bytes outside printable ASCII (a U+2028 in a `url=` target, a raw
    /// space) are percent-encoded, as a URL on the wire must be (RFC 3986 §2.1): a header
    /// never carries them raw.
    /// Also the answer to a form posted with success (post/redirect/get: browsers follow a
    /// 302 with a GET, so reloading the page it leads to posts nothing again).
    pub fn redirect(location: &str) -> Response {
        Response::empty(302).with_header("Location", wire_url(location))
    }

    /// Adds a header: a constant value is kept as it is, any other moved in.
    pub fn with_header(mut self, name: &'static str, value: impl Into<HeaderText>) -> Response {
        self.headers.push((Cow::Borrowed(name), value.into()));
        self
    }

    /// Names the URL a form of this page leads to once posted (the page after a login), so
    /// that the page's `form-action` allows its origin, as LemonLDAP::NG adds its `urldc`.
    pub fn with_form_target(mut self, url: &str) -> Response {
        if let Some(origin) = origin_of(url) {
            if !self.form_targets.contains(&origin) {
                self.form_targets.push(origin);
            }
        }
        self
    }

    /// Allows the page to load these URLs in iframes (their origins go into `frame-src`).
    pub fn with_frame_sources(mut self, urls: &[String]) -> Response {
        for origin in urls.iter().filter_map(|u| origin_of(u)) {
            if !self.frame_sources.contains(&origin) {
                self.frame_sources.push(origin);
            }
        }
        self
    }

    /// Adds a `Set-Cookie` header.
    pub fn with_cookie(self, cookie: &str) -> Response {
        self.with_header("Set-Cookie", cookie.to_string())
    }

    /// Adds a `Set-Cookie` header for each cookie (the SSO cookie and its companion).
    pub fn with_cookies(self, cookies: &[String]) -> Response {
        cookies.iter().fold(self, |r, c| r.with_cookie(c))
    }

    /// Lets exactly the origins of `urls` frame this page (its `frame-ancestors`, no
    /// `X-Frame-Options`; none framable gives `'none'`): for the one page relying parties
    /// embed, whatever the portal's own anti-framing.
    pub fn with_frame_ancestors(mut self, urls: &[String]) -> Response {
        let mut origins: Vec<String> = Vec::new();
        for origin in urls.iter().filter_map(|u| origin_of(u)) {
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        self.frame_ancestors = Some(origins);
        self
    }

    /// First value of a header (case-insensitive), for tests.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_ref())
    }

    /// The body parsed as JSON, for tests.
    pub fn json_body(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// `url` with every byte outside visible ASCII percent-encoded (existing escapes kept).
pub fn wire_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for b in url.bytes() {
        if b.is_ascii_graphic() {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The origin LemonLDAP::NG's `cspGetHost` puts into `form-action` for a URL:
/// `scheme://host` with the port only when it is not the scheme's default; `None` for
/// anything but an absolute http(s) URL with a plain host.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default = match scheme.as_str() {
        "http" => "80",
        "https" => "443",
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let ok = |b: u8| b.is_ascii_alphanumeric() || b"-._[]:".contains(&b);
    if authority.is_empty() || !authority.bytes().all(ok) {
        return None;
    }
    let authority = authority.to_ascii_lowercase();
    let host = match authority.rsplit_once(':') {
        Some((h, p)) if p == default && !h.ends_with(':') => h.to_string(),
        _ => authority,
    };
    Some(format!("{scheme}://{host}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_target_reaches_the_wire_encoded() {
        let r = Response::redirect("https://app.example.com/a\u{2028}b c?x=%41");
        assert_eq!(
            r.header("location"),
            Some("https://app.example.com/a%E2%80%A8b%20c?x=%41")
        );
    }

    #[test]
    fn origins_as_cspgethost() {
        assert_eq!(
            origin_of("https://App.example.com:443/x?y").as_deref(),
            Some("https://app.example.com")
        );
        assert_eq!(
            origin_of("http://app.example.com:8080/").as_deref(),
            Some("http://app.example.com:8080")
        );
        assert_eq!(
            origin_of("http://[::1]:80/").as_deref(),
            Some("http://[::1]")
        );
        assert_eq!(origin_of("javascript:alert(1)"), None);
        assert_eq!(origin_of("http://a b/"), None);
        assert_eq!(origin_of("http://x;script-src */"), None);
    }
}
