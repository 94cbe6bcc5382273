//! The administration console against the real server: who gets in (the address rule, a
//! login, the `locationRules` of `managerHost`), the token every form needs, and what each
//! action does, with its audit line naming the administrator.
use super::common::hostile::request_from;
use super::common::{Builder, Portal, Resp};
use serde_json::json;

/// LemonLDAP::NG's default rules of its manager host: the configuration for timelords, the
/// sessions and notifications for rtyler too.
pub fn console() -> Builder {
    Portal::builder()
        .ini("managerHost = manager.example.com")
        .conf(
            "locationRules",
            json!({
                "manager.example.com": {
                    "(?#Configuration)^/(.*?\\.(fcgi|psgi)/)?(manager\\.html|confs|prx/|$)": "inGroup(\"timelords\")",
                    "(?#Notifications)/(.*?\\.(fcgi|psgi)/)?notifications": "inGroup(\"timelords\") or $uid eq \"rtyler\"",
                    "(?#Sessions)/(.*?\\.(fcgi|psgi)/)?sessions": "inGroup(\"timelords\") or $uid eq \"rtyler\"",
                    "default": "inGroup(\"timelords\")"
                }
            }),
        )
}

/// A GET of `path` as the user whose session is `sid`.
pub fn get(p: &Portal, sid: &str, path: &str) -> Resp {
    p.client()
        .get(path, &[("Cookie", &format!("lemonldap={sid}"))])
}

/// A form posted to `path` as `sid`.
pub fn post(p: &Portal, sid: &str, path: &str, fields: &[(&str, &str)]) -> Resp {
    p.client()
        .post_form(path, fields, &[("Cookie", &format!("lemonldap={sid}"))])
}

/// The token of the first form of a page's content (after the console's navigation, whose
/// sign-out form has a token of its own).
pub fn token(html: &str) -> String {
    let content = html.rsplit("</nav>").next().unwrap_or(html);
    content
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no token in {html}"))
        .to_string()
}

const PAGES: [&str; 4] = [
    "/manager/",
    "/manager/status",
    "/manager/sessions",
    "/manager/notifications",
];

#[test]
fn only_users_the_rules_allow_get_in() {
    let p = console().start();
    // No session: the login page.
    let r = p.client().get("/manager/", &[]);
    assert!(r.text().contains("name=\"password\""), "{}", r.text());
    assert!(!r.text().contains("Administration console"), "{}", r.text());
    let mickey = p.login("msmith");
    for path in PAGES {
        let r = get(&p, &mickey, path);
        assert_eq!(r.status, 403, "{path}: {}", r.text());
    }
    let sid = p.login("dwho");
    let r = post(&p, &mickey, "/manager/sessions", &[("user", "dwho")]);
    assert_eq!(r.status, 403);
    assert!(p.log().contains("console refused to msmith"), "{}", p.log());
    for path in PAGES {
        let r = get(&p, &sid, path);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert!(r.text().contains("Administration console"));
    }
    // rtyler: the sessions and notifications, not the status page.
    let rose = p.login("rtyler");
    assert_eq!(get(&p, &rose, "/manager/sessions").status, 200);
    assert_eq!(get(&p, &rose, "/manager/notifications").status, 200);
    assert_eq!(get(&p, &rose, "/manager/").status, 403);
    let nav = get(&p, &rose, "/manager/sessions").text();
    assert!(
        !nav.contains("href=\"/manager/\""),
        "no link to what is refused: {nav}"
    );
    // The pages in French.
    let r = get(&p, &sid, "/manager/?lang=fr");
    assert!(
        r.text().contains("Console d&#39;administration"),
        "{}",
        r.text()
    );
}

