//! Forms of a page left open: the menu's sign-out button and the console's forms are good as
//! long as the session that showed them lives, however long the page stayed open; a sign-out
//! button from a page of an earlier session asks first, and says that it came from an old
//! page, not from a link.
use super::{field, form_token, post_login};
use crate::common::{clock, Portal};

#[test]
fn the_menus_sign_out_button_works_after_ten_minutes() {
    let p = Portal::builder().test_hooks().start();
    let c = p.client();
    let login = post_login(&c, "dwho", &form_token(&p));
    let sid = login.cookie("lemonldap").expect("SSO cookie");
    let cookie = format!("lemonldap={sid}");
    let menu = c.get("/", &[("Cookie", &cookie)]).text();
    let token = field(&menu, "token");
    clock::advance(&p, 600);
    let out = c.post_form("/?logout=1", &[("token", &token)], &[("Cookie", &cookie)]);
    assert_eq!(out.status, 302, "signed out at once: {}", out.text());
    assert!(out
        .header("location")
        .unwrap_or_default()
        .ends_with("?loggedout=1"));
    assert_eq!(out.cookie("lemonldap").as_deref(), Some("0"));
    let after = c.get("/", &[("Cookie", &cookie), ("Accept", "application/json")]);
    assert_eq!(after.status, 401, "the session ended: {}", after.text());
}

#[test]
fn a_sign_out_button_of_an_earlier_session_asks_and_says_why() {
    let p = Portal::start();
    let c = p.client();
    let first = post_login(&c, "dwho", &form_token(&p))
        .cookie("lemonldap")
        .expect("first session");
    let old_menu = c
        .get("/", &[("Cookie", &format!("lemonldap={first}"))])
        .text();
    let old_token = field(&old_menu, "token");
    let second = post_login(&c, "dwho", &form_token(&p))
        .cookie("lemonldap")
        .expect("second session");
    assert_ne!(first, second);
    let cookie = format!("lemonldap={second}");
    let ask = c.post_form(
        "/?logout=1",
        &[("token", &old_token)],
        &[("Cookie", &cookie)],
    );
    assert_eq!(ask.status, 200);
    let html = ask.text();
    assert!(html.contains("id=\"logout-confirm\""), "{html}");
    assert!(
        html.contains("earlier session"),
        "says the page was old: {html}"
    );
    assert!(!html.contains("A link asked"), "{html}");
    // A link (no token) still reads as a link's, in French too.
    let link = c.get("/?logout=1&lang=fr", &[("Cookie", &cookie)]).text();
    assert!(
        link.contains("Un lien demande la fin de votre session"),
        "{link}"
    );
    let me = c.get("/", &[("Cookie", &cookie), ("Accept", "application/json")]);
    assert_eq!(me.status, 200, "still signed in until confirmed");
}
