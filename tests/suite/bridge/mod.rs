//! The REST directory bridge against the real thing: Limette (`authentication = REST`,
//! `userDB = REST`) in front of a LemonLDAP::NG 2.16 node (FastCGI server + nginx) whose REST
//! authentication server reads users from a throw-away OpenLDAP. What a user sees: the right
//! password logs in, a wrong one or an unknown user gets portal error 5, the LDAP attributes
//! land in the session, and a node that is down gets portal error 24 with no fallback.
use crate::common;
pub mod node;

use common::{Portal, Resp};
use node::{Llng, USERS};
use serde_json::{json, Value};

/// A Limette reading its users from `node` under `prefix`, showing the directory attributes
/// on `/session/my/global`.
fn bridged(node: &Llng, prefix: &str) -> Portal {
    Portal::builder()
        .conf("authentication", json!("REST"))
        .conf("userDB", json!("REST"))
        .conf(
            "restAuthUrl",
            json!(node.url(&format!("{prefix}/proxy/pwdConfirm"))),
        )
        .conf(
            "restUserDBUrl",
            json!(node.url(&format!("{prefix}/proxy/getUser"))),
        )
        // Each of the node's two FastCGI processes loads the portal on its first request,
        // which on a loaded 2-core machine took over 5 s: this test is not about the timeout.
        .conf("restTimeout", json!(30))
        .conf("restSessionServer", json!(1))
        .conf(
            "exportedAttr",
            json!("uid cn mail _dn _auth _userDB UA _url"),
        )
        .start()
}

fn json_login(p: &Portal, user: &str, password: &str) -> Resp {
    p.client().post_form(
        "/",
        &[("user", user), ("password", password)],
        &[("Accept", "application/json")],
    )
}

/// Logs in and returns what `/session/my/global` shows of the new session.
fn login_and_read_session(p: &Portal, node: &Llng, user: &str, password: &str) -> Value {
    let r = json_login(p, user, password);
    assert_eq!(
        r.status,
        200,
        "{user}: {}\n{}\n{}",
        r.text(),
        p.log(),
        node.logs()
    );
    assert_eq!(r.json()["result"], 1);
    let id = r.json()["id"].as_str().unwrap_or_default().to_string();
    assert_eq!(r.cookie("lemonldap").as_deref(), Some(id.as_str()));
    let r = p.client().get(
        "/session/my/global",
        &[
            ("Accept", "application/json"),
            ("Cookie", &format!("lemonldap={id}")),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

#[test]
fn ldap_users_log_in_through_lemonldap_ng() {
    let mut node = Llng::start();
    let p = bridged(&node, "");

    for (uid, password, cn, mail) in USERS {
        let session = login_and_read_session(&p, &node, uid, password);
        assert_eq!(
            session,
            json!({
                "uid": uid,
                "cn": cn,
                "mail": mail,
                "_dn": format!("uid={uid},ou=users,dc=example,dc=com"),
                "_auth": "REST",
                "_userDB": "REST",
                // The node's view of the bridge call (its client, its URL) is not the user's.
                "UA": null,
                "_url": null,
            }),
            "{uid}"
        );
    }

    let bad = json!({"result": 0, "error": "5"});
    for (user, password) in [("alice", "canwefixit"), ("carol", "wonderland")] {
        let r = json_login(&p, user, password);
        assert_eq!((r.status, r.json()), (401, bad.clone()), "{user}");
        assert!(r.cookie("lemonldap").is_none(), "{user}");
    }

    // A /proxy the node's nginx does not open to this host: 403, the generic error.
    let closed = bridged(&node, "/closed");
    let r = json_login(&closed, "alice", "wonderland");
    let error_24 = json!({"result": 0, "error": "24"});
    assert_eq!((r.status, r.json()), (401, error_24.clone()));
    assert!(closed.log().contains("HTTP 403"), "{}", closed.log());

    // The node goes down: the login fails with the portal's generic error, never falls back.
    node.stop();
    let r = json_login(&p, "alice", "wonderland");
    assert_eq!((r.status, r.json()), (401, error_24));
    assert!(r.cookie("lemonldap").is_none());
    assert!(p.log().contains("directory failure"), "{}", p.log());
}
