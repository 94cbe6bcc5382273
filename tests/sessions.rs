//! The sessions area over HTTP: the REST session server (every row of the contract's session
//! section), LemonLDAP::NG's `__secret` protocol (with openssl as an independent cipher), the
//! connected user's endpoints, `/mysession`, two instances sharing sessions through REST, and
//! the `limette sessions` command.
mod common;

use common::sessions::{b64, builder, cookie, hex, keys, openssl, unb64, KEY};
use common::{bin, Portal, Resp};
use limette::sessions::secret;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const JSON: (&str, &str) = ("Accept", "application/json");

fn now() -> i64 {
    limette::util::now()
}

#[test]
fn reads_a_session_whole_by_key_and_by_keys() {
    let p = builder().start();
    let id = p.login("dwho");
    let c = p.client();
    let r = c.get_json(&format!("/sessions/global/{id}"));
    assert_eq!(r.status, 200, "{}", r.text());
    let s = r.json();
    assert_eq!(s["uid"], "dwho");
    assert_eq!(s["_session_id"], id.as_str());
    assert_eq!(s["hGroups"]["timelords"]["name"], "timelords");
    assert_eq!(
        r.header("cache-control"),
        Some("no-cache, no-store, must-revalidate")
    );
    // One key, as JSON; a missing key is null.
    let r = c.get_json(&format!("/sessions/global/{id}/uid"));
    assert_eq!((r.status, r.json()), (200, json!("dwho")));
    let r = c.get_json(&format!("/sessions/global/{id}/hGroups"));
    assert_eq!(r.json()["timelords"], json!({"name": "timelords"}));
    let r = c.get_json(&format!("/sessions/global/{id}/nokey"));
    assert_eq!((r.status, r.json()), (200, Value::Null));
    // Several keys.
    let r = c.get_json(&format!("/sessions/global/{id}/[uid,mail,nokey]"));
    assert_eq!(
        r.json(),
        json!({"uid": "dwho", "mail": "dwho@badwolf.org", "nokey": null})
    );
    let r = c.get_json(&format!("/sessions/global/{id}/%5Buid,cn%5D"));
    assert_eq!(r.json(), json!({"uid": "dwho", "cn": "Doctor Who"}));
}

#[test]
fn unknown_ids_types_and_missing_ids() {
    let p = builder().start();
    let c = p.client();
    let unknown = "0".repeat(64);
    let r = c.get_json(&format!("/sessions/global/{unknown}"));
    assert_eq!(
        (r.status, r.json()),
        (404, json!({"error": "Session Id does not exist"}))
    );
    let r = c.get_json("/sessions/global/..%2F..%2Fetc%2Fpasswd");
    assert_eq!(r.status, 404);
    let r = c.get_json(&format!("/sessions/foo/{unknown}"));
    assert_eq!(r.status, 404);
    assert_eq!(
        r.json(),
        json!({"error": "Unknown (or unconfigured) session type"})
    );
    let r = c.get_json("/sessions/oidc/x");
    assert_eq!(r.status, 404, "internal kinds are not served");
    let r = c.get_json("/sessions/global");
    assert_eq!(
        (r.status, r.json()),
        (400, json!({"error": "ID is required"}))
    );
    let r = c.get_json("/sessions");
    assert_eq!(r.status, 400);
    for m in ["PUT", "DELETE"] {
        let r = c.send(m, "/sessions/global", &[JSON], b"{}");
        assert_eq!(
            (r.status, r.json()),
            (400, json!({"error": "ID is required"})),
            "{m}"
        );
    }
    let r = c.send(
        "PATCH",
        &format!("/sessions/global/{unknown}"),
        &[JSON],
        b"{}",
    );
    assert_eq!(r.status, 405);
}

