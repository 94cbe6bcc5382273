//! Helpers of the OpenID Connect tests: relying-party configuration, the authorize and token
//! calls, reading a redirect, and a stub of a REST directory bridge.
use super::{Builder, Client, Portal, Resp};
use base64::Engine;
use serde_json::{json, Map, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::Duration;

pub const CB: &str = "http://127.0.0.1:19999/cb";
pub const SECRET: &str = "rp1secret";
/// The password of `alice` at the stub directory ([`Stub::Good`]): distinctive, so that a
/// test can look for it in the log.
pub const STUB_PASSWORD: &str = "Wonderland-7f3e";

/// Options of a test RP (`client_id` = name, secret `rp1secret`, redirect `CB`, HS256 ID
/// tokens: unset, LemonLDAP::NG's default HS512 would disable it), plus `extra` (keys without
/// the `oidcRPMetaDataOptions` prefix; a `null` there removes the key).
pub fn rp(name: &str, extra: Value) -> Value {
    let mut m = Map::new();
    m.insert("oidcRPMetaDataOptionsClientID".into(), json!(name));
    m.insert("oidcRPMetaDataOptionsClientSecret".into(), json!(SECRET));
    m.insert("oidcRPMetaDataOptionsRedirectUris".into(), json!(CB));
    m.insert("oidcRPMetaDataOptionsBypassConsent".into(), json!(1));
    m.insert("oidcRPMetaDataOptionsIDTokenSignAlg".into(), json!("HS256"));
    m.insert(
        "oidcRPMetaDataOptionsPostLogoutRedirectUris".into(),
        json!("http://127.0.0.1:19999/bye"),
    );
    if let Value::Object(e) = extra {
        for (k, v) in e {
            let key = format!("oidcRPMetaDataOptions{k}");
            if v.is_null() {
                m.remove(&key);
            } else {
                m.insert(key, v);
            }
        }
    }
    Value::Object(m)
}

/// A portal (issuer = its URL) whose RPs are `rps` (name -> options), each exporting the
/// demo claims.
pub fn start(rps: &[(&str, Value)]) -> Portal {
    builder(rps).start()
}

/// The builder of [`start`], to add settings (test hooks, lifetimes) before starting. The
/// relying parties' URLs are on loopback: the outbound guard lets the portal reach loopback
/// (`outboundAllowTo`), as a site with internal relying parties would.
pub fn builder(rps: &[(&str, Value)]) -> Builder {
    builder_guarded(rps).ini(&format!("outboundAllowTo = {LOOPBACK}"))
}

/// The loopback blocks, for `outboundAllowTo`.
pub const LOOPBACK: &str = "127.0.0.0/8 ::1";

/// [`builder`] without the allow-list: the outbound guard refuses loopback as it does by
/// default.
pub fn builder_guarded(rps: &[(&str, Value)]) -> Builder {
    let opts: Map<String, Value> = rps
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    let vars: Map<String, Value> = rps
        .iter()
        .map(|(n, _)| {
            (
                n.to_string(),
                json!({"email": "mail", "name": "cn", "preferred_username": "uid"}),
            )
        })
        .collect();
    Portal::builder()
        .portal_url_matches()
        .conf("oidcRPMetaDataOptions", Value::Object(opts))
        .conf("oidcRPMetaDataExportedVars", Value::Object(vars))
}

/// The standard three RPs: `rp1` (refresh tokens), `rp1hs` (no refresh), `pub` (public
/// client).
pub fn start_default() -> Portal {
    default_builder().start()
}

/// The builder of [`start_default`].
pub fn default_builder() -> Builder {
    builder(&[
        (
            "rp1",
            rp("rp1", json!({"RefreshToken": 1, "IDTokenSignAlg": "HS256"})),
        ),
        ("rp1hs", rp("rp1hs", json!({}))),
        ("pub", rp("pub", json!({"Public": 1}))),
    ])
}

/// `GET /oauth2/authorize?<query>` with the SSO cookie (if any) and extra headers.
pub fn authorize(p: &Portal, sid: Option<&str>, query: &str, headers: &[(&str, &str)]) -> Resp {
    let cookie = sid.map(|s| format!("lemonldap={s}"));
    let mut h: Vec<(&str, &str)> = headers.to_vec();
    if let Some(c) = &cookie {
        h.push(("Cookie", c));
    }
    p.client().get(&format!("/oauth2/authorize?{query}"), &h)
}

/// A standard authorize query for a client.
pub fn query(client: &str, extra: &str) -> String {
    format!("response_type=code&client_id={client}&scope=openid+profile+email&redirect_uri={}&state=st1&nonce=n1{extra}", enc(CB))
}

/// A code for `client` (the user must be logged in as `sid`).
pub fn code(p: &Portal, sid: &str, client: &str, extra: &str) -> String {
    let r = authorize(p, Some(sid), &query(client, extra), &[]);
    assert_eq!(r.status, 302, "authorize: {} {}", r.status, r.text());
    param(r.header("location").unwrap(), "code").expect("code in redirect")
}

/// A code for `client` with `scope`, through its consent page (the user logged in as `sid`
/// confirms with the page's form token).
pub fn consented_code(p: &Portal, sid: &str, client: &str, scope: &str) -> String {
    let cookie = format!("lemonldap={sid}");
    let page = authorize(p, Some(sid), &query(client, ""), &[]).text();
    let at = page.find("name=\"token\" value=\"").expect("consent page") + 20;
    let csrf = &page[at..at + page[at..].find('"').expect("the token's end")];
    let f = [
        ("response_type", "code"),
        ("client_id", client),
        ("scope", scope),
        ("redirect_uri", CB),
        ("state", "st1"),
        ("nonce", "n1"),
        ("token", csrf),
        ("confirm", "1"),
    ];
    let r = p
        .client()
        .post_form("/oauth2/authorize", &f, &[("Cookie", &cookie)]);
    param(r.header("location").expect("redirect"), "code").expect("code in redirect")
}

/// A query parameter of a URL (decoded).
pub fn param(url: &str, name: &str) -> Option<String> {
    let q = url.split_once('?')?.1;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(if b[i] == b'+' { b' ' } else { b[i] });
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

pub fn enc(s: &str) -> String {
    super::http::enc(s)
}

/// `Authorization: Basic` value.
pub fn basic(user: &str, pass: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"))
    )
}

/// `POST /oauth2/token` with Basic credentials (when given) and form fields.
pub fn token(p: &Portal, creds: Option<(&str, &str)>, fields: &[(&str, &str)]) -> Resp {
    let auth = creds.map(|(u, s)| basic(u, s));
    let mut h: Vec<(&str, &str)> = Vec::new();
    if let Some(a) = &auth {
        h.push(("Authorization", a));
    }
    p.client().post_form("/oauth2/token", fields, &h)
}

/// Redeems a code for rp-style clients with the right redirect URI.
pub fn redeem(p: &Portal, client: &str, code: &str) -> Resp {
    token(
        p,
        Some((client, SECRET)),
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", CB),
        ],
    )
}

