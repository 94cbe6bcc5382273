//! What the console says after an action and before a destructive one, against the real
//! server: each action's next page view says what it did, once (the signed cookie the redirect
//! sets; the page clears it); deleting sessions, a relying party or rolling back asks first,
//! and a post without the confirmation deletes nothing; refusals are said in French on a
//! French page.
use super::common::{Portal, Resp};
use super::conf::{latest, stored};
use super::manager::{console, get, post, token};

const FLASH: &str = "limetteflash";

/// The page a redirect leads to, as a browser sees it: with the flash cookie the redirect
/// set; then the page after it (the cookie cleared by the first). Both texts.
fn follow(p: &Portal, sid: &str, r: &Resp) -> (String, String) {
    assert_eq!(r.status, 302, "{}", r.text());
    let to = r.header("location").expect("a redirect").to_string();
    let said = r.cookie(FLASH).expect("the redirect says what was done");
    let cookie = format!("lemonldap={sid}; {FLASH}={said}");
    let first = p.client().get(&to, &[("Cookie", &cookie)]);
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(
        first.cookie(FLASH).as_deref(),
        Some("0"),
        "the page clears it"
    );
    let second = get(p, sid, &to);
    (first.text(), second.text())
}

/// The text of the `#done` box of a page, if any.
fn done(html: &str) -> Option<String> {
    let box_ = html.split("id=\"done\"").nth(1)?;
    let p = box_.split("<p>").nth(1)?.split("</p>").next()?;
    Some(p.to_string())
}

fn said_once(p: &Portal, sid: &str, r: &Resp, expected: &str) {
    let (first, second) = follow(p, sid, r);
    assert_eq!(done(&first).as_deref(), Some(expected), "{first}");
    assert!(first.contains("role=\"status\""), "{first}");
    assert_eq!(done(&second), None, "said twice: {second}");
}

fn notification(p: &Portal, sid: &str, action: &str) -> Resp {
    let t = token(&get(p, sid, "/manager/notifications").text());
    let mut fields = vec![
        ("token", t.as_str()),
        ("action", action),
        ("uid", "rtyler"),
        ("reference", "cgu"),
    ];
    if action == "create" {
        fields.extend([
            ("date", "2024-01-02"),
            ("title", "Terms"),
            ("subtitle", "Read them"),
            ("text", "The terms."),
            ("check", "I agree"),
        ]);
    }
    post(p, sid, "/manager/notifications", &fields)
}

#[test]
fn every_action_says_what_it_did_once() {
    let p = console().start();
    let admin = p.login("dwho");
    let r = notification(&p, &admin, "create");
    said_once(&p, &admin, &r, "Notification cgu created for rtyler.");
    let r = notification(&p, &admin, "done");
    said_once(&p, &admin, &r, "Notification cgu of rtyler marked as done.");
    let r = notification(&p, &admin, "delete");
    said_once(&p, &admin, &r, "Notification cgu of rtyler deleted.");
    let r = notification(&p, &admin, "delete");
    said_once(
        &p,
        &admin,
        &r,
        "No notification cgu for rtyler: nothing changed.",
    );
    // A forged message (another key, or a made-up text) is not shown.
    let cookie = format!("lemonldap={admin}; {FLASH}=WyJtZ3JTYXZlZCIsW11d.1.00");
    let page = p
        .client()
        .get("/manager/notifications", &[("Cookie", &cookie)]);
    assert_eq!(done(&page.text()), None, "{}", page.text());
    // Sessions: one, then all of a user's, each confirmed.
    let rose = p.login("rtyler");
    let path = format!("/manager/sessions/{rose}");
    let t = token(&get(&p, &admin, &path).text());
    let r = post(&p, &admin, &path, &[("token", &t), ("confirm", "yes")]);
    said_once(&p, &admin, &r, "The session of rtyler was deleted.");
    p.login("rtyler");
    p.login("rtyler");
    let t = token(&get(&p, &admin, "/manager/sessions?user=rtyler").text());
    let fields = [
        ("token", t.as_str()),
        ("user", "rtyler"),
        ("confirm", "yes"),
    ];
    let r = post(&p, &admin, "/manager/sessions", &fields);
    said_once(&p, &admin, &r, "2 session(s) of rtyler deleted.");
}

