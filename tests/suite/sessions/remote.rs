//! Two instances sharing sessions through REST, and the command line.
use super::common::sessions::{builder, cookie, rest_node_of};
use super::common::{bin, Portal, Resp};
use super::JSON;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// B keeps its sessions in A through REST: a login on B is readable on A; B answers clearly
/// while A is down and recovers when A is back.
#[test]
fn two_instances_share_sessions_through_rest() {
    // A on a port of its choosing; B is configured with the port A reports.
    let a = builder().start();
    let port = a.port;
    let b = rest_node_of(&a, json!({}));
    let id = b.login("dwho");
    let on_a = a.client().get_json(&format!("/sessions/global/{id}"));
    assert_eq!(on_a.status, 200, "{}", on_a.text());
    assert_eq!(
        (
            on_a.json()["uid"].clone(),
            on_a.json()["_whatToTrace"].clone()
        ),
        (json!("dwho"), json!("dwho"))
    );
    let home = |p: &Portal| -> Resp { p.client().get("/", &[JSON, ("Cookie", &cookie(&id))]) };
    assert_eq!(home(&b).json(), json!({"result": 1, "error": "0"}));
    // A deletes it: B no longer knows it.
    let id2 = b.login("rtyler");
    a.client()
        .send("DELETE", &format!("/sessions/global/{id2}"), &[JSON], b"");
    let r = b.client().get("/", &[JSON, ("Cookie", &cookie(&id2))]);
    assert_eq!((r.status, r.json()["error"].clone()), (401, json!("1")));
    // A goes down: B answers at once with a clear error, and stays up.
    let data = a.stop_keep_data();
    let t = Instant::now();
    let r = home(&b);
    assert_eq!(
        (r.status, r.json()),
        (502, json!({"error": "An upstream service failed"}))
    );
    let r = b
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert_eq!(r.status, 502);
    assert!(t.elapsed() < Duration::from_secs(60), "nothing hangs");
    assert!(b.log().contains("127.0.0.1"), "the log names the remote");
    // A is back on the same port and data: B recovers, the session survived.
    let a = builder().port(port).data(data).start();
    assert_eq!(home(&b).json(), json!({"result": 1, "error": "0"}));
    let id3 = b.login("msmith");
    assert_eq!(
        a.client()
            .get_json(&format!("/sessions/global/{id3}/uid"))
            .json(),
        "msmith"
    );
}

#[test]
fn sessions_command_line() {
    let p = builder().start();
    let id = p.login("dwho");
    let run = |args: &[&str]| {
        let out = crate::common::portal_command(&p, &["sessions"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (code, out) = run(&["list"]);
    assert_eq!(code, Some(0));
    assert!(out.contains(&id) && out.contains("dwho"), "{out}");
    let (code, out) = run(&["get", &id]);
    assert_eq!(code, Some(0));
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["uid"], "dwho");
    // An expired session is purged, a live one kept.
    let old = json!({"uid": "old", "_utime": 1});
    let oid = p
        .client()
        .send_json("POST", "/sessions/global", &old)
        .json()["session"]["_session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, out) = run(&["purge"]);
    assert_eq!((code, out.trim()), (Some(0), "1 expired sessions removed"));
    assert_eq!(
        p.client()
            .get_json(&format!("/sessions/global/{oid}"))
            .status,
        404
    );
    let (code, _) = run(&["delete", &id]);
    assert_eq!(code, Some(0));
    assert_eq!(
        p.client()
            .get_json(&format!("/sessions/global/{id}"))
            .status,
        404
    );
    assert_eq!(run(&["get", &id]).0, Some(1));
    assert_eq!(run(&["get", "../x"]).0, Some(1));
    assert_eq!(run(&["frobnicate"]).0, Some(2));
}

/// `limette sessions list | head -1`: the reader goes away after what it wanted, and the
/// command ends quietly with its exit code, never a panic on the broken pipe. The closed end
/// is a socket whose peer is gone before the command writes (a write there fails as on a pipe
/// that `head` closed, without a race on when `head` exits).
#[test]
fn a_closed_stdout_ends_a_listing_without_a_panic() {
    let p = builder().start();
    for user in ["dwho", "rtyler", "msmith"] {
        p.login(user);
    }
    let ini = p.data().join("limette.ini");
    for args in [
        &["sessions", "list"][..],
        &["sessions", "offline"],
        &["config", "list"],
        &["config", "export"],
        &["--help"],
    ] {
        let (gone, stdout) = std::os::unix::net::UnixStream::pair().unwrap();
        drop(gone);
        let out = crate::common::command(&ini, p.data(), args)
            .stdin(std::process::Stdio::null())
            .stdout(std::os::fd::OwnedFd::from(stdout))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
    // Through a real pipe and `head`, as a user types it.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("\"$0\" -c \"$1\" --data \"$2\" sessions list | head -1")
        .arg(bin())
        .arg(&ini)
        .arg(p.data())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}

/// A keeps its REST session server behind `restUser`/`restPassword` (a salted hash): B, whose
/// session store names the right `user` and `password`, logs users in and A reads them; a B
/// with a wrong password gets nothing stored (A answers 401).
#[test]
fn a_rest_session_client_sends_the_credentials_of_its_options() {
    use super::common::sessions::b64;
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new()
        .chain_update("replica pw")
        .chain_update(b"salt1234")
        .finalize()
        .to_vec();
    hash.extend_from_slice(b"salt1234");
    let a = builder()
        .ini("restUser = replica")
        .ini(&format!("restPassword = {{SSHA256}}{}", b64(&hash)))
        .start();
    let b_with =
        |password: &str| rest_node_of(&a, json!({"user": "replica", "password": password}));
    let b = b_with("replica pw");
    let id = b.login("dwho");
    assert_eq!(
        b.client()
            .get("/", &[JSON, ("Cookie", &cookie(&id))])
            .json(),
        json!({"result": 1, "error": "0"})
    );
    let auth = format!("Basic {}", b64(b"replica:replica pw"));
    let on_a = a.client().get(
        &format!("/sessions/global/{id}/uid"),
        &[JSON, ("Authorization", &auth)],
    );
    assert_eq!((on_a.status, on_a.json()), (200, json!("dwho")));
    assert_eq!(
        a.client()
            .get_json(&format!("/sessions/global/{id}"))
            .status,
        401
    );
    let wrong = b_with("replica");
    let r = wrong
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert_eq!(r.status, 502, "{}", r.text());
}
