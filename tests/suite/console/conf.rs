//! The console's configuration pages against the real server: versions, one version's keys
//! without secrets, the difference of two, and every form that saves a new number (relying
//! parties, main keys, signing keys, roll back), each with its author, log and audit line; a
//! refused change saves nothing and says why.
use super::common::config::cli;
use super::common::{Portal, Resp};
use super::manager::{console, get, post, token};
use serde_json::{Map, Value};

/// The stored configuration `num` (or the latest), as `limette config save` prints it.
pub fn stored(p: &Portal, num: Option<u64>) -> Map<String, Value> {
    let n = num.map(|n| n.to_string());
    let mut args = vec![];
    if let Some(n) = &n {
        args.extend(["-cfgNum", n.as_str()]);
    }
    args.push("save");
    let run = cli(p, &args);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"))
}

pub fn latest(p: &Portal) -> u64 {
    stored(p, None)["cfgNum"].as_u64().unwrap()
}

/// The hidden `base` of a page's forms.
fn base(html: &str) -> String {
    html.split("name=\"base\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no base in {html}"))
        .to_string()
}

/// Posts `fields` to `path` with the token and base of the page `path` (GET).
pub fn submit(p: &Portal, sid: &str, path: &str, fields: &[(&str, &str)]) -> Resp {
    let page = get(p, sid, path).text();
    let (t, b) = (token(&page), base(&page));
    let mut all = vec![("token", t.as_str()), ("base", b.as_str())];
    all.extend_from_slice(fields);
    post(p, sid, path, &all)
}

fn rp(doc: &Map<String, Value>, name: &str, short: &str) -> Value {
    doc["oidcRPMetaDataOptions"][name][format!("oidcRPMetaDataOptions{short}")].clone()
}

fn audited(p: &Portal, needle: &str) -> bool {
    p.log().lines().any(|l| l.contains(needle))
}

#[test]
fn the_configuration_pages_are_for_those_the_rules_allow() {
    let p = console().start();
    let (rose, mickey) = (p.login("rtyler"), p.login("msmith"));
    for sid in [&rose, &mickey] {
        for path in [
            "/manager/conf",
            "/manager/conf/1",
            "/manager/conf/diff?from=1&to=1",
        ] {
            assert_eq!(get(&p, sid, path).status, 403, "{path}");
        }
        let r = post(
            &p,
            sid,
            "/manager/conf",
            &[("action", "main"), ("timeout", "60")],
        );
        assert_eq!(r.status, 403);
    }
    let admin = p.login("dwho");
    let page = get(&p, &admin, "/manager/conf").text();
    assert!(page.contains("href=\"/manager/conf/1\""), "{page}");
    assert!(page.contains("class=\"cfgAuthor\""), "{page}");
    // A forged post (no token) saves nothing.
    let before = latest(&p);
    let r = post(
        &p,
        &admin,
        "/manager/conf",
        &[
            ("action", "main"),
            ("timeout", "60"),
            ("base", &before.to_string()),
        ],
    );
    assert_eq!(r.status, 403);
    assert_eq!(latest(&p), before);
    let fr = get(&p, &admin, "/manager/conf?lang=fr").text();
    assert!(fr.contains("Configurations disponibles"), "{fr}");
}

