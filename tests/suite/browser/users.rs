//! The users of a DBI user table in a real headless Chromium, in English and French
//! (tests/browser/users.py): the console's users page (add refused by the policy then done,
//! search, reset, lock, unlock, forged posts refused) and the menu's password tab (the policy
//! shown before typing, each refusal in its words, the change and the other session it ends),
//! with axe-core, the page's policy and the 320 px layout checked on every page.
use crate::common::Portal;
use crate::dbi::Site;
use crate::python;
use serde_json::json;

/// A portal on a SQLite user table holding the administrator, whom alone the console's rules
/// let in, with a password policy.
fn users_portal() -> Portal {
    let port = crate::common::free_port();
    let site = Site::sqlite(json!({
        "portal": format!("http://127.0.0.1:{port}/"),
        "exportedVars": {"uid": "login"},
        "passwordPolicyMinSize": 8, "passwordPolicyMinUpper": 1, "passwordPolicyMinDigit": 1,
        "passwordPolicyMinSpeChar": 1, "passwordPolicySpecialChar": "!-.",
        "locationRules": {"manager.example.com": {"default": "$_user eq \"admin\""}},
    }));
    site.init_with(&[("admin", "Adm1n-passw0rd", &["cn=Administrator"])]);
    Portal::builder()
        .data(site.dir)
        .port(port)
        .ini("managerHost = manager.example.com")
        .start()
}

#[test]
fn the_users_page_and_the_password_tab_in_both_languages() {
    let p = users_portal();
    let out = std::process::Command::new(python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/users.py"
        ))
        .arg(p.url(""))
        .arg(super::axe())
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    println!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "users pages failed:\n{}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        p.log()
    );
    let log = p.log();
    for (event, user) in [
        ("manager_user_add", "alice-en"),
        ("manager_user_password", "alice-fr"),
        ("manager_user_lock", "alice-en"),
        ("manager_user_unlock", "alice-fr"),
        ("password_changed", "alice-en"),
    ] {
        let admin = match event {
            "password_changed" => String::new(),
            _ => "admin=admin address=127.0.0.1 ".into(),
        };
        let line = format!("audit event={event} {admin}user={user}");
        assert!(log.lines().any(|l| l.contains(&line)), "{line}: {log}");
    }
    assert!(!log.contains("user=forged"), "{log}");
    for secret in ["Alice-passw0rd", "Good-passw0rd", "Adm1n-passw0rd"] {
        assert!(!log.contains(secret), "a password in the log: {log}");
    }
}
