//! Every portal page in a real headless Chromium, in English and French (tests/browser/pages.py):
//! the language switch, keyboard-only sign-in, the account bar, the applications as tiles and
//! their filter, the second factors' page, the notification form that keeps its ticks, the
//! menu (applications, login history, a consent given then revoked), the explorer, consent, both
//! logout confirmations, an error page, the administration console's pages; on each, axe-core (installed
//! from the npm registry by `make test-tools`, injected by the test) must find no serious or
//! critical violation, the policy no violation, and nothing may scroll sideways at 320 px.
//! `make screenshots` runs it with LIMETTE_SCREENSHOTS set: each page at 1280 and 360 px.
//! The administration console has its own run (tests/browser/console.py): every task of every
//! console page by an administrator, with the same checks on each page; forged posts; and a
//! user the rules refuse, who gets 403 on every console URL. The configuration it saved is
//! then read back over plain HTTP (`/config/...`) and matched with the audit lines.
mod editor;
mod webauthn;

use crate::common;
use crate::python;

mod users;

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
        .conf("totp2fActivation", json!(1))
        .conf("totp2fSelfRegistration", json!(1))
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
    // The wiki's logo, a file of the skin folder where LemonLDAP::NG keeps its logos.
    let logos = p.data().join("static/common/apps");
    std::fs::create_dir_all(&logos).expect("the logos' folder");
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 48 48\">\
        <rect width=\"48\" height=\"48\" rx=\"8\" fill=\"#1546b8\"/>\
        <path d=\"M10 14h28v4H10zm0 8h28v4H10zm0 8h20v4H10z\" fill=\"#fff\"/></svg>";
    std::fs::write(logos.join("wiki.svg"), svg).expect("the wiki's logo");
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