/// Adds relying party `app` through the console; the new number.
fn add_app(p: &Portal, sid: &str) -> u64 {
    let page = get(p, sid, "/manager/conf").text();
    let base = latest(p).to_string();
    let fields = [
        ("token", token(&page)),
        ("base", base),
        ("action", "add".into()),
        ("name", "app".into()),
        ("client_id", "app-client".into()),
        ("redirect_uris", "https://app.example.com/cb".into()),
        ("id_alg", "RS256".into()),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = post(p, sid, "/manager/conf", &fields);
    assert_eq!(r.status, 200, "the secret's page: {}", r.text());
    latest(p)
}

#[test]
fn deleting_a_relying_party_and_rolling_back_ask_first() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let num = add_app(&p, &admin);
    let path = "/manager/conf/rp/app";
    let t = token(&get(&p, &admin, path).text());
    let base = num.to_string();
    let ask = [("token", t.as_str()), ("base", &base), ("action", "delete")];
    let r = post(&p, &admin, path, &ask);
    assert_eq!(r.status, 200, "{}", r.text());
    let q = r.text();
    assert!(q.contains("Delete relying party app?"), "{q}");
    assert!(q.contains("class=\"danger\""), "{q}");
    assert!(
        q.contains("id=\"cancel\" href=\"/manager/conf/rp/app\""),
        "{q}"
    );
    assert!(q.contains("name=\"confirm\" value=\"yes\""), "{q}");
    assert_eq!(latest(&p), num, "asked: nothing saved");
    assert!(stored(&p, None)["oidcRPMetaDataOptions"]
        .get("app")
        .is_some());
    // The confirmation page's own form deletes.
    let t2 = token(&q);
    let confirmed = [
        ("token", t2.as_str()),
        ("base", &base),
        ("action", "delete"),
        ("confirm", "yes"),
    ];
    let r = post(&p, &admin, path, &confirmed);
    let expected = format!(
        "Relying party app deleted; saved as configuration {}, now in force.",
        num + 1
    );
    said_once(&p, &admin, &r, &expected);
    assert!(stored(&p, None)["oidcRPMetaDataOptions"]
        .get("app")
        .is_none());
    // Rolling back to the version before the RP: asked, then done.
    let now = latest(&p);
    let b = now.to_string();
    let old = before.to_string();
    let t = token(&get(&p, &admin, &format!("/manager/conf/{before}")).text());
    let mut fields = vec![
        ("token", t.as_str()),
        ("base", b.as_str()),
        ("action", "rollback"),
        ("num", old.as_str()),
    ];
    let r = post(&p, &admin, "/manager/conf", &fields);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r
        .text()
        .contains(&format!("Roll back to configuration {before}?")));
    assert_eq!(latest(&p), now, "asked: nothing saved");
    fields.push(("confirm", "yes"));
    let r = post(&p, &admin, "/manager/conf", &fields);
    let expected = format!(
        "Configuration {before} saved again as configuration {}, now in force.",
        now + 1
    );
    said_once(&p, &admin, &r, &expected);
}

#[test]
fn a_french_page_says_refusals_in_french() {
    let p = console().start();
    let admin = p.login("dwho");
    let fr = |path: &str| {
        let cookie = format!("lemonldap={admin}; llnglanguage=fr");
        p.client().get(path, &[("Cookie", &cookie)])
    };
    let cookie = format!("lemonldap={admin}; llnglanguage=fr");
    let t = token(&fr("/manager/notifications").text());
    let fields = [
        ("token", t.as_str()),
        ("action", "create"),
        ("uid", "rtyler"),
        ("date", "2024-01-02"),
        ("reference", "cgu"),
        ("title", "Terms"),
        ("subtitle", "Read them"),
        ("text", "The terms."),
        ("check", "I agree"),
        ("condition", "$uid eq"),
    ];
    let r = p
        .client()
        .post_form("/manager/notifications", &fields, &[("Cookie", &cookie)]);
    assert_eq!(r.status, 200, "{}", r.text());
    let page = r.text();
    assert!(page.contains("fin inattendue de la règle"), "{page}");
    assert!(!page.contains("unexpected end of the rule"), "{page}");
    // An error page's detail, and a console refusal.
    let missing = fr("/manager/sessions/nosuchsession");
    assert_eq!(missing.status, 404);
    assert!(
        missing.text().contains("Session inconnue"),
        "{}",
        missing.text()
    );
    let t = token(&fr("/manager/conf").text());
    let stale = [("token", t.as_str()), ("base", "0"), ("action", "rotate")];
    let r = p
        .client()
        .post_form("/manager/conf", &stale, &[("Cookie", &cookie)]);
    let said = format!("la configuration {} a été enregistrée après", latest(&p));
    assert!(r.text().contains(&said), "{}", r.text());
    // The confirmation page too.
    let rose = p.login("rtyler");
    let path = format!("/manager/sessions/{rose}");
    let t = token(&fr(&path).text());
    let r = p
        .client()
        .post_form(&path, &[("token", &t)], &[("Cookie", &cookie)]);
    assert!(r.text().contains("Supprimer la session"), "{}", r.text());
}

