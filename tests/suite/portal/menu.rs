//! The menu after login as users see it: exactly the applications their `locationRules` (or
//! the application's own display mode) allow, the tabs `portalDisplay*` rules show in the
//! order `portalDisplayOrder` gives, the login history with a failed and a successful login,
//! and the link to the notification explorer only when it is on and has something to show.
use super::{field, form_token, post_login, JSON};
use crate::common::Portal;
use serde_json::{json, Value};

/// The ids of the applications a page lists (`<li class="application" id="app-<id>">`).
fn apps(html: &str) -> Vec<String> {
    html.split("<li class=\"application\" id=\"app-")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The menu of `user`, logged in with the JSON API.
fn menu(p: &Portal, user: &str) -> String {
    menu_of(p, &p.login(user))
}

/// The menu of the session `sid`.
fn menu_of(p: &Portal, sid: &str) -> String {
    let r = p
        .client()
        .get("/", &[("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

fn application_list() -> Value {
    let app = |name: &str, uri: &str, display: &str| json!({"type": "application", "options": {"name": name, "uri": uri, "display": display}});
    json!({
        "default": {"type": "category", "catname": "Default category"},
        "1sample": {
            "type": "category", "catname": "Sample applications",
            "test1": {"type": "application", "options": {
                "name": "Application Test 1", "uri": "http://test1.example.com/",
                "description": "A simple application", "logo": "demo.png"}},
            "admin": {"type": "application", "options": {
                "name": "Administration", "uri": "http://test1.example.com:8080/admin/",
                "display": "auto", "logo": "https://cdn.example.com/admin.png"}},
            "test2": app("Application Test 2", "http://test2.example.com/", "auto"),
            "never": app("Never", "http://test1.example.com/", "off"),
            "mickey": app("Mickey's", "http://nowhere.example.com/", "$uid eq \"msmith\"")
        },
        "2doc": {
            "type": "category", "catname": "Documentation",
            "doc": app("Docs <all>", "http://doc.example.com/", "on")
        }
    })
}

fn apps_portal() -> Portal {
    Portal::builder()
        .conf(
            "locationRules",
            json!({
                "test1.example.com": {"default": "accept", "^/admin": "inGroup(\"timelords\")"},
                "test2.example.com": {"default": "$uid eq \"rtyler\""}
            }),
        )
        .conf("applicationList", application_list())
        .start()
}

#[test]
fn each_user_sees_exactly_the_applications_the_rules_allow() {
    let p = apps_portal();
    let dwho = menu(&p, "dwho");
    assert_eq!(apps(&dwho), ["admin", "test1", "doc"], "{dwho}");
    let rtyler = menu(&p, "rtyler");
    assert_eq!(apps(&rtyler), ["test1", "test2", "doc"], "{rtyler}");
    assert_eq!(apps(&menu(&p, "msmith")), ["mickey", "test1", "doc"]);
    // Categories, names, descriptions; a logo only when it is an absolute URL; escaped.
    assert!(dwho.contains("<h3>Sample applications</h3>"), "{dwho}");
    assert!(dwho.contains("<h3>Documentation</h3>"));
    assert!(
        !dwho.contains("Default category"),
        "an empty category is hidden"
    );
    assert!(dwho.contains("A simple application"));
    assert!(dwho.contains("<img class=\"applogo\" src=\"https://cdn.example.com/admin.png\""));
    assert!(!dwho.contains("demo.png"));
    assert!(dwho.contains("Docs &lt;all&gt;"));
    assert!(dwho.contains("href=\"http://test1.example.com/\""));
    // The connected user and the logout button are still there.
    assert!(dwho.contains("<strong>Doctor Who</strong>"));
    assert!(dwho.contains("?logout=1"));
}

#[test]
fn display_rules_hide_and_order_the_tabs() {
    let p = Portal::builder()
        .conf("loginHistoryEnabled", json!(1))
        .conf("applicationList", application_list())
        .conf("portalDisplayOrder", json!("Logout, LoginHistory Appslist"))
        .conf("portalDisplayLoginHistory", json!("$uid eq \"rtyler\""))
        .conf("portalDisplayLogout", json!("$uid ne \"msmith\""))
        .start();
    let dwho = menu(&p, "dwho");
    assert!(!dwho.contains("id=\"loginHistory\""), "{dwho}");
    let at = |html: &str, id: &str| html.find(&format!("id=\"{id}\"")).unwrap();
    assert!(at(&dwho, "logout") < at(&dwho, "appslist"), "{dwho}");
    let rtyler = menu(&p, "rtyler");
    assert!(at(&rtyler, "logout") < at(&rtyler, "loginHistory"));
    assert!(at(&rtyler, "loginHistory") < at(&rtyler, "appslist"));
    assert!(rtyler.contains("<nav aria-label=\"Menu\">"), "{rtyler}");
    let msmith = menu(&p, "msmith");
    assert!(!msmith.contains("?logout=1"), "{msmith}");
    // Without loginHistoryEnabled the tab has nothing to show and is left out.
    let p = Portal::builder().start();
    assert!(!menu(&p, "rtyler").contains("id=\"loginHistory\""));
}

#[test]
fn the_history_shows_a_failed_and_a_successful_login() {
    let p = Portal::builder()
        .conf("loginHistoryEnabled", json!(1))
        .start();
    let c = p.client();
    let bad = c.post_form("/", &[("user", "dwho"), ("password", "nope")], &[JSON]);
    assert_eq!(bad.json()["error"], "5", "{}", bad.text());
    let html = menu(&p, "dwho");
    let table = |id: &str| {
        let start = html.find(&format!("<table id=\"{id}\"")).expect(id);
        html[start..start + html[start..].find("</table>").unwrap()].to_string()
    };
    let ok = table("successLogins");
    assert_eq!(ok.matches("<tr><td>").count(), 1, "{ok}");
    assert!(ok.contains("127.0.0.1"), "{ok}");
    let failed = table("failedLogins");
    assert_eq!(failed.matches("<tr><td>").count(), 1, "{failed}");
    assert!(failed.contains("Wrong username or password"), "{failed}");
    // Dates in words, in UTC, said so, with a machine-readable value.
    assert!(ok.contains("<time datetime=\"20"), "{ok}");
    assert!(ok.contains(" UTC</time>"), "{ok}");
    assert!(html.contains("<th scope=\"col\">IP address</th>"));
}

#[test]
fn a_french_browser_gets_the_menu_in_french() {
    let p = Portal::builder()
        .conf("loginHistoryEnabled", json!(1))
        .conf(
            "locationRules",
            json!({"test1.example.com": {"default": "accept"}}),
        )
        .conf("applicationList", application_list())
        .start();
    let bad = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "nope")], &[JSON]);
    assert_eq!(bad.json()["error"], "5", "{}", bad.text());
    let sid = p.login("dwho");
    let cookie = format!("lemonldap={sid}");
    let r = p.client().get(
        "/",
        &[
            ("Cookie", &cookie),
            ("Accept-Language", "fr-CA,fr;q=0.8,en;q=0.2"),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    assert!(html.contains("<html lang=\"fr\">"), "{html}");
    assert!(html.contains("<h1>Votre portail</h1>"), "{html}");
    assert!(html.contains("Connecté en tant que <strong>Doctor Who</strong>"));
    assert!(html.contains("<nav aria-label=\"Menu\">"), "{html}");
    assert!(html.contains("<h2>Vos applications</h2>"), "{html}");
    assert!(
        html.contains("<h3>Sample applications</h3>"),
        "names are the configuration's"
    );
    assert!(
        html.contains("<h2>Historique des connexions</h2>"),
        "{html}"
    );
    assert!(html.contains("<h3>Dernières connexions</h3>"));
    assert!(html.contains("<h3>Dernières connexions refusées</h3>"));
    assert!(html.contains("<th scope=\"col\">Adresse IP</th>"));
    assert!(
        html.contains("Identifiant ou mot de passe incorrect"),
        "{html}"
    );
    assert!(
        html.contains(" UTC</time>") && html.contains(" à "),
        "{html}"
    );
    assert!(html.contains(">Se déconnecter</button>"), "{html}");
    // The language switch leads to English, and English is what a browser without a word gets.
    assert!(html.contains("href=\"/?lang=en\""), "{html}");
    let en = p.client().get("/", &[("Cookie", &cookie)]).text();
    assert!(en.contains("<h2>Your applications</h2>") && en.contains("<html lang=\"en\">"));
}

/// A portal with notifications at login, the explorer on or off, and one notification for dwho.
fn notified(explorer: bool) -> Portal {
    let p = Portal::builder()
        .portal_url_matches()
        .conf("notification", json!(1))
        .conf("notificationServer", json!(1))
        .conf("notificationsExplorer", json!(i32::from(explorer)))
        .start();
    let note = json!({"uid": "dwho", "date": "2024-01-01", "reference": "R1", "check": "ok"});
    let r = p.client().send_json("POST", "/notifications", &note);
    assert_eq!(r.status, 200, "insert: {}", r.text());
    p
}

/// dwho logs in through the form and accepts the notification: the page the answer's redirect
/// leads to (post/redirect/get), with the SSO cookie it set.
fn accept_and_land(p: &Portal) -> String {
    let r = post_login(&p.client(), "dwho", &form_token(p));
    let pending = r.cookie("lemonldappending").expect("held back");
    let r = p.client().post_form(
        "/notifback",
        &[
            ("token", &field(&r.text(), "token")),
            ("reference1x1", "R1"),
            ("check1x1x1", "accepted"),
        ],
        &[("Cookie", &format!("lemonldappending={pending}"))],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some(p.url("/").as_str()));
    let sid = r.cookie("lemonldap").expect("SSO cookie after acceptance");
    menu_of(p, &sid)
}

#[test]
fn the_explorer_link_shows_only_when_enabled_and_not_empty() {
    let p = notified(true);
    assert!(
        !menu(&p, "rtyler").contains("id=\"explorer\""),
        "nothing accepted"
    );
    let page = accept_and_land(&p);
    assert!(page.contains("<strong>Doctor Who</strong>"), "{page}");
    let link = format!(
        "id=\"explorer\" href=\"http://127.0.0.1:{}/mynotifications\"",
        p.port
    );
    assert!(page.contains(&link), "{page}");
    let p = notified(false);
    let page = accept_and_land(&p);
    assert!(!page.contains("id=\"explorer\""), "{page}");
}
