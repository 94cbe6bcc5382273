//! Helpers of the sessions tests: a portal with the REST session server and access rules on,
//! cookies, base64, and the `openssl` command line as an independent AES implementation.
use super::{Builder, Portal};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

/// The configuration key shared by the instances of a test.
pub const KEY: &str = "sessions-test-key";

/// A builder with the REST session server on, a known `key` and `locationRules` for
/// `test1.example.com` as the reference measurements used.
pub fn builder() -> Builder {
    Portal::builder()
        .conf("restSessionServer", json!(1))
        .conf("key", json!(KEY))
        .conf(
            "locationRules",
            json!({
                "test1.example.com": {
                    "^/admin": "inGroup(\"timelords\")",
                    "^/deny": "deny",
                    "(?#a)^/pub": "unprotect",
                    "default": "accept"
                }
            }),
        )
}

/// A node keeping its SSO sessions in `a` through REST (`a.port`: the port `a` reports, so no
/// port is probed before a start), with `a`'s `key`; `extra` adds to `globalStorageOptions`.
pub fn rest_node_of(a: &Portal, extra: Value) -> Portal {
    let mut opts = json!({
        "baseUrl": format!("http://127.0.0.1:{}/sessions/global", a.port),
        "timeout": 3,
    });
    if let (Some(o), Value::Object(more)) = (opts.as_object_mut(), extra) {
        o.extend(more);
    }
    Portal::builder()
        .conf("key", json!(KEY))
        .ini("globalStorage = REST")
        .ini(&format!("globalStorageOptions = {opts}"))
        .start()
}

/// The `Cookie` header value of a session.
pub fn cookie(id: &str) -> String {
    format!("lemonldap={id}")
}

/// Standard base64.
pub fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Standard base64 decoding.
pub fn unb64(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `openssl` with `args`, feeding `input`; panics with its stderr on failure (a missing
/// openssl is a failure: CI installs it with `.ci/setup.d/sessions.sh`).
pub fn openssl(args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new("openssl")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("openssl must be installed (see .ci/setup.d/sessions.sh)");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A JSON value's object, for readable assertions.
pub fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}