#[test]
fn creates_updates_and_deletes() {
    let p = builder().start();
    let c = p.client();
    let body = json!({"uid": "restuser", "cn": "Rest User", "_password": "s3cret", "authenticationLevel": 2});
    let r = c.send_json("POST", "/sessions/global", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["result"], 1);
    let id = v["session"]["_session_id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 64);
    assert_eq!(v["session"]["_session_kind"], "SSO");
    assert!(v["session"]["_utime"].is_i64());
    assert!(v["session"].get("_password").is_none(), "secret not echoed");
    // Update merges keys.
    let r = c.send_json(
        "PUT",
        &format!("/sessions/global/{id}"),
        &json!({"cn": "Rest User 2", "newkey": "v"}),
    );
    assert_eq!((r.status, r.json()), (200, json!({"result": 1})));
    let s = c.get_json(&format!("/sessions/global/{id}")).json();
    assert_eq!(
        (s["cn"].clone(), s["newkey"].clone(), s["uid"].clone()),
        (json!("Rest User 2"), json!("v"), json!("restuser"))
    );
    // Update of an unknown id without a secret.
    let r = c.send_json(
        "PUT",
        &format!("/sessions/global/{}", "a".repeat(64)),
        &json!({"x": 1}),
    );
    assert_eq!(
        (r.status, r.json()),
        (404, json!({"error": "Session Id does not exist"}))
    );
    // Persistent sessions get 32-hex ids.
    let r = c.send_json(
        "POST",
        "/sessions/persistent",
        &json!({"_session_uid": "restuser", "foo": "bar"}),
    );
    let ps = r.json()["session"].clone();
    assert_eq!(
        (
            ps["_session_kind"].clone(),
            ps["_session_id"].as_str().unwrap().len()
        ),
        (json!("Persistent"), 32)
    );
    let pid = ps["_session_id"].as_str().unwrap();
    assert_eq!(
        c.get_json(&format!("/sessions/persistent/{pid}/foo"))
            .json(),
        "bar"
    );
    // Delete: result 1, no cookie; then the id is unknown.
    let r = c.send("DELETE", &format!("/sessions/global/{id}"), &[JSON], b"");
    assert_eq!((r.status, r.json()), (200, json!({"result": 1})));
    assert!(r.header("set-cookie").is_none());
    assert_eq!(c.get_json(&format!("/sessions/global/{id}")).status, 404);
    let r = c.send("DELETE", &format!("/sessions/global/{id}"), &[JSON], b"");
    assert_eq!(
        (r.status, r.json()),
        (404, json!({"error": "Session Id does not exist"}))
    );
}

#[test]
fn bad_bodies_are_clear_400s() {
    let p = builder().start();
    let c = p.client();
    let id = p.login("dwho");
    let ct = [("Content-Type", "application/json"), JSON];
    for path in [
        "/sessions/global".to_string(),
        format!("/sessions/global/{id}"),
    ] {
        let method = if path.ends_with("global") {
            "POST"
        } else {
            "PUT"
        };
        for (body, msg) in [
            (&b"{bad json"[..], "Malformed JSON in the body"),
            (b"[1,2]", "The body must be a JSON object"),
            (b"\"x\"", "The body must be a JSON object"),
            (b"", "A JSON object is required in the body"),
        ] {
            let r = c.send(method, &path, &ct, body);
            assert_eq!(
                (r.status, r.json()),
                (400, json!({"error": msg})),
                "{method} {body:?}"
            );
        }
    }
    assert_eq!(
        c.get_json(&format!("/sessions/global/{id}/uid")).json(),
        "dwho"
    );
}

#[test]
fn secret_keys_hidden_unless_exported() {
    let hidden = builder()
        .conf("hiddenAttributes", json!("_password secretThing"))
        .start();
    let exported = builder().conf("restExportSecretKeys", json!(1)).start();
    for (p, shown) in [(&hidden, false), (&exported, true)] {
        let c = p.client();
        let body = json!({"uid": "u", "_password": "pw", "secretThing": "t", "_2fDevices": "d"});
        let r = c.send_json("POST", "/sessions/global", &body);
        let id = r.json()["session"]["_session_id"]
            .as_str()
            .unwrap()
            .to_string();
        let s = c.get_json(&format!("/sessions/global/{id}")).json();
        assert_eq!(s.get("_password").is_some(), shown, "{s}");
        let one = c
            .get_json(&format!("/sessions/global/{id}/_password"))
            .json();
        assert_eq!(one, if shown { json!("pw") } else { Value::Null });
        let many = c
            .get_json(&format!("/sessions/global/{id}/[_password,uid]"))
            .json();
        assert_eq!(
            many["_password"],
            if shown { json!("pw") } else { Value::Null }
        );
        assert_eq!(many["uid"], "u");
        if !shown {
            assert!(s.get("secretThing").is_none());
            assert_eq!(
                s["_2fDevices"], "d",
                "hiddenAttributes replaces the default list"
            );
        }
    }
}

#[test]
fn server_off_and_path_prefix() {
    let off = Portal::builder().start();
    let id = off.login("dwho");
    let r = off.client().get_json(&format!("/sessions/global/{id}"));
    assert_eq!(r.status, 404);
    let p = builder().ini("pathPrefix = /llng/").start();
    let id = p.login("dwho");
    let r = p
        .client()
        .get_json(&format!("/llng/sessions/global/{id}/uid"));
    assert_eq!((r.status, r.json()), (200, json!("dwho")));
    assert_eq!(
        p.client()
            .get_json(&format!("/sessions/global/{id}/uid"))
            .status,
        404
    );
}

/// LemonLDAP::NG's session client: PUT with `__secret` creates; bad secrets change nothing.
#[test]
fn put_with_secret_creates_like_llng_client() {
    let p = builder().start();
    let c = p.client();
    let id = "b".repeat(64);
    let path = format!("/sessions/global/{id}");
    let put = |secret: String| {
        c.send_json(
            "PUT",
            &path,
            &json!({"uid": "remote", "_utime": now(), "__secret": secret}),
        )
    };
    for (bad, why) in [
        (secret::fresh("another key", now()), "wrong key"),
        (secret::fresh(KEY, now() - 60), "stale"),
        (secret::encrypt(KEY, "not a number"), "not an epoch"),
        ("garbage".to_string(), "not base64"),
    ] {
        let r = put(bad);
        assert_eq!(
            (r.status, r.json()),
            (400, json!({"error": "Invalid secret"})),
            "{why}"
        );
        assert_eq!(c.get_json(&path).status, 404, "{why}: nothing created");
    }
    let r = put(secret::fresh(KEY, now()));
    assert_eq!((r.status, r.json()), (200, json!({"result": 1})));
    let s = c.get_json(&path).json();
    assert_eq!(
        (s["uid"].clone(), s["_session_id"].clone()),
        (json!("remote"), json!(id))
    );
    assert!(s.get("__secret").is_none(), "__secret is never stored");
    // Full-object update with a fresh secret.
    let r = c.send_json(
        "PUT",
        &path,
        &json!({"uid": "remote2", "__secret": secret::fresh(KEY, now())}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(c.get_json(&format!("{path}/uid")).json(), "remote2");
}

/// Test vectors against an independent AES implementation: openssl's command line.
#[test]
fn secret_cipher_matches_openssl() {
    let key_hex = hex(&openssl(&["dgst", "-sha256", "-binary"], KEY.as_bytes()));
    let iv = [0x42u8; 16];
    // Ours -> openssl.
    let ours = unb64(&secret::encrypt_with_iv(KEY, "1795313127", &iv));
    assert_eq!(&ours[..16], &iv);
    let args = [
        "enc",
        "-d",
        "-aes-256-cbc",
        "-nopad",
        "-K",
        &key_hex,
        "-iv",
        &hex(&iv),
    ];
    let plain = openssl(&args, &ours[16..]);
    let mut padded = b"1795313127".to_vec();
    padded.resize(16, 0);
    assert_eq!(&plain[32..], &padded[..]);
    assert_eq!(
        &plain[..32],
        &openssl(&["dgst", "-sha256", "-binary"], &padded)[..]
    );
    // openssl -> ours.
    let iv2 = [0x17u8; 16];
    let text = b"1795313999 and some more text";
    let mut pt = text.to_vec();
    pt.resize(32, 0);
    let mut data = openssl(&["dgst", "-sha256", "-binary"], &pt);
    data.extend_from_slice(&pt);
    let args = [
        "enc",
        "-e",
        "-aes-256-cbc",
        "-nopad",
        "-K",
        &key_hex,
        "-iv",
        &hex(&iv2),
    ];
    let mut blob = iv2.to_vec();
    blob.extend(openssl(&args, &data));
    assert_eq!(
        secret::decrypt(KEY, &b64(&blob)).unwrap(),
        String::from_utf8_lossy(text)
    );
    assert!(secret::decrypt("wrong", &b64(&blob)).is_err());
}

#[test]
fn my_session_exports_the_configured_attributes() {
    let defaults = builder().start();
    let plus = builder()
        .conf("exportedAttr", json!("+ uid mail _password"))
        .start();
    let only = builder()
        .conf("exportedAttr", json!("uid cn nokey"))
        .start();
    let default_keys = [
        "_lastSeen",
        "_session_id",
        "_startTime",
        "_utime",
        "authenticationLevel",
        "groups",
        "ipAddr",
    ];
    let id = defaults.login("dwho");
    let r = defaults
        .client()
        .get("/session/my/global", &[JSON, ("Cookie", &cookie(&id))]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(keys(&r.json()), default_keys);
    assert_eq!(r.json()["_session_id"], id.as_str());
    let id = plus.login("dwho");
    let v = plus
        .client()
        .get("/session/my/global", &[JSON, ("Cookie", &cookie(&id))])
        .json();
    let mut want: Vec<&str> = default_keys.to_vec();
    want.extend(["mail", "uid"]);
    want.sort();
    assert_eq!(
        keys(&v),
        want,
        "'+' keeps the defaults; secrets stay hidden"
    );
    assert_eq!(v["uid"], "dwho");
    let id = only.login("dwho");
    let c = only.client();
    let ck = cookie(&id);
    let v = c.get("/session/my/global", &[JSON, ("Cookie", &ck)]).json();
    assert_eq!(v, json!({"uid": "dwho", "cn": "Doctor Who", "nokey": null}));
    let r = c.get("/session/my/global/cn", &[JSON, ("Cookie", &ck)]);
    assert_eq!((r.status, r.json()), (200, json!("Doctor Who")));
    let r = c.get("/session/my/global/mail", &[JSON, ("Cookie", &ck)]);
    assert_eq!(r.json(), Value::Null, "not exported");
    let r = c.get("/session/my/foo", &[JSON, ("Cookie", &ck)]);
    assert_eq!(
        (r.status, r.json()),
        (
            404,
            json!({"error": "Unknown (or unconfigured) session type"})
        )
    );
}

#[test]
fn my_persistent_session_and_logout() {
    let p = builder().conf("exportedAttr", json!("+ foo")).start();
    let id = p.login("dwho");
    let c = p.client();
    let ck = cookie(&id);
    // dwho's persistent id is the MD5 of the uid, as LemonLDAP::NG computes it.
    let pid = "5efe8af397fc3577e05b483aca964f1b";
    let body = json!({"_session_uid": "dwho", "foo": "bar", "__secret": secret::fresh(KEY, now())});
    assert_eq!(
        c.send_json("PUT", &format!("/sessions/persistent/{pid}"), &body)
            .status,
        200
    );
    let r = c.get("/session/my/persistent", &[JSON, ("Cookie", &ck)]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        (r.json()["foo"].clone(), r.json()["_session_id"].clone()),
        (json!("bar"), json!(pid))
    );
    assert_eq!(
        c.get("/session/my/persistent/foo", &[JSON, ("Cookie", &ck)])
            .json(),
        "bar"
    );
    // Logout.
    let r = c.send("DELETE", "/session/my", &[JSON, ("Cookie", &ck)], b"");
    assert_eq!((r.status, r.json()), (200, json!({"result": 1})));
    assert!(r.header("set-cookie").unwrap().starts_with("lemonldap=0;"));
    assert_eq!(c.get_json(&format!("/sessions/global/{id}")).status, 404);
    let r = c.get("/session/my/global", &[JSON, ("Cookie", &ck)]);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "1"}))
    );
}