/// Decoded JSON of a JWT part.
pub fn jwt_part(t: &str, i: usize) -> Value {
    let part = t.split('.').nth(i).unwrap();
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap(),
    )
    .unwrap()
}

/// A client that talks to the portal (shortcut).
pub fn client(p: &Portal) -> Client {
    p.client()
}

/// How the stub directory behaves.
#[derive(Clone, Copy)]
pub enum Stub {
    /// Answers correctly: user `alice`, password [`STUB_PASSWORD`].
    Good,
    /// Answers after 5 seconds.
    Slow,
    /// Answers 200 with a body that is not JSON.
    BadJson,
    /// Answers HTTP 500.
    Fails,
}

/// Starts a stub REST directory on a free port; returns its base URL. The thread lives as
/// long as the test process.
pub fn stub_directory(mode: Stub) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || serve_stub(s, mode));
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn serve_stub(mut s: std::net::TcpStream, mode: Stub) {
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    r.read_line(&mut line).unwrap_or(0);
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut len = 0;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; len];
    let _ = r.read_exact(&mut body);
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, answer) = match mode {
        Stub::Slow => {
            // The slow directory is the fault under test: the delay is what it does.
            std::thread::sleep(Duration::from_secs(5));
            (200, json!({"result": true}).to_string())
        }
        Stub::BadJson => (200, "<html>oops</html>".to_string()),
        Stub::Fails => (500, "{}".to_string()),
        Stub::Good if path == "/auth" => {
            let ok = req["user"] == "alice" && req["password"] == STUB_PASSWORD;
            (200, json!({"result": ok, "info": {}}).to_string())
        }
        Stub::Good => {
            let known = req["user"] == "alice" && req["useMail"] == false;
            (200, json!({"result": known, "info": {"uid": "alice", "cn": "Alice Liddell", "mail": "alice@example.org"}}).to_string())
        }
    };
    let _ = write!(s, "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}", answer.len());
}
