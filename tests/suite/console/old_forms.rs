//! Console forms as an administrator meets them: one left open longer than `formTimeout` still
//! saves (its token is bound to the administrator's session and good while that session
//! lives; a token of another session is refused, 403, and saves nothing), and one refused
//! comes back with every value typed and the error beside its field, in the page's language.
use super::common::{clock, Portal};
use super::manager::{console, get, post, token};

fn create(p: &Portal, admin: &str, t: &str, reference: &str) -> u16 {
    let r = post(
        p,
        admin,
        "/manager/notifications",
        &[
            ("token", t),
            ("action", "create"),
            ("uid", "rtyler"),
            ("date", "2024-01-02"),
            ("reference", reference),
            ("title", "Terms"),
            ("subtitle", "Read them"),
            ("text", "The terms."),
            ("check", "I agree"),
            ("condition", ""),
        ],
    );
    assert!(r.status != 200, "{}", r.text());
    r.status
}

#[test]
fn a_console_form_open_for_ten_minutes_still_saves() {
    let p = console().test_hooks().start();
    let admin = p.login("dwho");
    let t = token(&get(&p, &admin, "/manager/notifications").text());
    clock::advance(&p, 600);
    assert_eq!(
        create(&p, &admin, &t, "late"),
        302,
        "saved after ten minutes"
    );
    let page = get(&p, &admin, "/manager/notifications?uid=rtyler").text();
    assert!(page.contains("reference\">late</small>"), "{page}");

    // The same token in another administrator session: refused, nothing saved.
    let other = p.login("dwho");
    assert_eq!(create(&p, &other, &t, "stolen"), 403);
    let page = get(&p, &admin, "/manager/notifications?uid=rtyler").text();
    assert!(!page.contains("reference\">stolen</small>"), "{page}");
}

#[test]
fn a_refused_form_keeps_every_value_and_says_which_field_in_french_too() {
    let p = console().start();
    let admin = p.login("dwho");
    let t = token(&get(&p, &admin, "/manager/notifications").text());
    let fields = [
        ("token", t.as_str()),
        ("action", "create"),
        ("uid", "rtyler"),
        ("date", "2024-01-02"),
        ("reference", "cgu-2"),
        ("title", "Terms <new>"),
        ("subtitle", "Read them"),
        ("text", "Line one\nLine two"),
        ("check", "I agree"),
        ("condition", "$uid eq ("),
    ];
    let cookie = format!("lemonldap={admin}");
    let r = p.client().post_form(
        "/manager/notifications",
        &fields,
        &[("Cookie", &cookie), ("Accept-Language", "fr")],
    );
    assert_eq!(r.status, 200);
    let html = r.text();
    for kept in [
        "value=\"rtyler\"",
        "value=\"2024-01-02\"",
        "value=\"cgu-2\"",
        "value=\"Terms &lt;new&gt;\"",
        ">Line one\nLine two</textarea>",
        ">I agree</textarea>",
        "value=\"$uid eq (\"",
    ] {
        assert!(html.contains(kept), "{kept} kept: {html}");
    }
    // The error names the field, beside it and at the top (a link to it), in French.
    assert!(
        html.contains("aria-invalid=\"true\" aria-describedby=\"hint-condition\""),
        "{html}"
    );
    assert!(
        html.contains("id=\"hint-condition\">Condition : ce n'est pas une règle valide"),
        "{html}"
    );
    assert!(html.contains("href=\"#n-condition\""), "{html}");
    // A missing field: the same, on that field.
    let mut missing = fields;
    missing[5] = ("title", "");
    missing[9] = ("condition", "");
    let r = post(&p, &admin, "/manager/notifications", &missing).text();
    assert!(r.contains("aria-describedby=\"hint-title\""), "{r}");
    assert!(r.contains("this field is required"), "{r}");
    assert!(r.contains("value=\"cgu-2\""), "{r}");
}
