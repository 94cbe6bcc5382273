//! Notifications at login over HTTP with a cookie jar: the form, partial and full acceptance,
//! the persistent session, conditions, cancel, restart, explorer; on File and SQLite storage
//! and on the old XML format; and once in a real headless browser.
use crate::common;
use crate::python;

use common::{Client, Portal, Resp};
use serde_json::{json, Value};
use std::collections::BTreeMap;

const JSON: (&str, &str) = ("Accept", "application/json");

/// A browser-like session: cookies kept between requests.
struct Jar {
    c: Client,
    cookies: BTreeMap<String, String>,
}

impl Jar {
    fn new(p: &Portal) -> Jar {
        Jar {
            c: p.client(),
            cookies: BTreeMap::new(),
        }
    }
    fn header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
    fn keep(&mut self, r: &Resp) {
        for c in r.headers_named("set-cookie") {
            let first = c.split(';').next().unwrap();
            let (k, v) = first.split_once('=').unwrap();
            if c.contains("expires=Wed, 21 Oct 2015") {
                self.cookies.remove(k);
            } else {
                self.cookies.insert(k.to_string(), v.to_string());
            }
        }
    }
    fn get(&mut self, path: &str) -> Resp {
        let h = self.header();
        let r = self.c.get(path, &[("Cookie", &h)]);
        self.keep(&r);
        r
    }
    fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Resp {
        let h = self.header();
        let r = self.c.post_form(path, fields, &[("Cookie", &h)]);
        self.keep(&r);
        r
    }
    /// Logs in through the HTML form (token taken from the page), with an optional `url`.
    fn login(&mut self, user: &str, url: Option<&str>) -> Resp {
        let page = self.get("/");
        let token = field(&page.text(), "token");
        let mut f = vec![
            ("user", user),
            ("password", user),
            ("token", token.as_str()),
        ];
        if let Some(u) = url {
            f.push(("url", u));
        }
        self.post("/", &f)
    }
    fn sso(&self) -> Option<&String> {
        self.cookies.get("lemonldap")
    }
}

/// The value of a hidden field in a page.
fn field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    html.split(&marker)
        .nth(1)
        .map(|r| r.split('"').next().unwrap().to_string())
        .unwrap_or_default()
}

fn portal(storage: &str) -> Portal {
    let b = Portal::builder()
        .portal_url_matches()
        .conf("notification", json!(1))
        .conf("notificationsExplorer", json!(1))
        .conf("notificationServer", json!(1))
        .conf("notificationServerGET", json!(1));
    match storage {
        "sqlite" => {
            let dir = common::TempDir::new("notifdb");
            let db = dir.path().join("notifications.db");
            b.ini("notificationStorage = SQLite")
                .ini(&format!(
                    "notificationStorageOptions = {{\"dbiChain\": \"dbi:SQLite:dbname={}\"}}",
                    db.display()
                ))
                .data(dir)
                .start()
        }
        _ => b.start(),
    }
}

fn insert(p: &Portal, body: Value) {
    let r = p.client().send_json("POST", "/notifications", &body);
    assert_eq!(r.status, 200, "insert: {}", r.text());
}

fn two_notifications(p: &Portal) {
    insert(
        p,
        json!([
            {"uid": "dwho", "date": "2024-01-01", "reference": "REFA", "title": "Title A", "subtitle": "Sub A",
             "text": "Text <b>A</b>", "check": ["I agree", "I am sure"]},
            {"uid": "allusers", "date": "2024-01-02", "reference": "GLOBAL1", "title": "For timelords",
             "condition": "inGroup(\"timelords\")", "check": "Read"}
        ]),
    );
}

