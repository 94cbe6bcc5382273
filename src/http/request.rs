//! The request as handlers see it: method, decoded path pieces, query, lower-cased headers,
//! the whole body (already bounded by the server's reading stage), and the client address.
use crate::util;
use base64::Engine;
use std::net::{IpAddr, SocketAddr};

/// HTTP methods the portal routes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
    Options,
    Patch,
    Other,
}

impl Method {
    /// Parses a method token.
    pub fn parse(s: &str) -> Method {
        match s {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "DELETE" => Method::Delete,
            "OPTIONS" => Method::Options,
            "PATCH" => Method::Patch,
            _ => Method::Other,
        }
    }
    /// The method token.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Patch => "PATCH",
            Method::Other => "OTHER",
        }
    }
    /// GET or HEAD.
    pub fn is_read(self) -> bool {
        matches!(self, Method::Get | Method::Head)
    }
}

/// One HTTP request, fully read.
#[derive(Debug, Clone)]
pub struct Request {
    /// Request method.
    pub method: Method,
    /// Path without the query string, still percent-encoded (as sent).
    pub path: String,
    /// Raw query string (without `?`), possibly empty.
    pub query: String,
    /// Headers with lower-cased names, in order.
    pub headers: Vec<(String, String)>,
    /// The body (at most the configured limit).
    pub body: Vec<u8>,
    /// The TCP peer, when known (the reading stage states it).
    pub remote: Option<SocketAddr>,
    /// The client's address, when known: the peer, or behind a trusted proxy the address its
    /// `X-Forwarded-For` names (decided once, by the reading stage); None when a peer that is
    /// not a trusted proxy forwards for someone. Address rules use this.
    pub client: Option<IpAddr>,
    /// Request id used in log lines.
    pub id: u64,
}

impl Request {
    /// A request for tests and internal calls.
    pub fn new(method: Method, url: &str) -> Request {
        let (path, query) = match url.split_once('?') {
            Some((p, q)) => (p.to_string(), q.to_string()),
            None => (url.to_string(), String::new()),
        };
        Request {
            method,
            path,
            query,
            headers: Vec::new(),
            body: Vec::new(),
            remote: None,
            client: None,
            id: 0,
        }
    }

    /// Adds a header (builder style, for tests).
    pub fn with_header(mut self, name: &str, value: &str) -> Request {
        self.headers
            .push((name.to_ascii_lowercase(), value.to_string()));
        self
    }

    /// Sets the body (builder style, for tests).
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
        self
    }

    /// First value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// True when the client asks for JSON (`Accept` contains `json`), as LemonLDAP::NG decides.
    pub fn wants_json(&self) -> bool {
        self.header("accept")
            .map(|a| a.contains("json"))
            .unwrap_or(false)
    }

    /// Decoded query parameters.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        util::parse_urlencoded(&self.query)
    }

    /// First decoded query parameter of that name.
    pub fn query_param(&self, name: &str) -> Option<String> {
        self.query_pairs()
            .into_iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// True when the query holds the key (with or without a value).
    pub fn has_query(&self, name: &str) -> bool {
        self.query_pairs().iter().any(|(k, _)| k == name)
    }

    /// True when the body is form-encoded (or has no content type, as curl -d sends).
    pub fn is_form(&self) -> bool {
        match self.header("content-type") {
            Some(ct) => ct
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded"),
            None => !self.body.is_empty(),
        }
    }

    /// Decoded form fields of a urlencoded body (empty when the body is something else).
    pub fn form(&self) -> Vec<(String, String)> {
        if !self.is_form() {
            return Vec::new();
        }
        util::parse_urlencoded(&String::from_utf8_lossy(&self.body))
    }

    /// First form field of that name.
    pub fn form_param(&self, name: &str) -> Option<String> {
        self.form()
            .into_iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// A parameter from the form body, or else from the query (POST works as GET).
    pub fn param(&self, name: &str) -> Option<String> {
        self.form_param(name).or_else(|| self.query_param(name))
    }

    /// The value of a cookie (last one wins, as browsers send the most specific first... we
    /// take the first, which is what LemonLDAP::NG's CGI cookie parser does).
    pub fn cookie(&self, name: &str) -> Option<String> {
        for (k, v) in &self.headers {
            if k != "cookie" {
                continue;
            }
            for part in v.split(';') {
                if let Some((n, val)) = part.trim().split_once('=') {
                    if n.trim() == name {
                        return Some(val.trim().trim_matches('"').to_string());
                    }
                }
            }
        }
        None
    }

    /// HTTP Basic credentials, if sent and well-formed.
    pub fn basic_auth(&self) -> Option<(String, String)> {
        let h = self.header("authorization")?;
        let (scheme, rest) = h.trim().split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("basic") {
            return None;
        }
        let raw = base64::engine::general_purpose::STANDARD
            .decode(rest.trim())
            .ok()?;
        let s = String::from_utf8(raw).ok()?;
        let (u, p) = s.split_once(':')?;
        Some((util::url_decode_basic(u), util::url_decode_basic(p)))
    }

    /// A bearer token from the `Authorization` header (scheme case-insensitive).
    pub fn bearer(&self) -> Option<String> {
        let h = self.header("authorization")?;
        let (scheme, rest) = h.trim().split_once(' ')?;
        if scheme.eq_ignore_ascii_case("bearer") && !rest.trim().is_empty() {
            Some(rest.trim().to_string())
        } else {
            None
        }
    }

    /// The decoded path segments after a prefix (`/sessions/global/x` minus `/sessions`).
    pub fn segments_after(&self, prefix: &str) -> Vec<String> {
        self.path
            .strip_prefix(prefix)
            .unwrap_or("")
            .split('/')
            .filter(|s| !s.is_empty())
            .map(util::url_decode_path)
            .collect()
    }

    /// Client IP as text, for the session's `ipAddr` and the rules' `$ENV{REMOTE_ADDR}`:
    /// empty when the client is unknown (behind a proxy that is not trusted), which no
    /// address rule matches; never a loopback address by default.
    pub fn ip(&self) -> String {
        self.client.map(|a| a.to_string()).unwrap_or_default()
    }
}
