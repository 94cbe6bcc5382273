//! A minimal raw HTTP/1.1 client for tests: exact control of headers, no redirects followed,
//! cookies read by hand.
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A response as the client saw it.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn headers_named(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    /// The value a Set-Cookie gives to a cookie name, if any.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.headers_named("set-cookie").into_iter().find_map(|c| {
            let first = c.split(';').next()?;
            let (n, v) = first.split_once('=')?;
            (n.trim() == name).then(|| v.trim().to_string())
        })
    }
}

/// A client of one port.
#[derive(Clone)]
pub struct Client {
    pub port: u16,
}

impl Client {
    pub fn new(port: u16) -> Client {
        Client { port }
    }

    /// Sends a request and reads the whole response (Connection: close).
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(90))).unwrap();
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n",
            self.port
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() || matches!(method, "POST" | "PUT") {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        read_response(&mut BufReader::new(s), method == "HEAD").expect("read response")
    }

    pub fn get(&self, path: &str, headers: &[(&str, &str)]) -> Resp {
        self.send("GET", path, headers, b"")
    }

    pub fn get_json(&self, path: &str) -> Resp {
        self.get(path, &[("Accept", "application/json")])
    }

    pub fn post_form(&self, path: &str, fields: &[(&str, &str)], headers: &[(&str, &str)]) -> Resp {
        let body = form(fields);
        let mut h = headers.to_vec();
        h.push(("Content-Type", "application/x-www-form-urlencoded"));
        self.send("POST", path, &h, body.as_bytes())
    }

    pub fn send_json(&self, method: &str, path: &str, body: &Value) -> Resp {
        let b = serde_json::to_vec(body).unwrap();
        self.send(
            method,
            path,
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            &b,
        )
    }
}

/// Form-encodes fields.
pub fn form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Percent-encodes a value.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Reads one response from a buffered stream (Content-Length or until close).
pub fn read_response<R: Read>(r: &mut BufReader<R>, head: bool) -> std::io::Result<Resp> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("bad status line {line:?}"),
            )
        })?;
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok());
    let mut body = Vec::new();
    if !head {
        match len {
            Some(n) => {
                body.resize(n, 0);
                r.read_exact(&mut body)?;
            }
            None => {
                r.read_to_end(&mut body)?;
            }
        }
    }
    Ok(Resp {
        status,
        headers,
        body,
    })
}
