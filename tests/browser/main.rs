//! Every portal page in a real headless Chromium, in English and French (tests/browser/pages.py):
//! the language switch, keyboard-only sign-in, the notification form that keeps its ticks, the
//! menu (applications, login history, a consent given then revoked), the explorer, consent, both
//! logout confirmations, an error page, the administration console's pages; on each, axe-core (installed
//! from the npm registry by `make test-tools`, injected by the test) must find no serious or
//! critical violation, the policy no violation, and nothing may scroll sideways at 320 px.
//! `make screenshots` runs it with LIMETTE_SCREENSHOTS set: each page at 1280 and 360 px.
//! The administration console has its own run (tests/browser/console.py): every task of every
//! console page by an administrator, with the same checks on each page; forged posts; and a
//! user the rules refuse, who gets 403 on every console URL.
#[path = "../common/mod.rs"]
mod common;
mod python;

use common::oidc::rp;
use common::Portal;
use serde_json::json;
use std::path::PathBuf;

/// axe.min.js: LIMETTE_AXE, else where `.ci/setup.d/axe.sh` installs it.
fn axe() -> PathBuf {
    let path = std::env::var_os("LIMETTE_AXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/target/axe/node_modules/axe-core/axe.min.js"
            ))
        });
    assert!(
        path.is_file(),
        "no axe-core at {}: run `make test-tools` once (it installs axe-core from the npm \
         registry), or point LIMETTE_AXE at axe.min.js",
        path.display()
    );
    path
}

fn portal() -> Portal {
    let app = rp(
        "app",
        json!({"BypassConsent": null, "DisplayName": "Application", "PostLogoutRedirectUris": null}),
    );
    let p = common::oidc::builder(&[("app", app)])
        .ini("managerHost = manager.example.com")
        .conf("notification", json!(1))
        .conf("notificationsExplorer", json!(1))
        .conf("notificationServer", json!(1))
        .conf("loginHistoryEnabled", json!(1))
        .conf(
            "locationRules",
            json!({
                "wiki.example.com": {"default": "accept"},
                "admin.example.com": {"default": "$uid eq \"dwho\""},
                "manager.example.com": {"default": "$uid eq \"dwho\" or $uid eq \"rtyler\""}
            }),
        )
        .conf("applicationList", applications())
        .start();
    for (uid, lang) in [("dwho", "en"), ("rtyler", "fr")] {
        let r = p.client().send_json(
            "POST",
            "/notifications",
            &json!([{"uid": uid, "date": "2024-01-01", "reference": format!("TERMS-{lang}"),
                "title": "Terms of use", "subtitle": "Version 2",
                "text": "Please read and accept the new terms.",
                "check": ["I have read the terms", "I accept them"]}]),
        );
        assert_eq!(r.status, 200, "insert: {}", r.text());
    }
    p
}

/// Two categories of applications, one reachable by dwho only.
fn applications() -> serde_json::Value {
    let app = |name: &str, uri: &str, desc: &str| json!({"type": "application", "options": {"name": name, "uri": uri, "description": desc}});
    json!({
        "1tools": {"type": "category", "catname": "Tools",
            "wiki": app("Wiki", "http://wiki.example.com/", "Team documentation"),
            "admin": app("Administration", "http://admin.example.com/", "Servers and accounts")},
        "2help": {"type": "category", "catname": "Help",
            "support": {"type": "application", "options": {"name": "Support",
                "uri": "http://support.example.com/", "display": "on"}}}
    })
}

#[test]
fn every_page_in_both_languages() {
    let p = portal();
    let mut cmd = std::process::Command::new(python::python());
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/browser/pages.py"
    ))
    .arg(p.url(""))
    .arg(axe());
    if let Some(dir) = std::env::var_os("LIMETTE_SCREENSHOTS") {
        cmd.arg(dir);
    }
    let out = cmd
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    // The pages visited, for the test's output (`--nocapture`).
    println!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "browser pages failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A portal whose console lets timelords (dwho) in and refuses everybody else (LemonLDAP::NG's
/// default rule of its manager host); `mail` is a hidden attribute.
fn console_portal() -> Portal {
    Portal::builder()
        .portal_url_matches()
        .ini("managerHost = manager.example.com")
        .conf(
            "locationRules",
            json!({"manager.example.com": {"default": "inGroup(\"timelords\")"}}),
        )
        .conf("hiddenAttributes", json!("_password _2fDevices mail"))
        .start()
}

#[test]
fn the_console_in_both_languages() {
    let p = console_portal();
    let out = std::process::Command::new(python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/console.py"
        ))
        .arg(p.url(""))
        .arg(axe())
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    println!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "console pages failed:\n{}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        p.log()
    );
    // Every action is an audit line naming the administrator; the forgeries are none.
    let log = p.log();
    for event in [
        "manager_session_delete",
        "manager_sessions_delete_user",
        "manager_notification_insert",
        "manager_notification_done",
        "manager_notification_delete",
    ] {
        assert!(
            log.lines()
                .any(|l| l.contains(&format!("audit event={event} admin=dwho"))),
            "{event}: {log}"
        );
    }
    assert!(!log.contains("reference=forged"), "{log}");
    assert!(log.contains("console refused to msmith"), "{log}");
}
