//! The menu's password tab and `POST /` with `newpassword`, as a user and a script meet them:
//! on a real SQLite user table (`passwordDB = DBI`, the table made by `limette db init` and
//! filled by `limette users add`), each rule of the password policy refused with its message in
//! English and French and its LemonLDAP::NG error in JSON, the old password asked and checked
//! under the brute-force lock, the change that works (the new password signs in, the old one
//! no longer does) and ends the user's other sessions (the page says how many), the same on
//! the throw-away PostgreSQL cluster, a table out of reach answered 503; and without a
//! password module (Demo, REST) no tab and nothing changed, with `Null` error 20.
use super::{field, shown_error, JSON};
use crate::common::{clock, Client, Portal, Resp};
use serde_json::{json, Value};

/// Posts the change of the session `sid` as a script (no token).
fn change_json(c: &Client, sid: &str, old: &str, new: &str, confirm: &str) -> Resp {
    let cookie = format!("lemonldap={sid}");
    let mut fields = vec![("newpassword", new), ("confirmpassword", confirm)];
    if !old.is_empty() {
        fields.push(("oldpassword", old));
    }
    c.post_form("/", &fields, &[JSON, ("Cookie", &cookie)])
}

/// The JSON answer's status and error.
fn answer(r: &Resp) -> (u16, String) {
    let j: Value = r.json();
    (
        r.status,
        j["error"].as_str().unwrap_or_default().to_string(),
    )
}

