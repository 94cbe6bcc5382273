//! The two shapes web servers speak to the handler endpoint, read and answered:
//! - nginx `auth_request` (`/lmauth`), as LemonLDAP::NG's `Handler::Server::Nginx` answers it:
//!   the virtual host from `Host`, the access-control URI from `X-Original-URI` (nginx's
//!   `$uri$is_args$args`, used as it is); 200 with `Lm-Remote-User`, `Lm-Remote-Custom`, each
//!   exported header as itself and as `Headername<i>`/`Headervalue<i>`, the `Cookie` without
//!   the SSO cookie (or `Deleteheader<i>` pairs when none is left); 401 with the portal's
//!   `Location` (nginx turns it back into a redirect: `error_page 401 $lmlocation`); 403; 503.
//! - Traefik ForwardAuth and Caddy `forward_auth` (`/lmauth/forward`), as
//!   `Handler::Server::Traefik`: `X-Forwarded-Host`, `-Uri` (canonicalized, as LemonLDAP::NG
//!   does when it is the client's own URI), `-Proto`; 200 with the headers to copy, 302 to the
//!   portal, 403, 503.
//!
//! The URL sent to the portal is LemonLDAP::NG's `url=`: base64 of the absolute URL, built as
//! its `_buildUrl` does (scheme from `vhostHttps`/`https`/the request, port likewise).
use super::decide::{Granted, Verdict};
use super::settings::Settings;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};
use crate::rules::Env;
use base64::Engine;
use std::borrow::Cow;

/// Which web server's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// nginx `auth_request`.
    Nginx,
    /// Traefik ForwardAuth, Caddy `forward_auth`.
    Forward,
}

/// What the web server asks, read from the request's head.
#[derive(Debug)]
pub struct Asked {
    /// The application's host, with its port when the client sent one.
    pub host: String,
    /// The URI access control decides on.
    pub uri: String,
    /// The URI as the client sent it, for the way back after login.
    pub back: String,
    /// Whether the client spoke https to the web server.
    pub https: bool,
    /// The port the client reached, when the web server says it.
    pub port: Option<u16>,
    /// The request's variables for `$ENV{...}` (`HTTP_HOST` is the application's).
    pub env: Env,
}

/// Reads the question; a missing header is a bad request (the web server's configuration
/// lacks it: the guide shows it), and so is one given twice (a line smuggled into a header
/// the web server built from the client's URI must not choose what the rules see).
pub fn read(req: &Request, shape: Shape) -> Result<Asked> {
    let need = |name: &str| {
        if req.headers.iter().filter(|(n, _)| n == name).count() > 1 {
            return Err(Error::bad(format!("{name}: given more than once")));
        }
        req.header(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| {
                Error::bad(format!(
                    "{name}: missing (see docs/protect-an-application.md)"
                ))
            })
    };
    let (host, back, uri) = match shape {
        Shape::Nginx => {
            let uri = need("x-original-uri")?;
            (need("host")?, uri, uri.to_string())
        }
        Shape::Forward => {
            let raw = need("x-forwarded-uri")?;
            let uri =
                canonical_uri(raw).ok_or_else(|| Error::bad("X-Forwarded-Uri: not a URI path"))?;
            (need("x-forwarded-host")?, raw, uri)
        }
    };
    if !host.bytes().all(|b| b.is_ascii_graphic()) || !uri.starts_with(['/', '*']) {
        return Err(Error::bad("Host or URI: not acceptable"));
    }
    let last = |name: &str| {
        req.header(name)
            .and_then(|v| v.rsplit(',').next())
            .map(str::trim)
    };
    let https = last("x-forwarded-proto").is_some_and(|p| p.eq_ignore_ascii_case("https"));
    let port = last("x-forwarded-port").and_then(|p| p.parse().ok());
    let headers = req.headers.iter().filter(|(n, _)| n != "host");
    let pairs = headers.map(|(n, v)| (n.as_str(), v.as_str()));
    let env = Env::from_request(pairs.chain([("host", host)]), &req.ip());
    Ok(Asked {
        host: host.to_string(),
        uri,
        back: back.to_string(),
        https,
        port,
        env,
    })
}