fn full_flow(p: &Portal) {
    let mut jar = Jar::new(p);
    let target = base64(&p.url("/mynotifications"));
    let form = jar.login("dwho", Some(&target));
    assert_eq!(form.status, 200);
    let html = form.text();
    assert!(
        jar.sso().is_none(),
        "no SSO cookie while notifications are pending"
    );
    assert!(html.contains("<h2 class=\"notifText\">Title A</h2>"));
    assert!(html.contains("<h3 class=\"notifText\">Sub A</h3>"));
    assert!(
        html.contains("<p class=\"notifText\">Text A</p>"),
        "inline HTML removed"
    );
    assert!(html.contains("<h2 class=\"notifText\">For timelords</h2>"));
    assert!(html.contains("name=\"reference1x1\" value=\"REFA\""));
    assert!(html.contains("name=\"reference1x2\" value=\"GLOBAL1\""));
    assert_eq!(html.matches("class=\"notifCheck\"").count(), 3);
    let token = field(&html, "token");
    // One box missing: the form comes back, no cookie, nothing stored.
    let partial = jar.post(
        "/notifback",
        &[
            ("token", &token),
            ("reference1x1", "REFA"),
            ("check1x1x1", "accepted"),
            ("reference1x2", "GLOBAL1"),
            ("check1x2x1", "accepted"),
        ],
    );
    assert_eq!(partial.status, 200);
    let again = partial.text();
    assert!(again.contains("You must check every box"));
    // The ticks are kept; the missing box is named, marked and explained.
    assert!(
        again.contains("id=\"1x1x1\" value=\"accepted\" checked>"),
        "{again}"
    );
    assert!(
        again.contains("id=\"1x2x1\" value=\"accepted\" checked>"),
        "{again}"
    );
    assert!(
        again.contains("id=\"1x1x2\" value=\"accepted\" aria-invalid=\"true\""),
        "{again}"
    );
    let missing = again.split("id=\"missing\">").nth(1).unwrap_or_default();
    let label = again
        .split("<label for=\"1x1x2\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .unwrap();
    assert!(
        missing.split("</p>").next().unwrap().contains(label),
        "{again}"
    );
    assert!(jar.sso().is_none());
    // Everything checked: cookie released, off to the original URL.
    let done = jar.post(
        "/notifback",
        &[
            ("token", &token),
            ("reference1x1", "REFA"),
            ("check1x1x1", "accepted"),
            ("check1x1x2", "accepted"),
            ("reference1x2", "GLOBAL1"),
            ("check1x2x1", "accepted"),
        ],
    );
    assert_eq!(done.status, 302, "{}", done.text());
    assert_eq!(
        done.header("location"),
        Some(p.url("/mynotifications").as_str())
    );
    let sid = jar.sso().expect("SSO cookie after acceptance").clone();
    assert_eq!(sid.len(), 64);
    // The persistent session holds both references, and only that.
    let psid = "5efe8af397fc3577e05b483aca964f1b";
    let ps: Value =
        serde_json::from_slice(&std::fs::read(p.data().join("psessions").join(psid)).unwrap())
            .unwrap();
    assert!(ps["notification_REFA"].as_i64().unwrap() > 1_700_000_000);
    assert!(ps["notification_GLOBAL1"].as_i64().unwrap() > 1_700_000_000);
    assert!(ps.get("title").is_none());
    // The user's own notification is done; the wildcard one stays for the others.
    let pending: Value = p.client().get_json("/notifications/_allPending_").json();
    let refs: Vec<&str> = pending["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["reference"].as_str().unwrap())
        .collect();
    assert!(!refs.contains(&"REFA"), "{pending}");
    assert!(refs.contains(&"GLOBAL1"), "{pending}");
    // A second login shows nothing.
    let again = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert_eq!(again.status, 200, "{}", again.text());
    // The explorer lists both and shows one with its boxes checked and disabled.
    let list = jar
        .c
        .get(
            "/mynotifications",
            &[JSON, ("Cookie", &format!("lemonldap={sid}"))],
        )
        .json();
    assert_eq!(list["MSG"], "myNotifications");
    let items = list["NOTIFICATIONS"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    let epoch = items.iter().find(|i| i["reference"] == "REFA").unwrap()["epoch"]
        .as_i64()
        .unwrap();
    let one = jar
        .c
        .get(
            &format!("/mynotifications/REFA?epoch={epoch}"),
            &[JSON, ("Cookie", &format!("lemonldap={sid}"))],
        )
        .json();
    assert_eq!(one["result"], 1);
    let frag = one["notification"].as_str().unwrap();
    assert!(frag.contains("Title A") && frag.contains("checked disabled"));
    let wrong = jar
        .c
        .get(
            "/mynotifications/REFA?epoch=1",
            &[JSON, ("Cookie", &format!("lemonldap={sid}"))],
        )
        .json();
    assert_eq!(wrong, json!({"result": 0, "notification": "0"}));
    let html = jar.get("/mynotifications").text();
    assert!(html.contains("REFA") && html.contains("GLOBAL1"));
    // By title, the reference below (the wildcard one's title too).
    assert!(
        html.contains("Title A<br><small class=\"reference\">REFA</small>"),
        "{html}"
    );
    assert!(
        html.contains("For timelords<br><small class=\"reference\">GLOBAL1</small>"),
        "{html}"
    );
}

#[test]
fn html_flow_on_file_storage() {
    let p = portal("file");
    two_notifications(&p);
    full_flow(&p);
}

#[test]
fn html_flow_on_sqlite_storage() {
    let p = portal("sqlite");
    two_notifications(&p);
    full_flow(&p);
}

#[test]
fn a_false_condition_hides_the_wildcard_notification() {
    let p = portal("file");
    two_notifications(&p);
    let r = p
        .client()
        .post_form("/", &[("user", "rtyler"), ("password", "rtyler")], &[JSON]);
    assert_eq!(r.status, 200, "rtyler has nothing due: {}", r.text());
    assert!(r.cookie("lemonldap").is_some());
}

/// Markup in a notification is never markup on the page, and its text is escaped exactly
/// once: `&` shows as `&`, not `&amp;`. The form's page carries the portal's policy, with the
/// origin the released login goes to in `form-action`; so does the explorer's page.
#[test]
fn notification_text_is_escaped_once_and_the_pages_carry_the_policy() {
    let p = portal("file");
    insert(
        &p,
        json!({"uid": "dwho", "date": "2024-01-01", "reference": "ESC",
               "title": "<b>x</b> & \"y\"", "text": "<script>alert(1)</script>1 &lt; 2",
               "check": "I read <i>it</i>"}),
    );
    let mut jar = Jar::new(&p);
    let form = jar.login("dwho", Some(&base64(&p.url("/mynotifications"))));
    assert_eq!(form.status, 200);
    let html = form.text();
    assert!(
        html.contains("<h2 class=\"notifText\">x &amp; &quot;y&quot;</h2>"),
        "{html}"
    );
    assert!(
        html.contains("<p class=\"notifText\">alert(1)1 &amp;lt; 2</p>"),
        "the text's own entity is text, escaped once: {html}"
    );
    assert!(html.contains(">I read it</label>"), "{html}");
    for never in ["<b>", "<i>", "<script>", "&amp;amp;", "&amp;quot;"] {
        assert!(!html.contains(never), "{never} in {html}");
    }
    let csp = form.header("content-security-policy").unwrap_or_default();
    assert!(csp.starts_with("default-src 'self';"), "{csp}");
    assert!(
        csp.contains(&format!("form-action * http://127.0.0.1:{};", p.port)),
        "{csp}"
    );
    let done = jar.post(
        "/notifback",
        &[
            ("token", &field(&html, "token")),
            ("reference1x1", "ESC"),
            ("check1x1x1", "accepted"),
        ],
    );
    assert_eq!(done.status, 302, "{}", done.text());
    let list = jar.get("/mynotifications");
    assert_eq!(list.status, 200, "{}", list.text());
    assert!(list.header("content-security-policy").is_some());
}

#[test]
fn json_login_answers_36_without_the_sso_cookie() {
    let p = portal("file");
    two_notifications(&p);
    let r = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "dwho")], &[JSON]);
    assert_eq!(r.status, 400);
    let body = r.json();
    assert_eq!(body["result"], 0);
    assert_eq!(body["error"], "36");
    assert!(body["ciphered_id"].as_str().unwrap().len() == 64);
    assert!(r.cookie("lemonldap").is_none());
}

