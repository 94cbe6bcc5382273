//! The HTML login form's CSRF token lives `formTimeout` seconds and is good for one attempt: a
//! form posted later, or posted again (one after the other or all at once), is refused with
//! portal error 82 and no session; one posted in time logs the user in.
use super::{form_token, post_login, shown_error};
use crate::common::{clock, Portal};
use serde_json::json;

#[test]
fn a_form_older_than_form_timeout_is_refused_with_error_82() {
    let p = Portal::builder()
        .conf("formTimeout", json!(30))
        .test_hooks()
        .start();
    let c = p.client();

    let stale = form_token(&p);
    clock::advance(&p, 31);
    let r = post_login(&c, "dwho", &stale);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(shown_error(&r.text()), Some(82), "{}", r.text());
    assert!(
        r.cookie("lemonldap").is_none(),
        "no session from a stale form"
    );

    // The page that refused it carries a new token, which works.
    let fresh = super::field(&r.text(), "token");
    assert_ne!(fresh, stale);
    clock::advance(&p, 25);
    let r = post_login(&c, "dwho", &fresh);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(shown_error(&r.text()), None, "{}", r.text());
    let sid = r
        .cookie("lemonldap")
        .expect("SSO cookie from a form in time");
    assert_eq!(sid.len(), 64);
}

#[test]
fn a_form_without_or_with_a_forged_token_gets_no_session() {
    let p = Portal::start();
    let c = p.client();
    let r = c.post_form("/", &[("user", "dwho"), ("password", "dwho")], &[]);
    assert_eq!(shown_error(&r.text()), Some(81), "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());

    // A token whose epoch was moved forward no longer matches its MAC.
    let token = form_token(&p);
    let (epoch, mac) = token.split_once('.').expect("epoch.nonce.mac");
    let later: i64 = epoch.parse::<i64>().expect("epoch") + 1;
    let r = post_login(&c, "dwho", &format!("{later}.{mac}"));
    assert_eq!(shown_error(&r.text()), Some(82), "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
}

#[test]
fn a_form_token_is_good_for_one_attempt_only() {
    let p = Portal::start();
    let c = p.client();
    let token = form_token(&p);
    // A wrong password spends it: the page answering carries a new one.
    let r = c.post_form(
        "/",
        &[("user", "dwho"), ("password", "nope"), ("token", &token)],
        &[],
    );
    assert_eq!(shown_error(&r.text()), Some(5), "{}", r.text());
    let fresh = super::field(&r.text(), "token");
    assert_ne!(fresh, token);
    // Replayed, even with the right password: refused with 82, no session.
    let r = post_login(&c, "dwho", &token);
    assert_eq!(shown_error(&r.text()), Some(82), "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
    // The new one works, once.
    let r = post_login(&c, "dwho", &fresh);
    assert_eq!(shown_error(&r.text()), None, "{}", r.text());
    assert!(r.cookie("lemonldap").is_some());
    let r = post_login(&c, "rtyler", &fresh);
    assert_eq!(shown_error(&r.text()), Some(82), "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
}

#[test]
fn of_concurrent_posts_of_one_token_exactly_one_logs_in() {
    let p = Portal::start();
    let token = form_token(&p);
    let port = p.client();
    let sessions: Vec<bool> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..6)
            .map(|_| {
                s.spawn(|| {
                    post_login(&port, "dwho", &token)
                        .cookie("lemonldap")
                        .is_some()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(sessions.iter().filter(|x| **x).count(), 1, "{sessions:?}");
}
