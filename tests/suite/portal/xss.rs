//! Every value a page displays, fed an XSS corpus: the user's name and display name (macros
//! over the demo directory), session attributes, the applications of the menu (category,
//! name, description, tooltip, logo, address), a relying party's display name and logo on the
//! consent page and in the menu's consents, notification texts (the login's hold and the
//! console), the console's configuration, sessions and search echoes, a refusal echoing its
//! input, the name typed in the login form, the query the language switch keeps, `lang` and
//! `url`. No payload may come out as markup: every tag of every page is scanned (attribute
//! values double-quoted, no event-handler attribute, no script but the portal's own), no
//! payload with a markup character appears as written, and its escaped form does appear (so
//! the test cannot pass by the value not being shown at all).
use super::{field, form_token, post_login};
use crate::common::oidc::{authorize, builder, query, rp};
use crate::common::{Portal, Resp};
use serde_json::json;

/// The corpus, joined with spaces into the one value every field gets.
const CORPUS: [&str; 9] = [
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "' onmouseover='alert(1)",
    "javascript:alert(1)",
    "</textarea><svg onload=alert(1)>",
    "{{7*7}}${7*7}",
    "\u{202e}gnp.exe\u{202c}",
    "&lt;b&gt;",
    "</title><iframe src=//x>",
];

fn payload() -> String {
    CORPUS.join(" ")
}

/// `s` as a Perl single-quoted string (a macro's expression).
fn perl_single(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `s` escaped as the templates escape a value (`& < > "`).
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `s` as a notification shows it: markup stripped, then escaped.
fn stripped(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    esc(&out)
}

/// Every tag of `html` (name, attributes); panics on an attribute value that is not in double
/// quotes (an unquoted or single-quoted value is where a payload would break out).
fn tags(html: &str, what: &str) -> Vec<(String, Vec<(String, String)>)> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = html[i..].find('<') {
        i += at + 1;
        if !b.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
            continue;
        }
        let end = |c: u8| c.is_ascii_whitespace() || c == b'>' || c == b'/' || c == b'=';
        let start = i;
        while i < b.len() && !end(b[i]) {
            i += 1;
        }
        let name = html[start..i].to_ascii_lowercase();
        let mut attrs = Vec::new();
        loop {
            while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
                i += 1;
            }
            if i >= b.len() || b[i] == b'>' {
                break;
            }
            let start = i;
            while i < b.len() && !end(b[i]) {
                i += 1;
            }
            let key = html[start..i].to_ascii_lowercase();
            let mut value = String::new();
            if b.get(i) == Some(&b'=') {
                i += 1;
                assert_eq!(
                    b.get(i),
                    Some(&b'"'),
                    "{what}: attribute {key} of <{name}> not double-quoted in {html}"
                );
                let close = html[i + 1..].find('"').expect("closing quote") + i + 1;
                value = html[i + 1..close].to_string();
                i = close + 1;
            }
            attrs.push((key, value));
        }
        out.push((name, attrs));
    }
    out
}

/// The checks of one page: its markup is the portal's own, no payload with a markup
/// character appears as written, and `shown` (each a value the page must display, escaped)
/// appears.
fn check(what: &str, html: &str, shown: &[String]) {
    for (name, attrs) in tags(html, what) {
        for (k, v) in &attrs {
            assert!(!k.starts_with("on"), "{what}: <{name} {k}=...> in {html}");
            assert!(
                !v.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("javascript:"),
                "{what}: <{name} {k}=\"{v}\">"
            );
        }
        assert!(
            !matches!(name.as_str(), "img" | "iframe" | "svg")
                || attrs
                    .iter()
                    .all(|(k, v)| k != "src" || v != "x" && v != "//x"),
            "{what}: an injected <{name}> in {html}"
        );
        if name == "script" {
            assert!(
                attrs
                    .iter()
                    .any(|(k, v)| k == "src" && v.starts_with("/static/")),
                "{what}: a script not the portal's in {html}"
            );
        }
    }
    for p in CORPUS.iter().filter(|p| p.contains(['<', '>', '"', '&'])) {
        assert!(!html.contains(p), "{what}: {p:?} unescaped in {html}");
    }
    for s in shown {
        let apos = s.replace('\'', "&#39;");
        assert!(
            html.contains(s.as_str()) || html.contains(&apos),
            "{what}: {s:?} not shown in {html}"
        );
    }
}

fn portal() -> Portal {
    let p = payload();
    let logo = format!("https://cdn.example.com/a.png?{p}");
    let rp_opts = json!({"BypassConsent": 0, "DisplayName": p, "Icon": logo});
    builder(&[("xss", rp("xss", rp_opts))])
        .ini("managerHost = manager.example.com")
        .conf("notification", json!(1))
        .conf("notificationsExplorer", json!(1))
        .conf(
            "macros",
            json!({"cn": perl_single(&p), "xssAttr": perl_single(&p), "xssTrace": "$uid . ' ' . $xssAttr"}),
        )
        .conf("whatToTrace", json!("xssTrace"))
        .conf(
            "locationRules",
            json!({
                "manager.example.com": {"default": "$uid eq \"dwho\""},
                "app.example.com": {"default": "accept"}
            }),
        )
        .conf(
            "applicationList",
            json!({
                "cat": {"type": "category", "catname": p,
                    "app": {"type": "application", "options": {
                        "name": p, "description": p, "tooltip": p,
                        "uri": format!("http://app.example.com/?q={p}"),
                        "logo": logo, "display": "on"}}}
            }),
        )
        .start()
}

fn as_user(p: &Portal, sid: &str, path: &str) -> Resp {
    p.client()
        .get(path, &[("Cookie", &format!("lemonldap={sid}"))])
}