#[test]
fn relying_parties_are_added_edited_given_a_secret_and_deleted() {
    let p = console().start();
    let admin = p.login("dwho");
    let first = latest(&p);
    let r = submit(
        &p,
        &admin,
        "/manager/conf",
        &[
            ("action", "add"),
            ("name", "app"),
            ("client_id", "app-client"),
            ("display_name", "The App"),
            ("redirect_uris", "https://app.example.com/cb"),
            ("id_alg", "RS256"),
            ("flag_RequirePKCE", "1"),
            ("log", "a new app"),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("Cache-Control"), Some("no-store"));
    let html = r.text();
    let secret = html
        .split("<code>")
        .nth(1)
        .and_then(|s| s.split("</code>").next())
        .unwrap_or_else(|| panic!("no secret in {html}"))
        .to_string();
    let doc = stored(&p, None);
    let num = first + 1;
    assert_eq!(doc["cfgNum"], num);
    assert_eq!(rp(&doc, "app", "ClientSecret"), Value::from(secret.clone()));
    assert_eq!(rp(&doc, "app", "RequirePKCE"), Value::from(1));
    assert_eq!(
        (doc["cfgAuthor"].as_str(), doc["cfgAuthorIP"].as_str()),
        (Some("dwho"), Some("127.0.0.1"))
    );
    assert_eq!(doc["cfgLog"], "a new app");
    assert!(
        audited(
            &p,
            &format!(
                "audit event=manager_conf_save admin=dwho address=127.0.0.1 action=add num={num}"
            )
        ),
        "{}",
        p.log()
    );
    // The running server took it up, and no page shows the secret again.
    let status = get(&p, &admin, "/manager/").text();
    assert!(
        status.contains(&format!("<td id=\"mgrConfNumber\">{num}</td>")),
        "{status}"
    );
    for path in [
        format!("/manager/conf/{num}"),
        "/manager/conf/rp/app".into(),
        "/manager/conf".into(),
    ] {
        let page = get(&p, &admin, &path).text();
        assert!(!page.contains(&secret), "{path}: {page}");
    }
    assert!(get(&p, &admin, &format!("/manager/conf/{num}"))
        .text()
        .contains("(secret)"));
    // Its options.
    let r = submit(
        &p,
        &admin,
        "/manager/conf/rp/app",
        &[
            ("action", "edit"),
            ("client_id", "app-client"),
            ("display_name", "The Better App"),
            ("redirect_uris", "https://app.example.com/cb"),
            ("id_alg", "RS256"),
            ("flag_BypassConsent", "1"),
        ],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("Location"), Some("/manager/conf/rp/app"));
    let said = format!("saved as configuration {}", num + 1);
    let cookie = r
        .cookie("limetteflash")
        .expect("what was saved, for the next page");
    let next = p.client().get(
        "/manager/conf/rp/app",
        &[(
            "Cookie",
            &format!("lemonldap={admin}; limetteflash={cookie}"),
        )],
    );
    assert!(next.text().contains(&said), "{}", next.text());
    let doc = stored(&p, None);
    assert_eq!(rp(&doc, "app", "DisplayName"), "The Better App");
    assert_eq!(rp(&doc, "app", "BypassConsent"), Value::from(1));
    assert_eq!(rp(&doc, "app", "RequirePKCE"), Value::from(0));
    assert_eq!(rp(&doc, "app", "ClientSecret"), Value::from(secret.clone()));
    assert_eq!(doc["cfgLog"], "Edited relying party app");
    let r = submit(
        &p,
        &admin,
        "/manager/conf/rp/app",
        &[("action", "option"), ("key", "AuthnLevel"), ("value", "2")],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(rp(&stored(&p, None), "app", "AuthnLevel"), "2");
    // A new secret, shown once; the diff says it changed without either value.
    let r = submit(&p, &admin, "/manager/conf/rp/app", &[("action", "secret")]);
    assert_eq!(r.status, 200);
    let again = rp(&stored(&p, None), "app", "ClientSecret");
    assert_ne!(again, Value::from(secret.clone()));
    assert!(r.text().contains(again.as_str().unwrap()));
    let n = latest(&p);
    let diff = get(
        &p,
        &admin,
        &format!("/manager/conf/diff?from={}&to={n}", n - 1),
    )
    .text();
    assert!(
        diff.contains("oidcRPMetaDataOptions/app/oidcRPMetaDataOptionsClientSecret"),
        "{diff}"
    );
    assert!(
        !diff.contains(&secret) && !diff.contains(again.as_str().unwrap()),
        "{diff}"
    );
    // Deleted, from every per-RP hash.
    let delete = [("action", "delete"), ("confirm", "yes")];
    let r = submit(&p, &admin, "/manager/conf/rp/app", &delete);
    assert_eq!(r.status, 302);
    let doc = stored(&p, None);
    assert!(doc["oidcRPMetaDataOptions"].get("app").is_none());
    assert!(doc["oidcRPMetaDataExportedVars"].get("app").is_none());
    assert!(audited(&p, "action=delete"), "{}", p.log());
    assert_eq!(get(&p, &admin, "/manager/conf/rp/app").status, 404);
}

#[test]
fn a_refused_change_saves_nothing_and_says_why() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let r = submit(
        &p,
        &admin,
        "/manager/conf",
        &[("action", "main"), ("portal", "not a url")],
    );
    assert_eq!(r.status, 200);
    assert!(
        r.text().contains("role=\"alert\"") && r.text().contains("portal"),
        "{}",
        r.text()
    );
    assert_eq!(latest(&p), before);
    assert!(
        audited(&p, "audit event=manager_conf_refused admin=dwho"),
        "{}",
        p.log()
    );
    // A relying party the portal would disable.
    let r = submit(
        &p,
        &admin,
        "/manager/conf",
        &[
            ("action", "add"),
            ("name", "spa"),
            ("client_id", "spa"),
            ("redirect_uris", "https://spa.example.com/cb"),
            ("id_alg", "HS256"),
            ("flag_Public", "1"),
        ],
    );
    assert!(r.text().contains("would be disabled"), "{}", r.text());
    assert_eq!(latest(&p), before);
    // A form drawn from an older version.
    let page = get(&p, &admin, "/manager/conf").text();
    let r = submit(
        &p,
        &admin,
        "/manager/conf",
        &[("action", "main"), ("timeout", "3600")],
    );
    assert_eq!(r.status, 302);
    let stale = post(
        &p,
        &admin,
        "/manager/conf",
        &[
            ("token", &token(&page)),
            ("base", &base(&page)),
            ("action", "main"),
            ("timeout", "60"),
        ],
    );
    assert!(
        stale.text().contains("was saved after this page was drawn"),
        "{}",
        stale.text()
    );
    assert_eq!(latest(&p), before + 1);
}

#[test]
fn the_diff_shows_a_change_and_a_rollback_is_a_new_number_with_the_old_content() {
    let p = console().start();
    let admin = p.login("dwho");
    let old = latest(&p);
    let r = submit(
        &p,
        &admin,
        "/manager/conf",
        &[
            ("action", "main"),
            ("timeout", "3600"),
            ("domain", "127.0.0.1"),
        ],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let new = latest(&p);
    assert_eq!(stored(&p, None)["timeout"], 3600);
    let diff = get(
        &p,
        &admin,
        &format!("/manager/conf/diff?from={old}&to={new}"),
    )
    .text();
    assert!(
        diff.contains("<tr class=\"changed\"><td class=\"value\">timeout</td>"),
        "{diff}"
    );
    assert!(diff.contains("<td class=\"value\">3600</td>"), "{diff}");
    assert!(!diff.contains(">cfgNum</td>"), "{diff}");
    // Roll back from the old version's page.
    let page = get(&p, &admin, &format!("/manager/conf/{old}")).text();
    assert!(page.contains("id=\"rollback\""), "{page}");
    let r = post(
        &p,
        &admin,
        "/manager/conf",
        &[
            ("token", &token(&page)),
            ("base", &base(&page)),
            ("action", "rollback"),
            ("num", &old.to_string()),
            ("confirm", "yes"),
        ],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let back = latest(&p);
    assert_eq!(back, new + 1);
    let (a, b) = (stored(&p, Some(old)), stored(&p, Some(back)));
    let before = stored(&p, Some(new));
    // The settings go back; the signing keys stay those in force (tokens signed with them are
    // alive at the relying parties).
    let keys = |k: &str| k.starts_with("oidcService") && k.ends_with("Sig");
    let strip = |m: &Map<String, Value>| {
        let mut m = m.clone();
        m.retain(|k, _| !k.starts_with("cfg") && !keys(k));
        m
    };
    assert_eq!(strip(&a), strip(&b));
    let only_keys = |m: &Map<String, Value>| {
        let mut m = m.clone();
        m.retain(|k, _| keys(k));
        m
    };
    assert_eq!(only_keys(&before), only_keys(&b));
    assert_eq!(
        b["cfgLog"],
        format!("Rolled back to configuration {old} (signing keys kept)")
    );
    let diff = get(
        &p,
        &admin,
        &format!("/manager/conf/diff?from={old}&to={back}"),
    )
    .text();
    assert!(diff.contains("id=\"nodiff\""), "{diff}");
    // New signing keys: the private ones changed, their values on no page.
    let r = submit(&p, &admin, "/manager/conf", &[("action", "rotate")]);
    assert_eq!(r.status, 302, "{}", r.text());
    let rotated = latest(&p);
    assert_eq!(rotated, back + 1);
    let diff = get(
        &p,
        &admin,
        &format!("/manager/conf/diff?from={back}&to={rotated}"),
    )
    .text();
    assert!(diff.contains("PrivateKeySig</td><td>"), "{diff}");
    assert!(!diff.contains("PRIVATE KEY"), "{diff}");
    let view = get(&p, &admin, &format!("/manager/conf/{rotated}")).text();
    assert!(
        !view.contains("PRIVATE KEY") && view.contains("(secret)"),
        "{view}"
    );
    assert!(audited(&p, "action=rotate"), "{}", p.log());
}