#[test]
fn my_endpoints_without_a_cookie() {
    let p = builder().start();
    let c = p.client();
    for (m, path) in [
        ("GET", "/session/my/global"),
        ("DELETE", "/session/my"),
        ("GET", "/mysession/?whoami"),
    ] {
        let r = c.send(m, path, &[JSON], b"");
        assert_eq!(
            (r.status, r.json()),
            (401, json!({"result": 0, "error": "9"})),
            "{m} {path}"
        );
        assert!(r.header("www-authenticate").unwrap().starts_with("SSO "));
    }
    let r = c.get("/mysession/?whoami", &[]);
    assert!(
        r.text().contains("<form"),
        "HTML clients get the login page"
    );
}

#[test]
fn mysession_authorization_and_whoami() {
    let p = builder().start();
    let c = p.client();
    let dwho = cookie(&p.login("dwho"));
    let rtyler = cookie(&p.login("rtyler"));
    let ask = |ck: &str, url: &str| {
        let path = format!(
            "/mysession/?authorizationfor={}",
            limette::util::url_encode(&b64(url.as_bytes()))
        );
        let r = c.get(&path, &[JSON, ("Cookie", ck)]);
        assert_eq!(r.status, 200, "{url}: {}", r.text());
        r.json()["result"].as_i64().unwrap()
    };
    let cases = [
        (&dwho, "http://test1.example.com/", 1),
        (&dwho, "http://test1.example.com/admin/x", 1),
        (&rtyler, "http://test1.example.com/admin/x", 0),
        (&rtyler, "http://test1.example.com/", 1),
        (&dwho, "http://test1.example.com/deny", 0),
        (&rtyler, "http://test1.example.com/pub/y", 1),
        (&dwho, "http://unknown.example.com/", 0),
        (&dwho, "http://test1.example.com:8080/", 0),
    ];
    for (ck, url, want) in cases {
        assert_eq!(ask(ck, url), want, "{url} for {ck}");
    }
    let get = |q: &str| c.get(&format!("/mysession/{q}"), &[JSON, ("Cookie", &dwho)]);
    let r = get("?authorizationfor=%25%25%25");
    assert_eq!(
        (r.status, r.json()),
        (400, json!({"error": "Value must be in BASE64"}))
    );
    let r = get(&format!("?authorizationfor={}", b64(b"notanurl")));
    assert_eq!(
        (r.status, r.json()),
        (400, json!({"error": "Bad URL notanurl"}))
    );
    let r = get("");
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"error": "whoami or authorizationfor is required"})
        )
    );
    let r = get("?whoami");
    assert_eq!((r.status, r.json()), (200, json!({"result": "dwho"})));
    let r = c.send(
        "POST",
        "/mysession/?whoami",
        &[JSON, ("Cookie", &rtyler)],
        b"",
    );
    assert_eq!(r.json(), json!({"result": "rtyler"}), "POST works as GET");
}

/// B keeps its sessions in A through REST: a login on B is readable on A; B answers clearly
/// while A is down and recovers when A is back.
#[test]
fn two_instances_share_sessions_through_rest() {
    let port = common::free_port();
    let a = builder().port(port).start();
    let base =
        format!("{{\"baseUrl\": \"http://127.0.0.1:{port}/sessions/global\", \"timeout\": 3}}");
    let b = Portal::builder()
        .conf("key", json!(KEY))
        .ini("globalStorage = REST")
        .ini(&format!("globalStorageOptions = {base}"))
        .start();
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
    assert!(t.elapsed() < Duration::from_secs(10), "nothing hangs");
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
        let out = std::process::Command::new(bin())
            .arg("-c")
            .arg(p.data().join("limette.ini"))
            .arg("--data")
            .arg(p.data())
            .arg("sessions")
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