#[test]
fn nobody_without_a_manager_host_and_the_address_rule_first() {
    let p = Portal::start();
    let sid = p.login("dwho");
    for path in PAGES {
        assert_eq!(get(&p, &sid, path).status, 403, "{path}");
    }
    drop(p);
    let p = console().ini("managerAllowFrom = 127.0.0.1").start();
    let sid = p.login("dwho");
    let cookie = format!("Cookie: lemonldap={sid}\r\n");
    let r = request_from("127.0.0.2", p.port, "GET", "/manager/", &cookie, b"").unwrap();
    assert_eq!(r.status, 403);
    assert!(r.text().contains("managerAllowFrom"), "{}", r.text());
    let r = request_from("127.0.0.1", p.port, "GET", "/manager/", &cookie, b"").unwrap();
    assert_eq!(r.status, 200);
}

#[test]
fn the_status_page_shows_the_node() {
    let p = console().start();
    let sid = p.login("dwho");
    let html = get(&p, &sid, "/manager/").text();
    for id in [
        "mgrVersion",
        "mgrUptime",
        "mgrConfNumber",
        "mgrSessionsGlobal",
        "mgrQueue",
        "mgrLoginsOk",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}: {html}");
    }
    assert!(html.contains(&format!(
        "<td id=\"mgrVersion\">{}</td>",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(html.contains("globalStorage"), "{html}");
}

#[test]
fn sessions_are_found_shown_without_secrets_and_deleted_with_a_token() {
    let p = console().start();
    let admin = p.login("dwho");
    let rose = p.login("rtyler");
    let rose2 = p.login("rtyler");
    let mickey = p.login("msmith");
    let page = get(&p, &admin, "/manager/sessions?user=rtyler").text();
    assert!(page.contains("2 sessions found"), "{page}");
    assert!(
        page.contains(&format!("/manager/sessions/{rose}")),
        "{page}"
    );
    assert!(!page.contains(&mickey[..8]), "{page}");
    let page = get(&p, &admin, "/manager/sessions?user=r*&address=127.0.0.").text();
    assert!(page.contains("2 sessions found"), "{page}");
    // One session's keys, the password never among them.
    let view = get(&p, &admin, &format!("/manager/sessions/{rose}"));
    assert_eq!(view.status, 200);
    assert!(view.text().contains("Rose Tyler"), "{}", view.text());
    assert!(!view.text().contains(">_password<"), "{}", view.text());
    // A forged form (no token, another session's token) changes nothing.
    let path = format!("/manager/sessions/{rose}");
    assert_eq!(post(&p, &admin, &path, &[]).status, 403);
    let other = token(&get(&p, &rose, "/manager/notifications").text());
    assert_eq!(post(&p, &admin, &path, &[("token", &other)]).status, 403);
    assert_eq!(get(&p, &admin, &path).status, 200, "still there");
    // With the page's token: first the question, nothing ended; then confirmed, ended, and
    // the user's cookie no longer works.
    let t = token(&view.text());
    let r = post(&p, &admin, &path, &[("token", &t)]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("id=\"confirm\""), "{}", r.text());
    assert_eq!(get(&p, &admin, &path).status, 200, "asked, not ended");
    let r = post(&p, &admin, &path, &[("token", &t), ("confirm", "yes")]);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(get(&p, &admin, &path).status, 404);
    let home = p.client().get(
        "/",
        &[
            ("Cookie", &format!("lemonldap={rose}")),
            ("Accept", "application/json"),
        ],
    );
    assert_eq!(home.status, 401);
    assert!(
        p.log()
            .lines()
            .any(|l| l.contains("audit event=manager_session_delete")
                && l.contains("admin=dwho")
                && l.contains("user=rtyler")),
        "{}",
        p.log()
    );
    // Every session of a user at once.
    let rose3 = p.login("rtyler");
    let page = get(&p, &admin, "/manager/sessions?user=rtyler").text();
    assert!(page.contains("id=\"delete-user\""), "{page}");
    let r = post(
        &p,
        &admin,
        "/manager/sessions",
        &[
            ("token", &token(&page)),
            ("user", "rtyler"),
            ("confirm", "yes"),
        ],
    );
    assert_eq!(r.status, 302);
    for sid in [&rose2, &rose3] {
        assert_eq!(
            get(&p, &admin, &format!("/manager/sessions/{sid}")).status,
            404
        );
    }
    assert_eq!(
        get(&p, &admin, &format!("/manager/sessions/{mickey}")).status,
        200
    );
    assert!(p.log().contains("audit event=manager_sessions_delete_user admin=dwho address=127.0.0.1 user=rtyler count=2"), "{}", p.log());
}

#[test]
fn notifications_are_created_checked_marked_done_and_deleted() {
    let p = console().start();
    let admin = p.login("dwho");
    let page = get(&p, &admin, "/manager/notifications").text();
    let t = token(&page);
    let fields = |cond: &'static str, t: &str| -> Vec<(&'static str, String)> {
        vec![
            ("token", t.to_string()),
            ("action", "create".into()),
            ("uid", "rtyler".into()),
            ("date", "2024-01-02".into()),
            ("reference", "cgu".into()),
            ("title", "Terms".into()),
            ("subtitle", "Read them".into()),
            ("text", "The terms.".into()),
            ("check", "I agree\nI really agree".into()),
            ("condition", cond.into()),
        ]
    };
    let send = |f: Vec<(&'static str, String)>| {
        let f: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
        post(&p, &admin, "/manager/notifications", &f)
    };
    // A condition the rules parser refuses: nothing saved.
    let r = send(fields("$uid eq (", &t));
    assert_eq!(r.status, 200);
    assert!(
        r.text().contains("Condition: not a valid rule"),
        "{}",
        r.text()
    );
    assert!(!r.text().contains("reference\">cgu<"), "{}", r.text());
    // Without the token: refused.
    assert_eq!(send(fields("", "")).status, 403);
    let r = send(fields("$uid eq \"rtyler\"", &t));
    assert_eq!(r.status, 302, "{}", r.text());
    let page = get(&p, &admin, "/manager/notifications?uid=rtyler").text();
    assert!(
        page.contains("Terms<br><small class=\"reference\">cgu</small>")
            && page.contains("Pending"),
        "{page}"
    );
    assert!(
        p.log()
            .contains("audit event=manager_notification_insert admin=dwho"),
        "{}",
        p.log()
    );
    let act = |action: &str| {
        let t = token(&get(&p, &admin, "/manager/notifications").text());
        post(
            &p,
            &admin,
            "/manager/notifications",
            &[
                ("token", &t),
                ("action", action),
                ("uid", "rtyler"),
                ("reference", "cgu"),
            ],
        )
    };
    assert_eq!(act("done").status, 302);
    let page = get(&p, &admin, "/manager/notifications").text();
    assert!(page.contains("Accepted"), "{page}");
    assert!(
        p.log()
            .contains("audit event=manager_notification_done admin=dwho"),
        "{}",
        p.log()
    );
    assert_eq!(act("delete").status, 302);
    let page = get(&p, &admin, "/manager/notifications").text();
    assert!(!page.contains("reference\">cgu<"), "{page}");
    assert!(
        p.log()
            .contains("audit event=manager_notification_delete admin=dwho"),
        "{}",
        p.log()
    );
}

#[test]
fn config_check_says_how_to_open_the_console() {
    use super::common::config::cli;
    // The rules of a manager host, and no managerHost: how to open it.
    let rules = json!({"manager.example.com": {"default": "inGroup(\"timelords\")"}});
    let p = Portal::builder().conf("locationRules", rules).start();
    let run = cli(&p, &["check"]);
    assert!(
        run.stdout
            .contains("set [portal] managerHost = manager.example.com"),
        "{run:?}"
    );
    drop(p);
    // A managerHost without rules: nobody gets in, and check says so.
    let p = Portal::builder()
        .ini("managerHost = sso.example.com")
        .start();
    let run = cli(&p, &["check"]);
    assert!(
        run.stdout
            .contains("locationRules has no rules for sso.example.com"),
        "{run:?}"
    );
    drop(p);
    // Opened as documented: nothing said.
    let p = console().start();
    let run = cli(&p, &["check"]);
    assert!(!run.stdout.contains("managerHost"), "{run:?}");
}