/// The menu of `sid` in `lang`.
fn menu(c: &Client, sid: &str, lang: &str) -> String {
    let r = c.get(
        &format!("/?lang={lang}"),
        &[("Cookie", &format!("lemonldap={sid}"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

/// A JSON login's session id, or the refusal's error.
fn login(c: &Client, user: &str, password: &str) -> Result<String, String> {
    let r = c.post_form("/", &[("user", user), ("password", password)], &[JSON]);
    let j = r.json();
    match j["id"].as_str() {
        Some(id) => Ok(id.to_string()),
        None => Err(j["error"].as_str().unwrap_or_default().to_string()),
    }
}

#[test]
fn without_a_password_module_there_is_no_tab_and_nothing_changes() {
    for module in ["Demo", "REST"] {
        let p = Portal::builder().conf("passwordDB", json!(module)).start();
        let c = p.client();
        let sid = p.login("dwho");
        let html = menu(&c, &sid, "en");
        assert!(!html.contains("id=\"password\""), "{module}: {html}");
        assert!(!html.contains("newpassword"), "{module}: {html}");
        let r = change_json(&c, &sid, "dwho", "n3w-Pass", "n3w-Pass");
        assert_eq!(r.status, 200, "{module}: {}", r.text());
        assert_eq!(r.json(), json!({"result": 1, "error": "0"}), "{module}");
        assert!(
            login(&c, "dwho", "dwho").is_ok(),
            "{module}: the password is unchanged"
        );
        assert!(login(&c, "dwho", "n3w-Pass").is_err(), "{module}");
    }
}

#[test]
fn with_null_the_checks_run_and_end_in_error_20() {
    // The embedded default names passwordDB = Null.
    let p = Portal::builder()
        .conf("passwordPolicyMinSize", json!(12))
        .start();
    let c = p.client();
    let sid = p.login("dwho");
    assert!(
        !menu(&c, &sid, "en").contains("id=\"formpass\""),
        "no tab with Null"
    );
    let r = change_json(&c, &sid, "dwho", "n3w-Pass", "n3w-Pas");
    assert_eq!(answer(&r), (400, "34".into()), "{}", r.text());
    let r = change_json(&c, &sid, "", "n3w-Pass", "n3w-Pass");
    assert_eq!(answer(&r), (400, "27".into()), "{}", r.text());
    let r = change_json(&c, &sid, "dwho", "n3w-Pass", "n3w-Pass");
    assert_eq!(
        answer(&r),
        (400, "29".into()),
        "the policy first: {}",
        r.text()
    );
    let r = change_json(&c, &sid, "dwho", "n3w-Passw0rd!", "n3w-Passw0rd!");
    assert_eq!(answer(&r), (400, "20".into()), "{}", r.text());
    assert!(login(&c, "dwho", "dwho").is_ok());
    // Without a session, the post is a login (no user: refused as a login is).
    let r = c.post_form(
        "/",
        &[("newpassword", "x"), ("confirmpassword", "x")],
        &[JSON],
    );
    assert_eq!(r.status, 401, "{}", r.text());
    assert!(r.cookie("lemonldap").is_none());
}

/// The policy of the DBI tests: 8 characters, a lower-case and an upper-case letter, a digit,
/// a special character among `!-.`.
fn policy() -> Value {
    json!({
        "passwordPolicyMinSize": 8, "passwordPolicyMinLower": 1, "passwordPolicyMinUpper": 1,
        "passwordPolicyMinDigit": 1, "passwordPolicyMinSpeChar": 1,
        "passwordPolicySpecialChar": "!-.",
        "exportedVars": {"uid": "login"},
    })
}

/// A portal on a SQLite user table holding alice and bob, with `patch` over `policy()`.
fn dbi_portal(patch: Value, hooks: bool) -> Portal {
    let mut keys = policy();
    for (k, v) in patch.as_object().unwrap() {
        keys[k] = v.clone();
    }
    let site = crate::dbi::Site::sqlite(keys);
    site.init_with(&[
        ("alice", "Alice-0ld.pass", &["cn=Alice"]),
        ("bob", "B0b-0ld.pass", &["cn=Bob"]),
    ]);
    let b = Portal::builder().data(site.dir);
    match hooks {
        true => b.test_hooks().start(),
        false => b.start(),
    }
}

/// A message of the language file `lang`, `{name}`s filled.
fn message(lang: &str, key: &str, fill: &[(&str, &str)]) -> String {
    let file = match lang {
        "fr" => include_str!("../../../static/languages/fr.json"),
        _ => include_str!("../../../static/languages/en.json"),
    };
    let words: Value = serde_json::from_str(file).unwrap();
    let mut text = words[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key}"))
        .to_string();
    for (name, value) in fill {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

/// What the password tab says: its portal error and its text (tags out, entities read).
fn said(html: &str) -> Option<(u16, String)> {
    let part = html.split("id=\"pwdmsg\"").nth(1)?;
    let code = shown_error(part)?;
    let inner = part.split_once('>')?.1.split("</div>").next()?;
    let mut text = String::new();
    let mut in_tag = false;
    for c in inner.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    Some((code, text.split_whitespace().collect::<Vec<_>>().join(" ")))
}

/// Posts the menu's form of `sid` as a browser does (the form's own token), in `lang`.
fn change_html(c: &Client, sid: &str, lang: &str, old: &str, new: &str, confirm: &str) -> Resp {
    let html = menu(c, sid, lang);
    let form = html
        .split("id=\"formpass\"")
        .nth(1)
        .expect("the password form");
    let token = field(form, "token");
    let cookie = format!("lemonldap={sid}");
    c.post_form(
        &format!("/?lang={lang}"),
        &[
            ("oldpassword", old),
            ("newpassword", new),
            ("confirmpassword", confirm),
            ("token", &token),
        ],
        &[("Cookie", &cookie)],
    )
}

#[test]
fn each_rule_of_the_policy_is_shown_then_refused_with_its_message() {
    let p = dbi_portal(json!({}), false);
    let c = p.client();
    let sid = login(&c, "alice", "Alice-0ld.pass").unwrap();
    // Shown before typing, each rule in its words, in both languages.
    for lang in ["en", "fr"] {
        let html = menu(&c, &sid, lang);
        for (key, fill) in [
            ("ppMinSize", "8"),
            ("ppMinLower", "1"),
            ("ppMinUpper", "1"),
            ("ppMinDigit", "1"),
            ("ppMinSpeChar", "1"),
        ] {
            let text = message(lang, key, &[("n", fill)]);
            let li = format!("<li data-rule=\"{key}\">{text}</li>");
            assert!(html.contains(&li), "{lang} {key}: {li} in {html}");
        }
        let allowed = message(lang, "ppAllowedSpecial", &[("list", "! - .")]);
        assert!(html.contains(&allowed), "{lang}: {allowed}");
        assert!(html.contains("minlength=\"8\""), "{html}");
        assert!(html.contains("id=\"oldpassword\""), "{html}");
    }
    let weak = [
        ("Sh0rt!a", "29", "ppTooShort", "8"),
        ("NOLOWER1!", "28", "ppFewLower", "1"),
        ("noupper1!", "28", "ppFewUpper", "1"),
        ("NoDigits!", "28", "ppFewDigit", "1"),
        ("NoSpecial1", "28", "ppFewSpeChar", "1"),
        ("Forbid#1.A", "100", "ppForbidden", "1"),
        ("Forbid#1.A%", "101", "ppForbidden", "2"),
    ];
    for (password, code, key, n) in weak {
        let r = change_json(&c, &sid, "Alice-0ld.pass", password, password);
        assert_eq!(
            answer(&r),
            (400, code.to_string()),
            "{password}: {}",
            r.text()
        );
        assert_eq!(r.json()["result"], 0);
        for lang in ["en", "fr"] {
            let r = change_html(&c, &sid, lang, "Alice-0ld.pass", password, password);
            assert_eq!(r.status, 200, "{}", r.text());
            let want = message(lang, key, &[("n", n)]);
            assert_eq!(
                said(&r.text()),
                Some((code.parse().unwrap(), want)),
                "{lang} {password}"
            );
        }
    }
    // Nothing changed: the old password still signs in.
    assert!(login(&c, "alice", "Alice-0ld.pass").is_ok());
    // The other refusals, each with LemonLDAP::NG's error and message.
    let r = change_json(
        &c,
        &sid,
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pasS",
    );
    assert_eq!(answer(&r), (400, "34".into()), "{}", r.text());
    let r = change_json(&c, &sid, "", "Alice-n3w.pass", "Alice-n3w.pass");
    assert_eq!(answer(&r), (400, "27".into()), "{}", r.text());
    let r = change_html(&c, &sid, "fr", "wrong", "Alice-n3w.pass", "Alice-n3w.pass");
    assert_eq!(said(&r.text()), Some((39, message("fr", "PE39", &[]))));
    assert!(login(&c, "alice", "Alice-n3w.pass").is_err());
}

#[test]
fn a_change_signs_in_with_the_new_password_and_ends_the_other_sessions() {
    let p = dbi_portal(json!({}), false);
    let c = p.client();
    let sid = login(&c, "alice", "Alice-0ld.pass").unwrap();
    let other = login(&c, "alice", "Alice-0ld.pass").unwrap();
    let bobs = login(&c, "bob", "B0b-0ld.pass").unwrap();
    let r = change_html(
        &c,
        &sid,
        "en",
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pass",
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let to = r.header("location").unwrap().to_string();
    assert!(to.contains("pwdchanged=") && to.contains("ended=1") && to.ends_with("#password"));
    // The page after the redirect says it, in the user's language.
    let path = to.split_once("127.0.0.1").unwrap().1;
    let path = &path[path.find('/').unwrap()..path.find('#').unwrap()];
    for lang in ["en", "fr"] {
        let page = c.get(
            &format!("{path}&lang={lang}"),
            &[("Cookie", &format!("lemonldap={sid}"))],
        );
        let ended = message(lang, "pwdOthersEnded", &[("count", "1")]);
        let want = format!("{} {ended}", message(lang, "PE35", &[]));
        assert_eq!(said(&page.text()), Some((35, want)), "{lang}");
    }
    // A link cannot make the page say it: another count, or another session's token.
    let forged = path.replace("ended=1", "ended=5");
    let page = c.get(&forged, &[("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(said(&page.text()), None, "{forged}");
    // The other session of alice is ended, hers and bob's live on.
    let alive = |id: &str| {
        c.get("/", &[JSON, ("Cookie", &format!("lemonldap={id}"))])
            .status
            == 200
    };
    assert!(alive(&sid) && alive(&bobs));
    assert!(!alive(&other), "the other session of alice is ended");
    assert!(login(&c, "alice", "Alice-0ld.pass").is_err());
    assert!(login(&c, "alice", "Alice-n3w.pass").is_ok());
    // A script gets LemonLDAP::NG's answer; the stored value is the configured scheme's.
    let r = change_json(
        &c,
        &sid,
        "Alice-n3w.pass",
        "Alice-th1rd.pass",
        "Alice-th1rd.pass",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), json!({"result": 1, "error": "35"}));
    let rows = crate::dbi::stored(&p.data().join("users.db"));
    let alice = rows.iter().find(|(l, _)| l == "alice").unwrap();
    assert!(
        alice.1.as_deref().unwrap().starts_with("{ssha512}"),
        "{rows:?}"
    );
    let log = p.log();
    assert!(
        log.contains("audit event=password_changed user=alice address=127.0.0.1 ended=1"),
        "{log}"
    );
    for secret in ["Alice-0ld.pass", "Alice-n3w.pass", "Alice-th1rd.pass"] {
        assert!(!log.contains(secret), "a password in the log: {log}");
    }
}

#[test]
fn the_old_password_is_checked_under_the_brute_force_lock() {
    let p = dbi_portal(
        json!({"bruteForceProtection": 1, "loginHistoryEnabled": 1}),
        true,
    );
    let c = p.client();
    let sid = login(&c, "alice", "Alice-0ld.pass").unwrap();
    for _ in 0..3 {
        let r = change_json(&c, &sid, "wrong", "Alice-n3w.pass", "Alice-n3w.pass");
        assert_eq!(answer(&r), (400, "39".into()), "{}", r.text());
    }
    // Locked: the right old password is refused, with the seconds left; the login too.
    let r = change_json(
        &c,
        &sid,
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pass",
    );
    assert_eq!(answer(&r), (400, "86".into()), "{}", r.text());
    let left = r.json()["lockTime"].as_i64().unwrap();
    assert!((29..=30).contains(&left), "{}", r.text());
    assert_eq!(r.header("retry-after"), Some(left.to_string().as_str()));
    assert_eq!(login(&c, "alice", "Alice-0ld.pass"), Err("86".into()));
    let r = change_html(
        &c,
        &sid,
        "en",
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pass",
    );
    let (code, text) = said(&r.text()).unwrap();
    assert_eq!(code, 86, "{text}");
    assert!(text.starts_with(&message("en", "PE86", &[])), "{text}");
    // Once the lock is over, the right one changes it.
    clock::advance(&p, 31);
    let r = change_json(
        &c,
        &sid,
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pass",
    );
    assert_eq!(answer(&r), (200, "35".into()), "{}", r.text());
    assert!(login(&c, "alice", "Alice-n3w.pass").is_ok());
}

#[test]
fn the_rules_choose_who_gives_the_old_password_and_who_follows_the_policy() {
    let p = dbi_portal(
        json!({
            "portalRequireOldPassword": "$_user eq \"bob\"",
            "passwordPolicyActivation": "$_user ne \"bob\"",
        }),
        false,
    );
    let c = p.client();
    let alice = login(&c, "alice", "Alice-0ld.pass").unwrap();
    let bob = login(&c, "bob", "B0b-0ld.pass").unwrap();
    let html = menu(&c, &alice, "en");
    assert!(!html.contains("id=\"oldpassword\""), "{html}");
    let html = menu(&c, &bob, "en");
    assert!(html.contains("id=\"oldpassword\""), "{html}");
    assert!(
        html.contains(&message("en", "passwordPolicyNone", &[])),
        "no policy for bob: {html}"
    );
    let r = change_json(&c, &alice, "", "weak", "weak");
    assert_eq!(answer(&r), (400, "29".into()), "{}", r.text());
    let r = change_json(&c, &alice, "", "Alice-n3w.pass", "Alice-n3w.pass");
    assert_eq!(answer(&r), (200, "35".into()), "{}", r.text());
    let r = change_json(&c, &bob, "", "weak", "weak");
    assert_eq!(answer(&r), (400, "27".into()), "{}", r.text());
    let r = change_json(&c, &bob, "B0b-0ld.pass", "weak", "weak");
    assert_eq!(answer(&r), (200, "35".into()), "{}", r.text());
    assert!(login(&c, "bob", "weak").is_ok());
}

#[test]
fn a_post_without_the_form_token_or_from_another_site_changes_nothing() {
    let p = dbi_portal(json!({}), false);
    let c = p.client();
    let sid = login(&c, "alice", "Alice-0ld.pass").unwrap();
    let cookie = format!("lemonldap={sid}");
    let fields = [
        ("oldpassword", "Alice-0ld.pass"),
        ("newpassword", "Alice-n3w.pass"),
        ("confirmpassword", "Alice-n3w.pass"),
    ];
    let r = c.post_form("/", &fields, &[("Cookie", &cookie)]);
    assert_eq!(said(&r.text()).map(|s| s.0), Some(81), "{}", r.text());
    let mut forged = fields.to_vec();
    forged.push(("token", "1.0123456789abcdef.00"));
    let r = c.post_form("/", &forged, &[("Cookie", &cookie)]);
    assert_eq!(said(&r.text()).map(|s| s.0), Some(82), "{}", r.text());
    let r = c.post_form(
        "/",
        &fields,
        &[JSON, ("Cookie", &cookie), ("Origin", "http://evil.example")],
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(login(&c, "alice", "Alice-0ld.pass").is_ok());
}

#[test]
fn a_user_table_out_of_reach_is_503_never_a_wrong_password() {
    let p = dbi_portal(json!({}), false);
    let c = p.client();
    let sid = login(&c, "alice", "Alice-0ld.pass").unwrap();
    // The same node started again on its sessions, its user table gone.
    let dir = p.stop_keep_data();
    std::fs::remove_file(dir.path().join("users.db")).unwrap();
    let p = Portal::builder().data(dir).start();
    let c = p.client();
    let r = change_json(
        &c,
        &sid,
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pass",
    );
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(
        r.header("retry-after").is_some(),
        "{:?}",
        r.header("retry-after")
    );
    assert_ne!(answer(&r).1, "39", "never a wrong old password");
    let r = change_html(
        &c,
        &sid,
        "en",
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pass",
    );
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(said(&r.text()), None, "{}", r.text());
    assert!(!p.log().contains("Alice-0ld.pass"), "{}", p.log());
}

#[test]
fn a_change_on_a_postgresql_user_table() {
    use crate::common::pg::{Cluster, USER};
    let cluster = Cluster::start();
    let mut conf = crate::dbi::dbi_conf(&cluster.chain());
    conf.insert("dbiAuthUser".into(), json!(USER));
    conf.insert("exportedVars".into(), json!({"uid": "login"}));
    conf.insert("passwordPolicyMinSize".into(), json!(10));
    let dir = crate::common::TempDir::new("passwd-pg");
    let db = dir.path().join("unused");
    let site = crate::dbi::Site::with_conf(dir, db, conf);
    site.init_with(&[("alice", "Alice-0ld.pass", &[])]);
    let p = site.start();
    let c = p.client();
    let sid = login(&c, "alice", "Alice-0ld.pass").unwrap();
    let other = login(&c, "alice", "Alice-0ld.pass").unwrap();
    let r = change_json(&c, &sid, "Alice-0ld.pass", "short", "short");
    assert_eq!(answer(&r), (400, "29".into()), "{}", r.text());
    let before = cluster.psql("SELECT password FROM users WHERE login = 'alice'");
    let r = change_json(
        &c,
        &sid,
        "Alice-0ld.pass",
        "Alice-n3w.pass",
        "Alice-n3w.pass",
    );
    assert_eq!(answer(&r), (200, "35".into()), "{}", r.text());
    let after = cluster.psql("SELECT password FROM users WHERE login = 'alice'");
    assert!(after.starts_with("{ssha512}") && after != before, "{after}");
    assert!(login(&c, "alice", "Alice-n3w.pass").is_ok());
    assert!(login(&c, "alice", "Alice-0ld.pass").is_err());
    let gone = c.get("/", &[JSON, ("Cookie", &format!("lemonldap={other}"))]);
    assert_eq!(gone.status, 401, "the other session is ended");
}