/// Three categories of applications, one reachable by dwho only, more than a dozen in all (the
/// menu then offers its filter); the wiki has a logo file, the others a LemonLDAP::NG logo
/// name without a file, or none.
fn applications() -> serde_json::Value {
    let app = |name: &str, uri: &str, desc: &str| json!({"type": "application", "options": {"name": name, "uri": uri, "description": desc}});
    let mut services = json!({"type": "category", "catname": "Services"});
    let names = [
        ("Calendar", "Meetings and rooms", "bell.png"),
        ("Mail", "Your mailbox", "mailappt.png"),
        ("Expenses", "Claims and refunds", "money.png"),
        ("Files", "Shared folders", "folder.png"),
        ("Tickets", "Help desk requests", "help.png"),
        ("Monitoring", "Servers and alerts", "network.png"),
        ("Bookmarks", "", "bookmark.png"),
        (
            "Chat",
            "Instant messages for the whole organisation, by team and by project",
            "",
        ),
        ("Database console", "Read-only queries", "database.png"),
        (
            "Terminal",
            "Shell access through the browser",
            "terminal.png",
        ),
        ("Directory", "Who is who", ""),
        ("Payroll", "Pay slips", "money.png"),
    ];
    for (i, (name, desc, logo)) in names.iter().enumerate() {
        let mut options = json!({"name": name, "uri": format!("http://service{i}.example.com/"), "display": "on", "logo": logo});
        if !desc.is_empty() {
            options["description"] = json!(desc);
        }
        services[format!("s{i:02}")] = json!({"type": "application", "options": options});
    }
    json!({
        "1tools": {"type": "category", "catname": "Tools",
            "wiki": {"type": "application", "options": {"name": "Wiki",
                "uri": "http://wiki.example.com/", "description": "Team documentation", "logo": "wiki.svg"}},
            "admin": app("Administration", "http://admin.example.com/", "Servers and accounts")},
        "2help": {"type": "category", "catname": "Help",
            "support": {"type": "application", "options": {"name": "Support",
                "uri": "http://support.example.com/", "display": "on"}}},
        "3services": services
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
/// default rule of its manager host); `mail` is a hidden attribute; the REST configuration
/// server is on, to read back what the configuration forms saved.
fn console_portal() -> Portal {
    Portal::builder()
        .portal_url_matches()
        .ini("managerHost = manager.example.com")
        .conf("restConfigServer", json!(1))
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
    configuration_saves(&p, &log);
}

/// The configuration forms' logs in the order console.py's tasks save them (its `CONF_LOGS`),
/// with the action each posts; a rollback's log names the number the language's tasks began
/// from (1 in English, then the number English rolled back to).
fn conf_saves() -> Vec<(&'static str, String)> {
    let langs = [
        [
            ("add", "Add rp-en for the team"),
            ("edit", "Rename rp-en"),
            ("option", "Raise rp-en's authentication level"),
            ("secret", "Rotate rp-en's secret"),
            ("delete", "Remove rp-en"),
            ("main", "Shorter sessions"),
            ("rollback", "Back to configuration {num}"),
        ],
        [
            ("add", "Ajout de rp-fr"),
            ("edit", "Renommer rp-fr"),
            ("option", "Niveau d'authentification de rp-fr"),
            ("secret", "Nouveau secret pour rp-fr"),
            ("delete", "Suppression de rp-fr"),
            ("main", "Sessions plus courtes, délai réduit"),
            ("rollback", "Retour à la configuration {num}"),
        ],
    ];
    let mut out = Vec::new();
    for lang in langs {
        let base = (1 + out.len()).to_string();
        for (action, log) in lang {
            out.push((action, log.replace("{num}", &base)));
        }
    }
    out
}

/// Read back over plain HTTP (`/config/...`): each configuration form's save is a new number
/// by the administrator from its address, with the form's log, and an audit line; a rollback
/// holds the old content; the refused changes and the forged post saved nothing.
fn configuration_saves(p: &Portal, log: &str) {
    let get = |path: &str| {
        let r = p.client().get_json(path);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        r.json()
    };
    let saves = conf_saves();
    assert_eq!(saves.len(), 14);
    assert_eq!(get("/config/latest")["cfgNum"], 15, "{log}");
    for (num, (action, text)) in (2..).zip(&saves) {
        let meta = get(&format!("/config/{num}"));
        assert_eq!(
            (
                meta["cfgAuthor"].as_str(),
                meta["cfgAuthorIP"].as_str(),
                meta["cfgLog"].as_str()
            ),
            (Some("dwho"), Some("127.0.0.1"), Some(text.as_str())),
            "{num}: {meta}"
        );
        // Every log holds a space: the audit line quotes it.
        let line = format!(
            "audit event=manager_conf_save admin=dwho address=127.0.0.1 action={action} num={num} log=\"{text}\""
        );
        assert!(log.lines().any(|l| l.ends_with(&line)), "{line}: {log}");
    }
    // Each language's rollback: the settings of the number it began from; the signing keys
    // stay those in force (tokens signed with them are alive at the relying parties).
    let content = |num: u64| {
        let mut m = get(&format!("/config/{num}?full=1"));
        if let Some(m) = m.as_object_mut() {
            m.retain(|k, _| !k.starts_with("cfg") && !is_key_material(k));
        }
        m
    };
    for (from, to) in [(1, 8), (8, 15)] {
        assert_eq!(content(from), content(to), "{from} rolled back as {to}");
    }
    // The refused value in each language: the reason in the audit line, nothing saved.
    let refused = log
        .lines()
        .filter(|l| {
            l.contains(
                "audit event=manager_conf_refused admin=dwho address=127.0.0.1 action=main reason=",
            ) && l.contains("portal")
        })
        .count();
    assert_eq!(refused, 2, "{log}");
}

/// The provider's signing keys in a configuration (`oidcService...Sig`), which a rollback keeps.
fn is_key_material(key: &str) -> bool {
    key.starts_with("oidcService") && key.ends_with("Sig")
}