/// The answer to the web server.
pub fn answer(
    conf: &Conf,
    s: &Settings,
    req: &Request,
    asked: &Asked,
    shape: Shape,
    v: Verdict,
) -> Response {
    let to_portal = |target: &str, logout: bool| {
        let status = if shape == Shape::Nginx { 401 } else { 302 };
        let tail = if logout { "&logout=1" } else { "" };
        let location = format!("{}?url={}{tail}", conf.portal, encode_url(target));
        Response::empty(status).with_header("Location", location)
    };
    match v {
        Verdict::Grant(g) => granted(conf, req, shape, g),
        Verdict::Open(names) => opened(conf, req, shape, &names),
        Verdict::Login => to_portal(&request_url(s, asked), false),
        Verdict::Logout(_, to) => to_portal(to.as_deref().unwrap_or(&conf.portal), true),
        Verdict::Forbidden(_) => Response::empty(403),
        Verdict::Maintenance => Response::empty(503),
    }
}

fn granted(conf: &Conf, req: &Request, shape: Shape, g: Granted) -> Response {
    let mut r = Response::empty(200).with_header("Lm-Remote-User", g.user);
    if let Some(c) = g.custom {
        r = r.with_header("Lm-Remote-Custom", c);
    }
    for (i, (name, value)) in g.headers.into_iter().enumerate() {
        if shape == Shape::Nginx {
            let n = i + 1;
            push(&mut r, format!("Headername{n}"), name.clone());
            push(&mut r, format!("Headervalue{n}"), value.clone());
        }
        push(&mut r, name, value);
    }
    hide_cookie(conf, req, shape, r, 1)
}

/// An open path (`skip`, `unprotect` without a session): nginx is told which headers to drop
/// (`Deleteheader<i>`, as LemonLDAP::NG's `cleanHeaders`); Traefik and Caddy get each of them
/// empty, since what they copy must be in the answer (Caddy 2.6 copies a missing one as its
/// placeholder's text).
fn opened(conf: &Conf, req: &Request, shape: Shape, names: &[String]) -> Response {
    let mut r = Response::empty(200);
    let mut n = 1;
    for name in names {
        if shape == Shape::Forward {
            push(&mut r, name.clone(), String::new());
            continue;
        }
        let cgi = format!("HTTP_{}", name.to_ascii_uppercase().replace('-', "_"));
        for h in [name.clone(), cgi] {
            push(&mut r, format!("Deleteheader{n}"), h);
            n += 1;
        }
    }
    if shape == Shape::Forward {
        r = r.with_header("Lm-Remote-User", "");
    }
    hide_cookie(conf, req, shape, r, n)
}

/// The request's cookies without the SSO cookie, for the application (LemonLDAP::NG's
/// `hideCookie`); none left: nginx is told to delete the header.
fn hide_cookie(conf: &Conf, req: &Request, shape: Shape, mut r: Response, n: usize) -> Response {
    let Some(all) = req.header("cookie") else {
        return r;
    };
    let http_name = format!("{}http", conf.cookie_name);
    let kept: Vec<&str> = all
        .split(';')
        .map(str::trim)
        .filter(|c| {
            let name = c.split('=').next().unwrap_or("").trim();
            !c.is_empty() && name != conf.cookie_name && name != http_name
        })
        .collect();
    if !kept.is_empty() {
        push(&mut r, "Cookie".into(), kept.join("; "));
    } else if shape == Shape::Nginx {
        for (i, h) in ["Cookie", "HTTP_COOKIE"].into_iter().enumerate() {
            push(&mut r, format!("Deleteheader{}", n + i), h.into());
        }
    }
    r
}

fn push(r: &mut Response, name: String, value: String) {
    r.headers.push((Cow::Owned(name), Cow::Owned(value)));
}

