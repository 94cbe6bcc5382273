//! The REST session server: reads, writes, errors, secret keys, prefix.
use super::common::sessions::builder;
use super::common::Portal;
use super::JSON;
use serde_json::{json, Value};

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
