//! The editor's saves: what was saved said and in the document, new warnings confirmed first, a
//! form left open ten minutes, a form drawn before another save, the search and the keys
//! Limette refuses, a relying party's own page.
use super::super::common::clock;
use super::super::conf::{latest, stored};
use super::super::manager::{console, get};
use super::{block, new_row, page, send, warnings};

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
    let said = r
        .cookie("limetteflash")
        .expect("the redirect says what was saved");
    let doc = stored(&p, None);
    assert_eq!(latest(&p), before + 1);
    assert_eq!(doc["totp2fInterval"], 45);
    assert_eq!(doc["totp2fLabel"], "Phone code");
    assert_eq!(doc["cfgLog"], "two keys");
    assert_eq!(doc["cfgAuthor"], "dwho");
    let cookie = format!("lemonldap={admin}; limetteflash={said}");
    let shown = p.client().get(&to, &[("Cookie", &cookie)]).text();
    assert!(
        shown.contains("id=\"done\"")
            && shown.contains("now in force: totp2fLabel, totp2fInterval."),
        "{shown}"
    );
    let again = get(&p, &admin, &to).text();
    assert!(!again.contains("id=\"done\""), "said once: {again}");
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
    let (n, v) = new_row(&html, "macros");
    let r = send(
        &p,
        &admin,
        &html,
        &[(&n, Some("broken")), (&v, Some("$uid eq"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let warned = warnings(&html);
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
    let fr = page(&p, &admin, "group=general&lang=fr");
    assert!(fr.contains("une session par utilisateur"), "{fr}");
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
    let rp_page = get(&p, &admin, "/manager/conf/rp/app").text();
    assert!(
        rp_page.contains("href=\"/manager/conf/edit?group=relyingparties&amp;rp=app\""),
        "{rp_page}"
    );
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

#[test]
fn a_key_the_form_did_not_show_is_left_as_it_is() {
    let p = console()
        .conf("securedCookie", serde_json::json!(1))
        .start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page(&p, &admin, "group=general");
    // As if the form had shown `domain` alone: the unticked box of another key reads as nothing.
    let r = send(
        &p,
        &admin,
        &html,
        &[("shown", Some("domain")), ("k.securedCookie", None)],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("Nothing changed"), "{}", r.text());
    assert_eq!(latest(&p), before);
    assert_eq!(stored(&p, None)["securedCookie"], 1);
}
