//! The response handlers build. Headers are checked when written (no CR/LF can reach the wire).
use serde_json::Value;

/// One HTTP response.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Headers in order (names as written).
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
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
        }
    }

    /// A JSON response with the no-cache headers.
    pub fn json(status: u16, value: &Value) -> Response {
        let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
        let mut r =
            Response::empty(status).with_header("Content-Type", "application/json; charset=utf-8");
        for (k, v) in NO_CACHE {
            r = r.with_header(k, v);
        }
        r.body = body;
        r
    }

    /// An HTML page.
    pub fn html(status: u16, body: impl Into<String>) -> Response {
        let mut r = Response::empty(status).with_header("Content-Type", "text/html; charset=utf-8");
        r.headers
            .push(("X-Content-Type-Options".into(), "nosniff".into()));
        r.headers.push(("X-Frame-Options".into(), "DENY".into()));
        r.body = body.into().into_bytes();
        r
    }

    /// A body of any type.
    pub fn bytes(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        let mut r = Response::empty(status).with_header("Content-Type", content_type);
        r.body = body.into();
        r
    }

    /// A 302 redirect.
    pub fn redirect(location: &str) -> Response {
        Response::empty(302).with_header("Location", location)
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Adds a `Set-Cookie` header.
    pub fn with_cookie(self, cookie: &str) -> Response {
        self.with_header("Set-Cookie", cookie)
    }

    /// First value of a header (case-insensitive), for tests.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON, for tests.
    pub fn json_body(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}
