//! Logins through the REST directory bridge, against a stub that answers well, slowly,
//! wrongly or not at all, and through the `/oauth2/` entrance.
use crate::common::oidc::*;
use crate::common::Portal;
use serde_json::json;

fn rest_portal(auth: &str, user: &str) -> Portal {
    Portal::builder()
        .conf("authentication", json!("REST"))
        .conf("userDB", json!("REST"))
        .conf("restAuthUrl", json!(auth))
        .conf("restUserDBUrl", json!(user))
        .conf("restTimeout", json!(1))
        .start()
}

fn json_login(p: &Portal, user: &str, pass: &str) -> crate::common::Resp {
    p.client().post_form(
        "/",
        &[("user", user), ("password", pass)],
        &[("Accept", "application/json")],
    )
}

#[test]
fn rest_directory_bridge() {
    let good = stub_directory(Stub::Good);
    let p = rest_portal(&format!("{good}/auth"), &format!("{good}/user"));
    let r = json_login(&p, "alice", STUB_PASSWORD);
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.json()["id"].as_str().unwrap().to_string();
    let r = p.client().get(
        "/",
        &[
            ("Cookie", &format!("lemonldap={sid}")),
            ("Accept", "application/json"),
        ],
    );
    assert_eq!(r.status, 200);
    let r = json_login(&p, "alice", "wrong");
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "5"}))
    );
    let r = json_login(&p, "bob", STUB_PASSWORD);
    assert_eq!(r.json()["error"], "5");
}

#[test]
fn rest_directory_failures_are_error_24() {
    let dead = format!("http://127.0.0.1:{}", crate::common::free_port());
    for base in [
        stub_directory(Stub::Slow),
        stub_directory(Stub::BadJson),
        stub_directory(Stub::Fails),
        dead,
    ] {
        let p = rest_portal(&format!("{base}/auth"), &format!("{base}/user"));
        // The slow stub answers success after 5 s: only the outbound timeout gives error 24
        // (and the client's own read timeout catches a hang).
        let r = json_login(&p, "alice", STUB_PASSWORD);
        assert_eq!(
            (r.status, r.json()),
            (401, json!({"result": 0, "error": "24"})),
            "{base}"
        );
        assert!(p.log().contains("directory failure"), "{base}: {}", p.log());
        assert!(r.cookie("lemonldap").is_none());
    }
}

#[test]
fn login_through_the_oidc_entrance() {
    // POST /oauth2/ with user/password is the portal login, as LemonLDAP::NG.
    let p = start_default();
    let c = p.client();
    let json = [("Accept", "application/json")];
    let r = c.post_form("/oauth2/", &[("user", "dwho"), ("password", "nope")], &json);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "5"}))
    );
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("SSO {}", p.url("/")).as_str())
    );
    let r = c.post_form("/oauth2/", &[("user", "dwho")], &json);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "24"}))
    );
    let r = c.post_form("/oauth2/", &[("user", "dwho"), ("password", "")], &json);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "2"}))
    );
    let r = c.post_form("/oauth2/", &[("user", "dwho"), ("password", "dwho")], &json);
    assert_eq!(r.status, 200);
    assert_eq!(r.cookie("lemonldap").as_deref(), r.json()["id"].as_str());
}