#[test]
fn cancel_abandons_and_a_restart_keeps_the_pending_login() {
    let p = portal("file");
    insert(
        &p,
        json!({"uid": "dwho", "date": "2024-01-01", "reference": "R1", "check": "ok"}),
    );
    let mut jar = Jar::new(&p);
    let form = jar.login("dwho", None);
    let token = field(&form.text(), "token");
    let cancel = jar.get("/notifback?cancel=1");
    assert_eq!(cancel.status, 302);
    let stale = jar.post(
        "/notifback",
        &[
            ("token", &token),
            ("reference1x1", "R1"),
            ("check1x1x1", "accepted"),
        ],
    );
    assert_eq!(stale.status, 401, "cancelled login cannot be accepted");
    assert!(jar.sso().is_none());

    // Show, restart, accept.
    let form = jar.login("dwho", None);
    let token = field(&form.text(), "token");
    let port = p.port;
    let data = p.stop_keep_data();
    let p = Portal::builder()
        .port(port)
        .conf("notification", json!(1))
        .conf("notificationServer", json!(1))
        .data(data)
        .start();
    let mut jar2 = Jar {
        c: p.client(),
        cookies: jar.cookies.clone(),
    };
    let done = jar2.post(
        "/notifback",
        &[
            ("token", &token),
            ("reference1x1", "R1"),
            ("check1x1x1", "accepted"),
        ],
    );
    assert_eq!(done.status, 302, "{}", done.text());
    let sso = jar2.sso().cloned().expect("an SSO cookie after accepting");
    // Accepting again is harmless: the used token is refused, the session stays as it is.
    let again = jar2.post(
        "/notifback",
        &[
            ("token", &token),
            ("reference1x1", "R1"),
            ("check1x1x1", "accepted"),
        ],
    );
    assert_eq!(again.status, 401, "{}", again.text());
    assert!(
        again.text().contains("No pending login"),
        "{}",
        again.text()
    );
    assert_eq!(
        again.cookie("lemonldap"),
        None,
        "the SSO cookie is neither set nor cleared"
    );
    assert_eq!(jar2.sso(), Some(&sso));
    let home = jar2.get("/");
    assert_eq!(home.status, 200, "still logged in: {}", home.text());
}

