//! The console's configuration editor (`/manager/conf/edit`), as an administrator's browser
//! would post it: every field of the drawn form sent back with a few changed. A refused value
//! (a number out of bounds, a rule that does not parse, a relative URL, broken JSON) comes back
//! with every typed value and its error beside its field, linked from the summary, and nothing
//! saved; new warnings are confirmed before the save; a cookie domain that would lock everybody
//! out is refused with its reason; a form left open ten minutes still saves; a form drawn
//! before another save says so and keeps its values; a secret is never drawn.
use super::common::{clock, Portal};
use super::conf::{latest, stored};
use super::manager::{console, get, post};

/// The named fields of the editor's form, as a browser would post them (check boxes only
/// when checked, a select's chosen option, a text area's text).
fn fields(html: &str) -> Vec<(String, String)> {
    let start = html
        .find("id=\"editor\"")
        .unwrap_or_else(|| panic!("no editor: {html}"));
    let form = &html[start..];
    let form = &form[..form.find("</form>").unwrap_or(form.len())];
    let mut out = Vec::new();
    for tag in form.split('<').skip(1) {
        let attr = |name: &str| {
            tag.split(&format!(" {name}=\""))
                .nth(1)
                .and_then(|r| r.split('"').next())
                .map(unescape)
        };
        let Some(name) = attr("name") else { continue };
        if tag.starts_with("input ") {
            let checkbox = attr("type").as_deref() == Some("checkbox");
            if !checkbox || tag.contains(" checked") {
                out.push((name, attr("value").unwrap_or_default()));
            }
        } else if tag.starts_with("textarea ") {
            out.push((
                name,
                unescape(tag.split_once('>').map(|x| x.1).unwrap_or("")),
            ));
        } else if tag.starts_with("select ") {
            let rest = &form[form.find(tag).unwrap_or(0)..];
            let chosen = rest
                .split("<option")
                .skip(1)
                .take_while(|o| !o.starts_with("</select"))
                .find(|o| o.contains(" selected"))
                .map(|o| {
                    o.split_once('>')
                        .map(|x| x.1)
                        .unwrap_or("")
                        .split('<')
                        .next()
                        .unwrap_or("")
                })
                .unwrap_or("");
            out.push((name, unescape(chosen)));
        }
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Posts the form of `html` with `set` changed (`None`: the field left out, a check box off).
fn send(
    p: &Portal,
    sid: &str,
    html: &str,
    set: &[(&str, Option<&str>)],
) -> super::common::http::Resp {
    let mut all = fields(html);
    for (name, value) in set {
        all.retain(|(n, _)| n != name);
        if let Some(v) = value {
            all.push((name.to_string(), v.to_string()));
        }
    }
    let refs: Vec<(&str, &str)> = all.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    post(p, sid, "/manager/conf/edit", &refs)
}

fn page(p: &Portal, sid: &str, query: &str) -> String {
    let r = get(p, sid, &format!("/manager/conf/edit?{query}"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

/// The block of `key` in a page: from its field to the next one.
fn block<'a>(html: &'a str, key: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"fld-{key}\""))
        .unwrap_or_else(|| panic!("no {key}: {html}"));
    let rest = &html[at..];
    &rest[..rest[1..]
        .find("class=\"ed-field")
        .map(|i| i + 1)
        .unwrap_or(rest.len())]
}

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
fn a_save_says_what_it_saved_and_the_document_has_it() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page(&p, &admin, "group=secondfactors");
    let r = send(
        &p,
        &admin,
        &html,
        &[
            ("k.totp2fInterval", Some("45")),
            ("k.totp2fLabel", Some("Phone code")),
            ("log", Some("two keys")),
        ],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let to = r.header("location").unwrap_or_default().to_string();
    assert!(
        to.contains("saved=") && to.contains("totp2fInterval"),
        "{to}"
    );
    let doc = stored(&p, None);
    assert_eq!(latest(&p), before + 1);
    assert_eq!(doc["totp2fInterval"], 45);
    assert_eq!(doc["totp2fLabel"], "Phone code");
    assert_eq!(doc["cfgLog"], "two keys");
    assert_eq!(doc["cfgAuthor"], "dwho");
    let shown = get(&p, &admin, &to).text();
    assert!(
        shown.contains("id=\"saved\"")
            && shown.contains("now in force: totp2fLabel, totp2fInterval."),
        "{shown}"
    );
    assert!(
        block(&shown, "totp2fInterval").contains("value=\"45\""),
        "{shown}"
    );
    // The same form again: nothing changed, nothing saved.
    let r = send(&p, &admin, &shown, &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("Nothing changed"), "{}", r.text());
    assert_eq!(latest(&p), before + 1);
}

#[test]
fn new_warnings_are_confirmed_before_the_save() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page(&p, &admin, "group=variables");
    let rows = fields(&html)
        .iter()
        .filter(|(n, _)| n.starts_with("k.macros.n."))
        .count();
    let (n, v) = (
        format!("k.macros.n.{}", rows - 1),
        format!("k.macros.v.{}", rows - 1),
    );
    let r = send(
        &p,
        &admin,
        &html,
        &[(&n, Some("broken")), (&v, Some("$uid eq"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let warned = html
        .split("id=\"ed-warnings\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no warnings: {html}"));
    assert!(warned.contains("macros/broken"), "{warned}");
    assert!(html.contains("id=\"ed-anyway\""), "{html}");
    assert!(
        html.contains("value=\"broken\""),
        "the typed row kept: {html}"
    );
    assert_eq!(latest(&p), before, "not saved before it is confirmed");
    let r = send(&p, &admin, &html, &[("confirm", Some("1"))]);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(stored(&p, None)["macros"]["broken"], "$uid eq");
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
fn a_form_left_open_ten_minutes_still_saves() {
    let p = console().test_hooks().start();
    let admin = p.login("dwho");
    let html = page(&p, &admin, "group=secondfactors");
    clock::advance(&p, 600);
    let r = send(&p, &admin, &html, &[("k.totp2fRange", Some("2"))]);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(stored(&p, None)["totp2fRange"], 2);
}

#[test]
fn a_form_drawn_before_another_save_says_so_and_keeps_its_values() {
    let p = console().start();
    let admin = p.login("dwho");
    let old = page(&p, &admin, "group=secondfactors");
    let r = send(
        &p,
        &admin,
        &page(&p, &admin, "group=secondfactors"),
        &[("k.totp2fRange", Some("3"))],
    );
    assert_eq!(r.status, 302);
    let now = latest(&p);
    let r = send(&p, &admin, &old, &[("k.totp2fLabel", Some("Late label"))]);
    assert_eq!(r.status, 200);
    let html = r.text();
    assert!(
        html.contains(&format!(
            "Configuration {now} was saved after this page was drawn"
        )),
        "{html}"
    );
    assert!(
        block(&html, "totp2fLabel").contains("value=\"Late label\""),
        "{html}"
    );
    assert_eq!(latest(&p), now);
    // Saving that page again applies the kept value to the new version, which it keeps.
    assert_eq!(send(&p, &admin, &html, &[]).status, 302);
    let doc = stored(&p, None);
    assert_eq!(
        (doc["totp2fLabel"].as_str(), doc["totp2fRange"].as_i64()),
        (Some("Late label"), Some(3))
    );
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
fn a_search_finds_keys_by_name_label_or_help_and_refused_keys_are_read_only() {
    let p = console()
        .conf("singleSession", serde_json::json!(0))
        .start();
    let admin = p.login("dwho");
    let html = page(&p, &admin, "q=cookie");
    for key in ["domain", "securedCookie"] {
        assert!(html.contains(&format!("id=\"fld-{key}\"")), "{key}: {html}");
    }
    assert!(!html.contains("id=\"fld-totp2fInterval\""), "{html}");
    assert!(page(&p, &admin, "q=zzzz-nothing").contains("id=\"ed-none\""));
    let html = page(&p, &admin, "group=general");
    let refused = html
        .split("id=\"ed-refused\"")
        .nth(1)
        .unwrap_or_else(|| panic!("{html}"));
    assert!(
        refused.contains("singleSession") && refused.contains("one session per user"),
        "{refused}"
    );
    assert!(!refused.contains("<input"), "read only: {refused}");
}

#[test]
fn a_relying_party_is_edited_on_its_own_page_its_secret_kept() {
    let rp = serde_json::json!({"app": {
        "oidcRPMetaDataOptionsClientID": "app",
        "oidcRPMetaDataOptionsClientSecret": "rp-secret-never-shown",
        "oidcRPMetaDataOptionsRedirectUris": "https://app.example.com/cb",
        "oidcRPMetaDataOptionsDisplayName": "App"}});
    let p = console().conf("oidcRPMetaDataOptions", rp).start();
    let admin = p.login("dwho");
    let list = page(&p, &admin, "group=relyingparties");
    assert!(list.contains("rp=app\""), "{list}");
    assert!(!list.contains("rp-secret-never-shown"), "{list}");
    let html = page(&p, &admin, "group=relyingparties&rp=app");
    assert!(!html.contains("rp-secret-never-shown"), "{html}");
    assert!(
        block(&html, "oidcRPMetaDataOptionsDisplayName").contains("value=\"App\""),
        "{html}"
    );
    let r = send(
        &p,
        &admin,
        &html,
        &[("k.oidcRPMetaDataOptionsAuthnLevel", Some("-4"))],
    );
    assert_eq!(r.status, 200);
    assert!(
        r.text()
            .contains("id=\"e-oidcRPMetaDataOptionsAuthnLevel\""),
        "{}",
        r.text()
    );
    let r = send(
        &p,
        &admin,
        &html,
        &[
            ("k.oidcRPMetaDataOptionsDisplayName", Some("Team app")),
            ("k.oidcRPMetaDataMacros.n.0", Some("team")),
            ("k.oidcRPMetaDataMacros.v.0", Some("$uid")),
        ],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let doc = stored(&p, None);
    let o = &doc["oidcRPMetaDataOptions"]["app"];
    assert_eq!(o["oidcRPMetaDataOptionsDisplayName"], "Team app");
    assert_eq!(
        o["oidcRPMetaDataOptionsClientSecret"],
        "rp-secret-never-shown"
    );
    assert_eq!(doc["oidcRPMetaDataMacros"]["app"]["team"], "$uid");
    assert!(
        doc.get("oidcRPMetaDataOptionsDisplayName").is_none(),
        "no top-level option"
    );
    assert_eq!(
        get(
            &p,
            &admin,
            "/manager/conf/edit?group=relyingparties&rp=nope"
        )
        .status,
        404
    );
}
