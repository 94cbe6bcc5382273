//! The editor's checks on a French page: the cookie-domain lockout, the warnings of a save
//! (security warnings, a group's rule that does not parse) and a rule field's syntax error read
//! in French, the key names, values and rules inside them as typed; the console's main
//! settings say the lockout in French too; `limette config check` stays English
//! (`config::check`).
use super::super::conf::latest;
use super::super::manager::{console, token};
use super::{block, fields, new_row, warnings};
use crate::common::http::Resp;
use crate::common::Portal;

/// The form of `html` posted from a French page with `set` changed, as `super::send`.
fn send_fr(p: &Portal, sid: &str, html: &str, set: &[(&str, Option<&str>)]) -> Resp {
    let mut all = fields(html);
    for (name, value) in set {
        all.retain(|(n, _)| n != name);
        if let Some(v) = value {
            all.push((name.to_string(), v.to_string()));
        }
    }
    let refs: Vec<(&str, &str)> = all.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let cookie = format!("lemonldap={sid}; llnglanguage=fr");
    p.client()
        .post_form("/manager/conf/edit", &refs, &[("Cookie", &cookie)])
}

fn page_fr(p: &Portal, sid: &str, query: &str) -> String {
    let cookie = format!("lemonldap={sid}; llnglanguage=fr");
    let r = p.client().get(
        &format!("/manager/conf/edit?{query}"),
        &[("Cookie", &cookie)],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

/// The summary of a refused save.
fn errors(html: &str) -> &str {
    html.split("id=\"ed-errors\"")
        .nth(1)
        .and_then(|s| s.split("</div>").next())
        .unwrap_or_else(|| panic!("no summary: {html}"))
}

#[test]
fn the_cookie_domain_lockout_reads_in_french() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page_fr(&p, &admin, "group=general");
    let r = send_fr(&p, &admin, &html, &[("k.domain", Some("example.org"))]);
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let here = block(&html, "domain");
    for words in [
        "domain = example.org empêcherait tout le monde de se connecter à portal = ",
        "le portail est joint par une adresse IP, dont les cookies n'acceptent aucun autre domaine",
        "donnez à domain la valeur 127.0.0.1 ou celle d'un domaine parent",
    ] {
        assert!(here.contains(words), "{words:?} not in: {here}");
    }
    assert!(!here.contains("would lock everybody out"), "{here}");
    assert!(here.contains("value=\"example.org\""), "{here}");
    assert!(
        errors(&html).contains("domain = example.org empêcherait"),
        "{html}"
    );
    assert_eq!(latest(&p), before, "nothing saved");
}

#[test]
fn warnings_of_a_save_read_in_french_with_their_values() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page_fr(&p, &admin, "group=advanced");
    let r = send_fr(
        &p,
        &admin,
        &html,
        &[
            ("k.requireToken", Some("0")),
            ("k.restExportSecretKeys", Some("1")),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let warned = warnings(&html);
    for words in [
        "requireToken est désactivé : le formulaire de connexion n",
        "restExportSecretKeys est activé : le serveur de sessions REST montre les attributs secrets",
    ] {
        assert!(warned.contains(words), "{words:?} not in: {warned}");
    }
    assert!(
        !warned.contains("is on:") && !warned.contains("is off:"),
        "{warned}"
    );
    assert_eq!(latest(&p), before, "not saved before it is confirmed");

    // A group whose rule does not parse: said in French, the group's name and the parser's
    // reason in French, the rule kept as typed in its row.
    let html = page_fr(&p, &admin, "group=variables");
    let (n, v) = new_row(&html, "groups");
    let r = send_fr(
        &p,
        &admin,
        &html,
        &[(&n, Some("broken")), (&v, Some("$uid eq"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let warned = warnings(&html);
    assert!(
        warned.contains(
            "groups/broken : hors du sous-ensemble d'expressions pris en charge \
             (fin inattendue de la règle) ; la valeur reste non définie"
        ),
        "{warned}"
    );
    assert!(html.contains("value=\"$uid eq\""), "the row kept: {html}");
    assert_eq!(latest(&p), before);
}

#[test]
fn a_rule_syntax_error_reads_in_french_with_the_rule_kept() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page_fr(&p, &admin, "group=secondfactors");
    let r = send_fr(
        &p,
        &admin,
        &html,
        &[("k.sfRequired", Some("$uid eq 'dwho"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let here = block(&html, "sfRequired");
    assert!(
        here.contains("chaîne non terminée, commencée à la position"),
        "{here}"
    );
    assert!(!here.contains("unterminated"), "{here}");
    assert!(here.contains("value=\"$uid eq 'dwho\""), "{here}");
    assert_eq!(latest(&p), before);
}

#[test]
fn the_main_settings_say_the_lockout_in_french() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let cookie = format!("lemonldap={admin}; llnglanguage=fr");
    let html = p
        .client()
        .get("/manager/conf", &[("Cookie", &cookie)])
        .text();
    let t = token(&html);
    let b = html
        .split("name=\"base\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no base: {html}"))
        .to_string();
    let fields = [
        ("token", t.as_str()),
        ("base", b.as_str()),
        ("action", "main"),
        ("domain", "example.org"),
    ];
    let r = p
        .client()
        .post_form("/manager/conf", &fields, &[("Cookie", &cookie)]);
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let alert = html
        .split("role=\"alert\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no alert: {html}"));
    assert!(
        alert.contains("domain = example.org empêcherait tout le monde"),
        "{alert}"
    );
    assert!(!alert.contains("would lock everybody out"), "{alert}");
    assert_eq!(latest(&p), before);
}
