//! The connected user's endpoints and `/mysession`.
use super::common::sessions::{b64, builder, cookie, keys, KEY};
use super::{now, JSON};
use limette::crypto::secret;
use serde_json::{json, Value};

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

#[test]
fn a_rule_that_does_not_parse_is_logged_and_denies() {
    let p = builder()
        .conf(
            "locationRules",
            json!({"broken.example.com": {"^/x": "$uid eq", "(": "accept", "default": "accept"},
                   "fine.example.com": {"^/x": "$uid eq", "default": "accept"}}),
        )
        .start();
    let ck = cookie(&p.login("dwho"));
    let ask = |url: &str| {
        let q = limette::util::url_encode(&b64(url.as_bytes()));
        let r = p.client().get(
            &format!("/mysession/?authorizationfor={q}"),
            &[JSON, ("Cookie", &ck)],
        );
        r.json()["result"].as_i64().unwrap()
    };
    assert_eq!(ask("http://fine.example.com/x"), 0, "broken rule denies");
    assert_eq!(
        ask("http://fine.example.com/y"),
        1,
        "other paths unaffected"
    );
    assert_eq!(
        ask("http://broken.example.com/y"),
        0,
        "a broken path regex denies everything after it"
    );
    let log = p.log();
    assert!(log.contains("fine.example.com ^/x"), "{log}");
    assert!(log.contains("broken.example.com ("), "{log}");
}
