//! A console form left open longer than `formTimeout` still saves: its token is bound to the
//! administrator's session and good while that session lives; a token of another session is
//! refused (403) and saves nothing.
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
    assert!(page.contains("<td>late</td>"), "{page}");

    // The same token in another administrator session: refused, nothing saved.
    let other = p.login("dwho");
    assert_eq!(create(&p, &other, &t, "stolen"), 403);
    let page = get(&p, &admin, "/manager/notifications?uid=rtyler").text();
    assert!(!page.contains("<td>stolen</td>"), "{page}");
}
