//! A TOTP device registered on a real LemonLDAP::NG 2.16 portal works on Limette, and one
//! registered on Limette works on the LemonLDAP::NG portal: the node of the bridge tests (its
//! users in OpenLDAP, TOTP enabled), Limette reading the same users through its REST
//! authentication server and keeping its persistent sessions in the node's store through its
//! REST session server, both with the same `key`.
use super::{builder, check, pyotp, register, JSON};
use crate::bridge::node::Llng;
use crate::common::{Client, Portal};
use serde_json::json;

const KEY: &str = "the key both portals share";

fn limette_on(node: &Llng) -> Portal {
    let store = json!({"baseUrl": node.url("/sessions/persistent"), "timeout": 5});
    builder(&[
        ("key", json!(KEY)),
        ("authentication", json!("REST")),
        ("userDB", json!("REST")),
        ("restAuthUrl", json!(node.url("/proxy/pwdConfirm"))),
        ("restUserDBUrl", json!(node.url("/proxy/getUser"))),
        ("bruteForceProtection", json!(0)),
        ("loginHistoryEnabled", json!(0)),
    ])
    .ini("persistentStorage = REST")
    .ini(&format!("persistentStorageOptions = {store}"))
    .start()
}

#[test]
fn a_device_moves_between_lemonldap_ng_and_limette() {
    let node = Llng::start_with(json!({
        "key": KEY, "totp2fActivation": 1, "totp2fSelfRegistration": 1,
        "restSessionServer": 1, "restExportSecretKeys": 1, "requireToken": 0,
    }));
    let p = limette_on(&node);
    let llng = Client::new(node.port);

    // alice registers on LemonLDAP::NG (its script actions), then signs in on Limette.
    let r = llng.post_form(
        "/",
        &[("user", "alice"), ("password", "wonderland")],
        &[JSON],
    );
    let cookie = format!(
        "lemonldap={}",
        r.cookie("lemonldap")
            .unwrap_or_else(|| panic!("{}\n{}", r.text(), node.logs()))
    );
    let script = [("Cookie", cookie.as_str()), ("X-CSRF-Check", "1"), JSON];
    let k = llng.post_form("/2fregisters/totp/getkey", &[], &script);
    assert_eq!(k.status, 200, "{}\n{}", k.text(), node.logs());
    let k = chunked_json(&k.text());
    let secret = k["secret"].as_str().unwrap().to_string();
    let token = k["token"].as_str().unwrap().to_string();
    let fields = [
        ("token", token.as_str()),
        ("code", &pyotp(&secret, 0)),
        ("TOTPName", "llng"),
    ];
    let r = llng.post_form("/2fregisters/totp/verify", &fields, &script);
    assert_eq!(
        chunked_json(&r.text())["result"],
        1,
        "{}\n{}",
        r.text(),
        node.logs()
    );
    let c = p.client();
    let pending = held_as(&c, "alice", "wonderland");
    let r = check(&c, &pending, &pyotp(&secret, 0));
    assert_eq!(r.json()["result"], 1, "{}\n{}", r.text(), p.log());

    // bob registers on Limette, then LemonLDAP::NG asks him for the code and accepts it.
    let r = c.post_form("/", &[("user", "bob"), ("password", "canwefixit")], &[JSON]);
    assert_eq!(r.status, 200, "{}\n{}", r.text(), p.log());
    let sid = r.json()["id"].as_str().unwrap().to_string();
    let secret = register(&p, &sid, "limette", 0);
    let r = llng.post_form("/", &[("user", "bob"), ("password", "canwefixit")], &[]);
    let html = r.text();
    assert!(
        html.contains("totp2fcheck"),
        "LemonLDAP::NG asks for the code: {html}\n{}",
        node.logs()
    );
    let token = super::field(&html, "token");
    let r = llng.post_form(
        "/totp2fcheck",
        &[("token", &token), ("code", &pyotp(&secret, 0))],
        &[],
    );
    assert!(
        r.cookie("lemonldap").is_some_and(|v| v.len() > 10),
        "{} {}\n{}",
        r.status,
        r.text(),
        node.logs()
    );
}

/// A JSON login on Limette held by the factor; the pending login's token.
fn held_as(c: &Client, user: &str, password: &str) -> String {
    let r = c.post_form("/", &[("user", user), ("password", password)], &[JSON]);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["check"], "/totp2fcheck", "{}", r.text());
    r.json()["token"].as_str().unwrap().to_string()
}

/// The JSON object of a body the node's nginx sent chunked (the test client does not
/// decode chunks): from the first `{` to the last `}`.
fn chunked_json(text: &str) -> serde_json::Value {
    let (Some(a), Some(b)) = (text.find('{'), text.rfind('}')) else {
        panic!("no JSON object in {text}");
    };
    serde_json::from_str(&text[a..=b]).unwrap_or_else(|e| panic!("{e}: {text}"))
}