#[test]
fn explorer_without_session_goes_to_login_and_back() {
    let p = portal("file");
    let r = p.client().get("/mynotifications", &[JSON]);
    assert_eq!(r.status, 302);
    let loc = r.header("location").unwrap();
    assert!(loc.starts_with(&p.url("/?url=")), "{loc}");
}

#[test]
fn xml_format_renders_the_same_content() {
    let p = Portal::builder()
        .portal_url_matches()
        .conf("notification", json!(1))
        .conf("oldNotifFormat", json!(1))
        .conf("notificationServer", json!(1))
        .start();
    let doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><root><notification uid=\"dwho\" date=\"2024-01-02\" reference=\"XMLA\"><title>XML title</title><subtitle>XML sub</subtitle><text>Granted to appli-1</text><check>I know appli-1</check><check>I know appli-2</check></notification></root>";
    let escaped = doc
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    let envelope = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><soap:Body><newNotification xmlns=\"urn:Lemonldap::NG::Common::PSGI::SOAPService\"><c-gensym3 xsi:type=\"xsd:string\">{escaped}</c-gensym3></newNotification></soap:Body></soap:Envelope>"
    );
    let r = p.client().send(
        "POST",
        "/notifications",
        &[
            ("Content-Type", "text/xml; charset=utf-8"),
            (
                "SOAPAction",
                "\"urn:Lemonldap::NG::Common::PSGI::SOAPService#newNotification\"",
            ),
        ],
        envelope.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains(">1</result>"), "{}", r.text());
    let mut jar = Jar::new(&p);
    let form = jar.login("dwho", None);
    let html = form.text();
    assert!(
        html.contains("<h2 class=\"notifText\">XML title</h2>"),
        "{html}"
    );
    assert!(html.contains("<h3 class=\"notifText\">XML sub</h3>"));
    assert_eq!(html.matches("class=\"notifCheck\"").count(), 2);
    let token = field(&html, "token");
    let done = jar.post(
        "/notifback",
        &[
            ("token", &token),
            ("reference1x1", "XMLA"),
            ("check1x1x1", "accepted"),
            ("check1x1x2", "accepted"),
        ],
    );
    assert_eq!(done.status, 302);
    assert!(jar.sso().is_some());
}