#[test]
fn a_form_sent_after_the_session_ended_comes_back_after_sign_in() {
    let p = console().start();
    let admin = p.login("dwho");
    let t = token(&get(&p, &admin, "/manager/notifications").text());
    let ended = p.logout_confirmed(&admin);
    assert!(ended.status < 400, "{}", ended.text());
    let form = |token: &str| {
        vec![
            ("token", token.to_string()),
            ("action", "create".into()),
            ("uid", "rtyler".into()),
            ("date", "2024-01-02".into()),
            ("reference", "kept".into()),
            ("title", "Kept terms".into()),
            ("subtitle", "Read them".into()),
            ("text", "Two minutes of typing.".into()),
            ("check", "I agree".into()),
        ]
    };
    let send = |fields: &[(&str, String)], cookie: &str| {
        let f: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        p.client()
            .post_form("/manager/notifications", &f, &[("Cookie", cookie)])
    };
    // A token this session's page did not issue: the sign-in, nothing kept.
    let forged = send(
        &form("1.0000000000000000.00"),
        &format!("lemonldap={admin}"),
    );
    assert!(
        forged.text().contains("name=\"password\""),
        "{}",
        forged.text()
    );
    assert_eq!(forged.cookie("limettedraft"), None);
    // The page's own token, its session ended: the sign-in, the values kept server-side.
    let r = send(&form(&t), &format!("lemonldap={admin}"));
    assert!(r.text().contains("name=\"password\""), "{}", r.text());
    assert!(
        r.text().contains("name=\"url\""),
        "comes back: {}",
        r.text()
    );
    let id = r.cookie("limettedraft").expect("the form kept");
    assert!(!id.contains("Kept") && id.len() == 64, "{id}");
    assert!(!r.header("location").unwrap_or("").contains("Kept"));
    // Signed in again, the page offers the values back, once.
    let again = p.login("dwho");
    let cookie = format!("lemonldap={again}; limettedraft={id}");
    let page = p
        .client()
        .get("/manager/notifications", &[("Cookie", &cookie)]);
    let html = page.text();
    assert!(html.contains("id=\"resume-form\""), "{html}");
    assert!(html.contains("value=\"Two minutes of typing.\""), "{html}");
    // Each field under its form's label, the form named, its workings hidden.
    for (i, label) in [(1, "User (uid)"), (4, "Title"), (6, "Text")] {
        let shown = format!("<label for=\"resume-{i}\">{label}</label>");
        assert!(html.contains(&shown), "{shown}: {html}");
    }
    assert!(
        html.contains("<p id=\"resume-what\">The form: Create a notification.</p>"),
        "{html}"
    );
    assert!(html.contains("<input type=\"hidden\" name=\"action\" value=\"create\">"));
    assert!(!html.contains(">title</label>"), "a raw field name: {html}");
    assert!(!html.contains(&t), "the old token is not kept");
    assert_eq!(page.cookie("limettedraft").as_deref(), Some("0"));
    let twice = p
        .client()
        .get("/manager/notifications", &[("Cookie", &cookie)]);
    assert!(
        !twice.text().contains("id=\"resume-form\""),
        "offered twice"
    );
    let resume = html.split("id=\"resume-form\"").nth(1).unwrap_or_default();
    for (k, v) in form("").iter().skip(1) {
        let field = format!("name=\"{k}\" value=\"{v}\"");
        assert!(resume.contains(&field), "{field}: {resume}");
    }
    // Sent again from that page (the same fields, its fresh token): saved.
    let fresh = token(&html);
    let r = send(&form(&fresh), &format!("lemonldap={again}"));
    assert_eq!(r.status, 302, "{}", r.text());
    let list = get(&p, &again, "/manager/notifications?uid=rtyler").text();
    assert!(
        list.contains("<small class=\"reference\">kept</small>"),
        "{list}"
    );
}
