//! Each console page under its own rule, with LemonLDAP::NG's own manager rules (Debian's
//! default configuration): rtyler, whom they allow sessions and notifications (and `default`),
//! is refused the status page and the configuration pages, and opens the two he is allowed.
use super::common::Portal;
use super::manager::get;
use serde_json::json;

#[test]
fn a_user_allowed_only_sessions_and_notifications_sees_nothing_else() {
    let p = Portal::builder()
        .ini("managerHost = manager.example.com")
        .conf(
            "locationRules",
            json!({"manager.example.com": {
                "(?#Configuration)^/(.*?\\.(fcgi|psgi)/)?(manager\\.html|confs|prx/|$)": "inGroup(\"timelords\")",
                "(?#Notifications)/(.*?\\.(fcgi|psgi)/)?notifications": "inGroup(\"timelords\") or $uid eq \"rtyler\"",
                "(?#Sessions)/(.*?\\.(fcgi|psgi)/)?sessions": "inGroup(\"timelords\") or $uid eq \"rtyler\"",
                "default": "inGroup(\"timelords\") or $uid eq \"rtyler\""
            }}),
        )
        .start();
    let rose = p.login("rtyler");
    for path in [
        "/manager/",
        "/manager/status",
        "/manager/conf",
        "/manager/conf/1",
        "/manager/conf/diff?from=1&to=1",
    ] {
        let r = get(&p, &rose, path);
        assert_eq!(r.status, 403, "{path}: {}", r.text());
        assert!(
            !r.text().contains("mgrUptime") && !r.text().contains("Uptime"),
            "{path}"
        );
    }
    for path in ["/manager/sessions", "/manager/notifications"] {
        let r = get(&p, &rose, path);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        // The navigation offers only what the rules allow.
        assert!(!r.text().contains("href=\"/manager/\""), "{}", r.text());
        assert!(!r.text().contains("href=\"/manager/conf\""), "{}", r.text());
    }
    let admin = p.login("dwho");
    for path in ["/manager/", "/manager/status", "/manager/conf"] {
        assert_eq!(get(&p, &admin, path).status, 200, "{path}");
    }
}
