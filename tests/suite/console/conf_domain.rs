//! The console's main settings refuse a cookie domain that would lock everybody out (the
//! portal's host neither the domain nor under it), say why, and save nothing; the
//! administrator can still log in and reach the console afterwards.
use super::conf::{latest, submit};
use super::manager::{console, get};

#[test]
fn the_main_settings_refuse_a_domain_the_portal_is_not_in() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    for fields in [
        &[("action", "main"), ("domain", "example.org")][..],
        &[
            ("action", "main"),
            ("portal", "https://auth.example.com/"),
            ("domain", "example.org"),
        ],
    ] {
        let r = submit(&p, &admin, "/manager/conf", fields);
        assert_eq!(r.status, 200, "{}", r.text());
        let html = r.text();
        assert!(
            html.contains("role=\"alert\"") && html.contains("would lock everybody out"),
            "{html}"
        );
        assert_eq!(latest(&p), before);
    }
    // A domain the portal is in is saved, and a new login still reaches the console.
    let r = submit(
        &p,
        &admin,
        "/manager/conf",
        &[("action", "main"), ("domain", "127.0.0.1")],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(latest(&p), before + 1);
    let again = p.login("dwho");
    assert_eq!(get(&p, &again, "/manager/conf").status, 200);
}
