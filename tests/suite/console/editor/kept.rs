//! An editor form sent after the administrator's session ended: kept across the sign-in, it
//! comes back on a French page under the catalogue's French labels (a ticked flag as a ticked
//! check box, the form's workings hidden, a number named like a password kept), and sent again
//! from there it saves what was typed.
use super::super::conf::{latest, stored};
use super::super::manager::{console, post};
use super::{fields, page};

#[test]
fn an_editor_form_kept_across_a_sign_in_comes_back_labelled() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let html = page(&p, &admin, "group=portal");
    let mut form = fields(&html);
    for (name, value) in form.iter_mut() {
        match name.as_str() {
            "k.passwordPolicyMinSize" => *value = "12".into(),
            "k.passwordPolicyMinDigit" => *value = "2".into(),
            _ => {}
        }
    }
    assert!(form.iter().any(|(n, v)| n == "k.showLanguages" && v == "1"));
    let ended = p.logout_confirmed(&admin);
    assert!(ended.status < 400, "{}", ended.text());
    let refs: Vec<(&str, &str)> = form.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let r = post(&p, &admin, "/manager/conf/edit", &refs);
    assert!(r.text().contains("name=\"password\""), "{}", r.text());
    let id = r.cookie("limettedraft").expect("the form kept");
    // Signed in again, on a French page: the form under the editor's French labels.
    let again = p.login("dwho");
    let cookie = format!("lemonldap={again}; limettedraft={id}; llnglanguage=fr");
    let page = p.client().get("/manager/conf/edit", &[("Cookie", &cookie)]);
    let html = page.text();
    let kept = html.split("id=\"resume-form\"").nth(1).unwrap_or_default();
    let kept = kept.split("</form>").next().unwrap_or_default();
    let label_of = |name: &str| {
        let at = kept
            .find(&format!("name=\"{name}\""))
            .unwrap_or_else(|| panic!("{name} not kept: {kept}"));
        let id = kept[..at].rsplit("id=\"").next().unwrap_or_default();
        let id = id.split('"').next().unwrap_or_default().to_string();
        let label = kept.split(&format!("<label for=\"{id}\">")).nth(1);
        label
            .and_then(|l| l.split("</label>").next())
            .map(str::to_string)
    };
    assert_eq!(
        label_of("k.passwordPolicyMinSize").as_deref(),
        Some("Taille minimale")
    );
    assert_eq!(
        label_of("k.passwordPolicyMinDigit").as_deref(),
        Some("Minimum de chiffres")
    );
    assert_eq!(
        label_of("k.showLanguages").as_deref(),
        Some("Afficher les langues")
    );
    assert!(
        kept.contains("type=\"checkbox\" id=\"resume-")
            && kept.contains("name=\"k.showLanguages\" value=\"1\" checked"),
        "{kept}"
    );
    assert!(
        kept.contains("name=\"k.passwordPolicyMinSize\" value=\"12\""),
        "{kept}"
    );
    for hidden in ["group", "shown", "base"] {
        let field = format!("<input type=\"hidden\" name=\"{hidden}\"");
        assert!(kept.contains(&field), "{hidden} carried, not shown: {kept}");
        assert_eq!(label_of(hidden), None, "{hidden} has no label");
    }
    assert!(!kept.contains(">k."), "no raw field name shown: {kept}");
    // Sent again from that page: saved.
    let at = html.find("id=\"resume-form\"").unwrap_or(0);
    let resent = fields(&html[at..].replacen("id=\"resume-form\"", "id=\"editor\"", 1));
    let refs: Vec<(&str, &str)> = resent
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let r = post(&p, &again, "/manager/conf/edit", &refs);
    assert_eq!(r.status, 302, "{}", r.text());
    let doc = stored(&p, None);
    assert_eq!(latest(&p), before + 1);
    assert_eq!(doc["passwordPolicyMinSize"], 12);
    assert_eq!(doc["passwordPolicyMinDigit"], 2);
    assert_eq!(doc["cfgAuthor"], "dwho");
}