fn post_as(p: &Portal, sid: &str, path: &str, fields: &[(&str, &str)]) -> Resp {
    p.client()
        .post_form(path, fields, &[("Cookie", &format!("lemonldap={sid}"))])
}

fn page(what: &str, r: Resp, shown: &[String]) -> String {
    assert!(r.status < 500, "{what}: {} {}", r.status, r.text());
    let html = r.text();
    check(what, &html, shown);
    html
}

#[test]
fn no_displayed_value_comes_out_as_markup() {
    let p = portal();
    let pl = payload();
    let e = [esc(&pl)];
    let sid = p.login("dwho");

    // The anonymous login form: a typed name echoed, the language switch's query, lang, url.
    let q = crate::common::http::enc(&pl);
    let r = p.client().get(&format!("/?lang={q}&x={q}&url={q}"), &[]);
    page("login form (query)", r, &[]);
    let c = p.client();
    let r = post_login(&c, &pl, &form_token(&p));
    page("login form (typed name)", r, &e);

    // The consent page: display name, logo, account (the cn macro).
    let r = authorize(&p, Some(&sid), &query("xss", ""), &[]);
    let consent = page("consent", r, &e);
    let f = [
        ("response_type", "code"),
        ("client_id", "xss"),
        ("scope", "openid profile email"),
        ("redirect_uri", crate::common::oidc::CB),
        ("state", "st1"),
        ("nonce", "n1"),
        ("token", &field(&consent, "token")),
        ("confirm", "1"),
    ];
    let r = post_as(&p, &sid, "/oauth2/authorize", &f);
    assert_eq!(r.status, 302, "{}", r.text());

    // The menu: the user, the applications, the consent just given.
    page("menu", as_user(&p, &sid, "/"), &e);

    // The console: status, sessions (search echo, one session's attributes), configuration.
    page("status", as_user(&p, &sid, "/manager/"), &[]);
    let path = format!("/manager/sessions?user={q}");
    page("sessions search", as_user(&p, &sid, &path), &e);
    let path = format!("/manager/sessions/{sid}");
    page("session", as_user(&p, &sid, &path), &e);
    let conf = page("conf", as_user(&p, &sid, "/manager/conf"), &e);
    page("rp", as_user(&p, &sid, "/manager/conf/rp/xss"), &e);
    let num = conf
        .split("href=\"/manager/conf/")
        .filter_map(|r| r.split('"').next())
        .find(|n| n.parse::<u64>().is_ok())
        .expect("a version")
        .to_string();
    let path = format!("/manager/conf/{num}");
    page("version", as_user(&p, &sid, &path), &e);
    // A refusal that echoes its input (the timeout must be a number).
    // The form's token, after the console's navigation (whose sign-out form has its own).
    let t = field(conf.rsplit("</nav>").next().unwrap_or(&conf), "token");
    let f = [
        ("token", t.as_str()),
        ("action", "main"),
        ("base", num.as_str()),
        ("timeout", pl.as_str()),
    ];
    let r = post_as(&p, &sid, "/manager/conf", &f);
    page("refusal", r, &[esc(&format!("{pl:?}"))]);

    // Notifications: one made in the console (for every user: the user's name, which holds
    // the payload, is refused as a notification's uid), listed there, then holding the next
    // login.
    let list = as_user(&p, &sid, &format!("/manager/notifications?uid={q}")).text();
    let t = field(list.rsplit("</nav>").next().unwrap_or(&list), "token");
    let f = [
        ("token", t.as_str()),
        ("action", "create"),
        ("uid", "allusers"),
        ("date", "2024-01-02"),
        ("reference", "xss-ref"),
        ("title", pl.as_str()),
        ("subtitle", pl.as_str()),
        ("text", pl.as_str()),
        ("check", pl.as_str()),
    ];
    let r = post_as(&p, &sid, "/manager/notifications", &f);
    assert!(matches!(r.status, 302 | 303), "{}", r.text());
    let r = as_user(&p, &sid, "/manager/notifications");
    page("console notifications", r, &e);
    let c = p.client();
    let r = post_login(&c, "dwho", &form_token(&p));
    let pending = r
        .cookie("lemonldappending")
        .expect("the held login's cookie");
    let form = page("notification form", r, &[stripped(&pl)]);
    // Accepted, then shown again by the explorer, in its list and on its own page.
    let f = [
        ("token", field(&form, "token")),
        ("reference1x1", "xss-ref".to_string()),
        ("check1x1x1", "accepted".to_string()),
    ];
    let f: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let cookie = format!("lemonldappending={pending}");
    let r = c.post_form("/notifback", &f, &[("Cookie", &cookie)]);
    assert_eq!(r.status, 302, "{}", r.text());
    let held = r.cookie("lemonldap").expect("the released session");
    let list = page("explorer", as_user(&p, &held, "/mynotifications"), &[]);
    let one = list
        .split("href=\"/mynotifications/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a link to the accepted notification")
        .replace("&amp;", "&");
    let path = format!("/mynotifications/{one}");
    page("explorer page", as_user(&p, &held, &path), &[stripped(&pl)]);
}

/// The escaping the test relies on, checked on its own (so that a wrong helper cannot make
/// the test pass).
#[test]
fn the_scanner_sees_injected_markup() {
    let caught = |html: &str| std::panic::catch_unwind(|| check("sample", html, &[])).is_err();
    assert!(caught("<p title='x'>"));
    assert!(caught("<p title=\"\" onmouseover=\"alert(1)\">"));
    assert!(caught("<script>alert(1)</script>"));
    assert!(caught("<img src=\"x\">"));
    assert!(!caught("<p title=\"&quot;&gt;\">&lt;script&gt;</p>"));
}