#[test]
fn the_pages_work_in_a_real_browser() {
    let p = portal("file");
    two_notifications(&p);
    let artifacts = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("notification-form.png");
    let out = std::process::Command::new(python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/notif_flow.py"
        ))
        .arg(p.url(""))
        .arg(&shot)
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    assert!(
        out.status.success(),
        "browser flow failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 1000,
        "screenshot kept at {}",
        shot.display()
    );
}

fn base64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

#[test]
fn an_oidc_authorize_that_started_the_login_completes_after_acceptance() {
    let p = portal("file");
    two_notifications(&p);
    let mut jar = Jar::new(&p);
    let authorize = "/oauth2/authorize?response_type=code&client_id=demo&scope=openid&redirect_uri=http%3A%2F%2F127.0.0.1%3A9999%2Fcb&state=s1";
    let page = jar.get(authorize);
    assert_eq!(page.status, 200);
    let url = field(&page.text(), "url");
    assert!(
        !url.is_empty(),
        "the login form keeps the authorize request: {}",
        page.text()
    );
    let token = field(&page.text(), "token");
    let form = jar.post(
        "/",
        &[
            ("user", "dwho"),
            ("password", "dwho"),
            ("token", &token),
            ("url", &url),
        ],
    );
    assert!(form.text().contains("reference1x1"), "{}", form.text());
    let ntoken = field(&form.text(), "token");
    let done = jar.post(
        "/notifback",
        &[
            ("token", &ntoken),
            ("reference1x1", "REFA"),
            ("check1x1x1", "accepted"),
            ("check1x1x2", "accepted"),
            ("reference1x2", "GLOBAL1"),
            ("check1x2x1", "accepted"),
        ],
    );
    assert_eq!(done.status, 302, "{}", done.text());
    let back = done.header("location").unwrap().to_string();
    assert!(back.starts_with(&p.url("/oauth2/authorize?")), "{back}");
    let path = back.strip_prefix(&p.url("")).unwrap().to_string();
    let code = jar.get(&path);
    assert_eq!(code.status, 302, "{}", code.text());
    let loc = code.header("location").unwrap();
    assert!(loc.starts_with("http://127.0.0.1:9999/cb?"), "{loc}");
    assert!(loc.contains("code=") && loc.contains("state=s1"), "{loc}");
}

#[test]
fn switching_language_on_the_notifications_page_keeps_the_pending_login() {
    let p = portal("file");
    two_notifications(&p);
    let mut jar = Jar::new(&p);
    let form = jar.login("dwho", None);
    assert!(form.text().contains("Title A"), "{}", form.text());
    // The page's own language switch.
    let switch = form
        .text()
        .split("hreflang=\"fr\" href=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .map(|h| h.replace("&amp;", "&"))
        .expect("a link to French");
    let fr = jar.get(&switch);
    assert_eq!(fr.status, 200);
    let html = fr.text();
    assert!(html.contains("<html lang=\"fr\">"), "{html}");
    assert!(
        html.contains("<h2 class=\"notifText\">Title A</h2>"),
        "{html}"
    );
    assert!(
        !html.contains("name=\"password\""),
        "not the login form: {html}"
    );
    assert!(jar.sso().is_none());
    // Its form still releases the login.
    let token = field(&html, "token");
    let done = jar.post(
        "/notifback",
        &[
            ("token", token.as_str()),
            ("reference1x1", "REFA"),
            ("check1x1x1", "accepted"),
            ("check1x1x2", "accepted"),
            ("reference1x2", "GLOBAL1"),
            ("check1x2x1", "accepted"),
        ],
    );
    assert_eq!(done.status, 302, "{}", done.text());
    assert!(jar.sso().is_some(), "released");
}
