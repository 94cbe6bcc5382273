//! The console's users page against the real server, on a real SQLite user table: only the
//! administrator the rules of `managerHost` allow gets in, every post needs the page's token,
//! and each action (add, reset, lock, unlock) does what it says on the table, ends the user's
//! sessions where it should, and writes its audit line without the password. Without a DBI
//! table, the page says so and the navigation does not list it.
use super::manager::{get, post, token};
use crate::common::Portal;
use crate::dbi::{stored, Site};
use serde_json::json;

fn portal() -> Portal {
    let site = Site::sqlite(json!({
        "exportedVars": {"uid": "login"},
        "passwordPolicyMinSize": 10,
        "locationRules": {"manager.example.com": {"default": "$_user eq \"admin\""}},
    }));
    site.init_with(&[
        ("admin", "admin-passw0rd", &[]),
        ("bob", "bob-passw0rd", &["cn=Bob"]),
    ]);
    Portal::builder()
        .data(site.dir)
        .ini("managerHost = manager.example.com")
        .start()
}

fn login(p: &Portal, user: &str, password: &str) -> Option<String> {
    let r = p.client().post_form(
        "/",
        &[("user", user), ("password", password)],
        &[("Accept", "application/json")],
    );
    r.json()["id"].as_str().map(str::to_string)
}

fn alive(p: &Portal, sid: &str) -> bool {
    p.client()
        .get(
            "/",
            &[
                ("Accept", "application/json"),
                ("Cookie", &format!("lemonldap={sid}")),
            ],
        )
        .status
        == 200
}

#[test]
fn the_administrator_adds_resets_locks_and_unlocks() {
    let p = portal();
    let admin = login(&p, "admin", "admin-passw0rd").unwrap();
    let page = get(&p, &admin, "/manager/users");
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(
        html.contains("href=\"/manager/users\""),
        "listed in the navigation"
    );
    assert!(
        html.contains("<a href=\"/manager/users/bob\">bob</a>"),
        "{html}"
    );
    assert!(html.contains("{ssha512}") && !html.contains("bob-passw0rd"));
    // Add: refused by the policy (nothing added), then added.
    let t = token(&html);
    let add = |password: &str| {
        post(
            &p,
            &admin,
            "/manager/users",
            &[
                ("token", &t),
                ("login", "carol"),
                ("newpassword", password),
                ("confirmpassword", password),
                ("attr-cn", "Carol"),
            ],
        )
    };
    let r = add("short");
    assert_eq!(r.status, 200);
    assert!(r.text().contains("at least 10 characters"), "{}", r.text());
    assert!(login(&p, "carol", "short").is_none());
    let r = add("carol-passw0rd");
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some("/manager/users/carol"));
    let carol = login(&p, "carol", "carol-passw0rd").expect("carol signs in");
    let view = get(&p, &admin, "/manager/users/carol");
    assert!(view.text().contains("<td>Carol</td>"), "{}", view.text());
    // The search.
    let found = get(&p, &admin, "/manager/users?search=aro").text();
    assert!(found.contains("/manager/users/carol") && !found.contains("/manager/users/bob"));
    // Reset: carol's session ends, the new password signs in.
    let t = token(&view.text());
    let r = post(
        &p,
        &admin,
        "/manager/users/carol",
        &[
            ("token", &t),
            ("action", "password"),
            ("newpassword", "carol-n3w-pass"),
            ("confirmpassword", "carol-n3w-pass"),
        ],
    );
    assert_eq!(r.header("location"), Some("/manager/users/carol"));
    let said = r
        .cookie("limetteflash")
        .expect("the reset said on the next page");
    let cookie = format!("lemonldap={admin}; limetteflash={said}");
    let next = p
        .client()
        .get("/manager/users/carol", &[("Cookie", &cookie)]);
    let reset = "The password was reset; the user&#39;s sessions were ended.";
    assert!(next.text().contains(reset), "{}", next.text());
    assert!(!get(&p, &admin, "/manager/users/carol")
        .text()
        .contains(reset));
    assert!(!alive(&p, &carol), "the reset ended carol's session");
    assert!(login(&p, "carol", "carol-passw0rd").is_none());
    let carol = login(&p, "carol", "carol-n3w-pass").unwrap();
    // Lock, then unlock.
    let r = post(
        &p,
        &admin,
        "/manager/users/carol",
        &[("token", &t), ("action", "lock")],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(!alive(&p, &carol), "the lock ended carol's session");
    assert!(login(&p, "carol", "carol-n3w-pass").is_none());
    assert!(get(&p, &admin, "/manager/users/carol")
        .text()
        .contains("id=\"state\">Locked"));
    post(
        &p,
        &admin,
        "/manager/users/carol",
        &[("token", &t), ("action", "unlock")],
    );
    assert!(login(&p, "carol", "carol-n3w-pass").is_some());
    assert!(alive(&p, &admin), "the administrator's session lives on");
    let rows = stored(&p.data().join("users.db"));
    assert!(rows
        .iter()
        .any(|(l, v)| l == "carol" && v.as_deref().unwrap().starts_with("{ssha512}")));
    let log = p.log();
    for line in [
        "audit event=manager_user_add admin=admin address=127.0.0.1 user=carol",
        "audit event=manager_user_password admin=admin address=127.0.0.1 user=carol ended=1",
        "audit event=manager_user_lock admin=admin address=127.0.0.1 user=carol ended=1",
        "audit event=manager_user_unlock admin=admin address=127.0.0.1 user=carol",
    ] {
        assert!(log.lines().any(|l| l.ends_with(line)), "{line}: {log}");
    }
    for secret in ["carol-passw0rd", "carol-n3w-pass", "short"] {
        assert!(!log.contains(secret), "a password in the log: {log}");
    }
}

#[test]
fn others_and_posts_without_the_token_change_nothing() {
    let p = portal();
    let bob = login(&p, "bob", "bob-passw0rd").unwrap();
    for path in ["/manager/users", "/manager/users/admin"] {
        assert_eq!(get(&p, &bob, path).status, 403, "{path}");
    }
    let fields = [
        ("login", "mallory"),
        ("newpassword", "mallory-passw0rd"),
        ("confirmpassword", "mallory-passw0rd"),
    ];
    assert_eq!(post(&p, &bob, "/manager/users", &fields).status, 403);
    let admin = login(&p, "admin", "admin-passw0rd").unwrap();
    assert_eq!(
        post(&p, &admin, "/manager/users", &fields).status,
        403,
        "no token"
    );
    let lock = [("action", "lock"), ("token", "1.0123456789abcdef.00")];
    assert_eq!(post(&p, &admin, "/manager/users/bob", &lock).status, 403);
    assert!(login(&p, "mallory", "mallory-passw0rd").is_none());
    assert!(
        login(&p, "bob", "bob-passw0rd").is_some(),
        "bob is not locked"
    );
    assert_eq!(get(&p, &admin, "/manager/users/nobody").status, 404);
}

#[test]
fn without_a_user_table_the_page_says_so() {
    let p = super::manager::console().start();
    let sid = p.login("dwho");
    let r = get(&p, &sid, "/manager/users");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("id=\"nodbi\""), "{}", r.text());
    assert!(!get(&p, &sid, "/manager/")
        .text()
        .contains("href=\"/manager/users\""));
}
