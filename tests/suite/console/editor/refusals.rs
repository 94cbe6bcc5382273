//! The editor's refusals: typed values (a number out of bounds, a rule that does not parse, a
//! relative URL, broken JSON) by their field in both languages, a cookie domain that would lock
//! everybody out, console rules that would refuse the administrator, a secret never drawn (a
//! refused form does not draw one typed either).
use super::super::conf::{latest, stored};
use super::super::manager::{console, get};
use super::{block, fields, page, send};

#[test]
fn typed_refusals_keep_every_value_and_sit_by_their_field() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let cases = [
        (
            "group=secondfactors",
            "totp2fInterval",
            "99999",
            "A whole number from 1 to 3600",
        ),
        (
            "group=secondfactors",
            "sfRequired",
            "$uid eq",
            "This rule does not parse",
        ),
        (
            "group=authentication",
            "restAuthUrl",
            "auth.example.com/rest",
            "An absolute address",
        ),
        (
            "group=portal",
            "applicationList",
            "{\"apps\": ",
            "This is not valid JSON",
        ),
    ];
    for (query, key, bad, said) in cases {
        let html = page(&p, &admin, query);
        let name = format!("k.{key}");
        let r = send(
            &p,
            &admin,
            &html,
            &[(&name, Some(bad)), ("k.totp2fLabel", Some("Kept label"))],
        );
        assert_eq!(r.status, 200, "{key}: {}", r.text());
        let html = r.text();
        let here = block(&html, key);
        assert!(
            here.contains(&format!("id=\"e-{key}\"")) && here.contains(said),
            "{key}: {here}"
        );
        assert!(here.contains("aria-invalid=\"true\""), "{here}");
        let escaped = bad.replace('"', "&quot;");
        assert!(here.contains(&escaped), "{key} kept: {here}");
        let errors = html.split("id=\"ed-errors\"").nth(1).expect("a summary");
        assert!(errors.contains(&format!("href=\"#f-{key}\"")), "{errors}");
        if query == "group=secondfactors" {
            assert!(
                block(&html, "totp2fLabel").contains("value=\"Kept label\""),
                "{html}"
            );
        }
        assert_eq!(latest(&p), before, "{key}: nothing saved");
    }
}

#[test]
fn french_refusals_speak_french() {
    let p = console().start();
    let admin = p.login("dwho");
    let html = page(&p, &admin, "group=secondfactors&lang=fr");
    assert!(html.contains("Seconds facteurs"), "{html}");
    let mut all = fields(&html);
    all.retain(|(n, _)| n != "k.totp2fInterval");
    all.push(("k.totp2fInterval".into(), "0".into()));
    let refs: Vec<(&str, &str)> = all.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let cookie = format!("lemonldap={admin}; llnglanguage=fr");
    let r = p
        .client()
        .post_form("/manager/conf/edit", &refs, &[("Cookie", &cookie)]);
    let html = r.text();
    assert!(
        block(&html, "totp2fInterval").contains("Un nombre entier de 1 à 3600"),
        "{html}"
    );
}

#[test]
fn a_cookie_domain_that_would_lock_everybody_out_is_refused_with_its_reason() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page(&p, &admin, "group=general");
    let r = send(&p, &admin, &html, &[("k.domain", Some("example.org"))]);
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    assert!(
        block(&html, "domain").contains("would lock everybody out"),
        "{html}"
    );
    assert!(
        block(&html, "domain").contains("value=\"example.org\""),
        "{html}"
    );
    assert_eq!(latest(&p), before);
    assert_eq!(get(&p, &p.login("dwho"), "/manager/conf/edit").status, 200);
}

#[test]
fn a_secret_is_never_drawn_and_an_empty_field_keeps_it() {
    let p = console().start();
    let admin = p.login("dwho");
    let secret = "Zq7-never-shown-9";
    let html = page(&p, &admin, "group=authentication");
    let r = send(&p, &admin, &html, &[("k.dbiAuthPassword", Some(secret))]);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(stored(&p, None)["dbiAuthPassword"], secret);
    let html = page(&p, &admin, "group=authentication");
    assert!(!html.contains(secret), "{html}");
    assert!(
        block(&html, "dbiAuthPassword").contains("A value is stored"),
        "{html}"
    );
    // A refused form does not draw the secret typed either; an empty field keeps the stored one.
    let r = send(
        &p,
        &admin,
        &html,
        &[
            ("k.dbiAuthPassword", Some("Other-secret-1")),
            ("k.restAuthUrl", Some("nope")),
        ],
    );
    assert_eq!(r.status, 200);
    assert!(!r.text().contains("Other-secret-1") && !r.text().contains(secret));
    let r = send(&p, &admin, &html, &[("k.dbiAuthUser", Some("limette"))]);
    assert_eq!(r.status, 302, "{}", r.text());
    let doc = stored(&p, None);
    assert_eq!(
        (doc["dbiAuthPassword"].as_str(), doc["dbiAuthUser"].as_str()),
        (Some(secret), Some("limette"))
    );
}

#[test]
fn console_rules_that_would_refuse_the_administrator_are_refused() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page(&p, &admin, "group=virtualhosts");
    let rules = r#"{"manager.example.com": {"default": "$uid eq \"rtyler\""}}"#;
    let r = send(&p, &admin, &html, &[("k.locationRules", Some(rules))]);
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let here = block(&html, "locationRules");
    assert!(here.contains("would refuse you the console"), "{here}");
    assert!(here.contains("rtyler"), "the rules typed kept: {here}");
    assert_eq!(latest(&p), before);
    // Rules that still let the administrator in are saved.
    let rules = r#"{"manager.example.com": {"default": "$uid eq \"dwho\" or $uid eq \"rtyler\""}}"#;
    let r = send(&p, &admin, &html, &[("k.locationRules", Some(rules))]);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(
        stored(&p, None)["locationRules"]["manager.example.com"]["default"],
        "$uid eq \"dwho\" or $uid eq \"rtyler\""
    );
}