/// The absolute URL the client asked for (LemonLDAP::NG's `_buildUrl`).
pub fn request_url(s: &Settings, asked: &Asked) -> String {
    let vhost = s.vhosts.get(&s.resolve(&asked.host));
    let options = vhost.map(|v| &v.options);
    let https = options
        .and_then(|o| o.https)
        .or(s.https)
        .unwrap_or(asked.https);
    let default = if https { 443 } else { 80 };
    let port = options
        .and_then(|o| o.port)
        .or(s.port)
        .or(asked.port)
        .unwrap_or(default);
    let has_port = super::settings::strip_port(&asked.host) != asked.host;
    let shown = match has_port || port == default {
        true => String::new(),
        false => format!(":{port}"),
    };
    let scheme = if https { "https" } else { "http" };
    format!("{scheme}://{}{shown}{}", asked.host, asked.back)
}

/// LemonLDAP::NG's `encodeUrl`: base64, then percent-encoded for a query.
pub fn encode_url(url: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(url);
    b64.replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D")
}

/// LemonLDAP::NG's `canonicalUri`: the path percent-decoded and normalized (dot segments,
/// repeated slashes), as web servers do before routing; the query as it is. `None` when the
/// decoded path is not UTF-8.
pub fn canonical_uri(raw: &str) -> Option<String> {
    let mut uri = raw;
    if let Some(i) = uri.find("://") {
        let scheme_ok = uri[..i]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b));
        if scheme_ok && i > 0 {
            let rest = &uri[i + 3..];
            uri = rest.find(['/', '?']).map_or("", |j| &rest[j..]);
        }
    }
    let (path, query) = match uri.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (uri, None),
    };
    let path = if path.is_empty() { "/" } else { path };
    let path = if path.starts_with('/') {
        normalize(&percent_decode(path)?)
    } else {
        path.to_string()
    };
    Some(match query {
        Some(q) => format!("{path}?{q}"),
        None => path,
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn normalize(path: &str) -> String {
    let trailing = path.ends_with('/') || path.ends_with("/.") || path.ends_with("/..");
    let mut segments: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let mut out = format!("/{}", segments.join("/"));
    if trailing && out != "/" {
        out.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;

    #[test]
    fn the_question_is_read_once() {
        let req = Request::new(Method::Get, "/lmauth")
            .with_header("Host", "app.example.com")
            .with_header("X-Original-URI", "/x?y");
        let asked = read(&req, Shape::Nginx).unwrap();
        assert_eq!(
            (asked.host.as_str(), asked.uri.as_str()),
            ("app.example.com", "/x?y")
        );
        assert_eq!(asked.env.get("HTTP_HOST"), Some("app.example.com"));
        let twice = req.clone().with_header("X-Original-URI", "/public");
        assert!(read(&twice, Shape::Nginx).is_err());
        let two_hosts = req.with_header("host", "other.example.com");
        assert!(read(&two_hosts, Shape::Nginx).is_err());
        let fwd = Request::new(Method::Get, "/lmauth/forward")
            .with_header("X-Forwarded-Host", "app.example.com")
            .with_header("X-Forwarded-Uri", "/a/../b")
            .with_header("X-Forwarded-Proto", "http, https")
            .with_header("X-Forwarded-Port", "8443");
        let asked = read(&fwd, Shape::Forward).unwrap();
        assert_eq!((asked.uri.as_str(), asked.back.as_str()), ("/b", "/a/../b"));
        assert!(asked.https);
        assert_eq!(asked.port, Some(8443));
        assert!(
            read(&fwd, Shape::Nginx).is_err(),
            "the nginx shape wants X-Original-URI"
        );
    }

    #[test]
    fn canonical_uris_as_llng() {
        let c = |s: &str| canonical_uri(s).unwrap();
        assert_eq!(c("/a/./b/../c?x=/../y"), "/a/c?x=/../y");
        assert_eq!(c("//admin//x"), "/admin/x");
        assert_eq!(c("/%61dmin/"), "/admin/");
        assert_eq!(c("/a/.."), "/");
        assert_eq!(c("http://h.example/p?q"), "/p?q");
        assert_eq!(c("?q"), "/?q");
        assert_eq!(c("/%2e%2e/admin"), "/admin");
        assert_eq!(canonical_uri("/%ff"), None);
    }

    #[test]
    fn urls_as_llng_encodes_them() {
        assert_eq!(encode_url("http://a/?>>"), "aHR0cDovL2EvPz4%2B");
    }
}
