//! Language and time in the console, against the real server: dates in the browser's time zone
//! (the `limette_tz` cookie) or `portalTimezone`, the zone written after the time; an unknown or
//! malformed zone shows UTC, labelled so; the version list with date, author, address and log
//! message; a session's details readable (no raw epoch or stamp); notifications by title.
use super::manager::{console, get, post, token};
use crate::common::{command, config::poll, Portal};
use serde_json::json;
use std::time::Duration;

/// 2024-07-01 12:00:00 UTC (summer in Paris: CEST, UTC+2).
const SUMMER: i64 = 1_719_835_200;

/// The console's configuration page as `sid`, with `cookies` added.
fn conf_page(p: &Portal, sid: &str, cookies: &str, query: &str) -> String {
    let cookie = format!("lemonldap={sid}{cookies}");
    let r = p
        .client()
        .get(&format!("/manager/conf{query}"), &[("Cookie", &cookie)]);
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

/// The `<time>` element of the summer instant as a page writes it.
fn summer(text: &str) -> String {
    format!("<time datetime=\"2024-07-01T12:00:00Z\">{text}</time>")
}

#[test]
fn dates_follow_the_browser_zone_and_the_version_list_says_who_and_why() {
    let p = console()
        .conf("cfgDate", json!(SUMMER))
        .conf("cfgAuthor", json!("alice"))
        .conf("cfgAuthorIP", json!("192.0.2.7"))
        .conf("cfgLog", json!("Opened the console"))
        .start();
    let sid = p.login("dwho");
    let paris = conf_page(&p, &sid, "; limette_tz=Europe/Paris", "");
    let versions = paris
        .split("id=\"versions\"")
        .nth(1)
        .expect("the version list");
    let versions = versions.split("</table>").next().unwrap_or_default();
    assert!(
        versions.contains(&summer("July 1, 2024, 14:00 CEST")),
        "{versions}"
    );
    for shown in [
        "alice",
        "192.0.2.7",
        "Opened the console",
        "href=\"/manager/conf/1\"",
    ] {
        assert!(versions.contains(shown), "{shown}: {versions}");
    }
    let fr = conf_page(&p, &sid, "; limette_tz=Europe/Paris", "?lang=fr");
    assert!(fr.contains(&summer("1 juillet 2024 à 14:00 CEST")), "{fr}");
    assert!(
        fr.contains("Auteur") && fr.contains("Message de journal"),
        "{fr}"
    );
    let tokyo = conf_page(&p, &sid, "; limette_tz=Asia/Tokyo", "");
    assert!(
        tokyo.contains(&summer("July 1, 2024, 21:00 JST")),
        "{tokyo}"
    );
    // A zone the system does not know, a malformed cookie, no cookie: UTC, said so.
    for cookies in [
        "; limette_tz=Mars/Olympus",
        "; limette_tz=../../etc/passwd",
        "",
    ] {
        let page = conf_page(&p, &sid, cookies, "");
        assert!(
            page.contains(&summer("July 1, 2024, 12:00 UTC")),
            "{cookies}: {page}"
        );
        assert!(!page.contains("CEST"), "{cookies}");
    }
    // Every page loads the script that tells the zone; the script is served under the policy.
    assert!(
        paris.contains("<script src=\"/static/timezone.js\" defer></script>"),
        "{paris}"
    );
    let js = p.client().get("/static/timezone.js", &[]);
    assert_eq!(js.status, 200);
    assert!(js.text().contains("resolvedOptions().timeZone") && js.text().contains("limette_tz="));
}

#[test]
fn portal_timezone_is_the_default_and_an_unknown_one_is_refused() {
    let p = console()
        .conf("cfgDate", json!(SUMMER))
        .conf("portalTimezone", json!("America/New_York"))
        .start();
    let sid = p.login("dwho");
    let page = conf_page(&p, &sid, "", "");
    assert!(page.contains(&summer("July 1, 2024, 08:00 EDT")), "{page}");
    // The browser's zone wins over the default.
    let page = conf_page(&p, &sid, "; limette_tz=Europe/Paris", "");
    assert!(page.contains(&summer("July 1, 2024, 14:00 CEST")), "{page}");
    let dir = p.stop_keep_data();
    let ini = dir.path().join("limette.ini");
    let text = std::fs::read_to_string(&ini).unwrap();
    std::fs::write(
        &ini,
        text.replace("[portal]\n", "[portal]\nportalTimezone = Mars/Olympus\n"),
    )
    .unwrap();
    let mut child = command(&ini, dir.path(), &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if !poll(Duration::from_secs(20), || {
        child.try_wait().unwrap().is_some()
    }) {
        let _ = child.kill();
    }
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("portalTimezone") && err.contains("Mars/Olympus"),
        "{err}"
    );
}

#[test]
fn a_session_reads_as_dates_durations_and_lists() {
    let p = console().start();
    let sid = p.login("dwho");
    let cookie = format!("lemonldap={sid}; limette_tz=Europe/Paris");
    let r = p
        .client()
        .get(&format!("/manager/sessions/{sid}"), &[("Cookie", &cookie)]);
    assert_eq!(r.status, 200, "{}", r.text());
    let html = r.text();
    let table = html
        .split("id=\"attributes\"")
        .nth(1)
        .expect("the attributes");
    let table = table.split("</table>").next().unwrap_or_default();
    // The stored values, as the session file holds them.
    let file = std::fs::read(p.data().join("sessions").join(&sid)).expect("the session file");
    let raw: serde_json::Value = serde_json::from_slice(&file).unwrap();
    for key in ["_utime", "_startTime", "_updateTime", "_lastSeen"] {
        let Some(v) = raw.get(key) else { continue };
        let v = v
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string());
        assert!(!table.contains(&v), "{key} = {v} shown raw: {table}");
    }
    assert!(
        raw.get("_utime").is_some() && raw.get("_startTime").is_some(),
        "{raw}"
    );
    let row = |key: &str| {
        let at = table
            .find(&format!(">{key}</th>"))
            .unwrap_or_else(|| panic!("{key}: {table}"));
        table[at..]
            .split("</tr>")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    for key in ["_utime", "_startTime"] {
        let r = row(key);
        assert!(
            r.contains("<time datetime=\"")
                && (r.contains(" CET</time>") || r.contains(" CEST</time>")),
            "{key}: {r}"
        );
    }
    // The demo directory's groups, one item each.
    let groups = row("groups");
    assert!(
        groups.contains("<li>timelords</li>") && groups.contains("<ul class=\"values\">"),
        "{groups}"
    );
    assert!(
        row("hGroups").contains("<li>timelords</li>"),
        "{}",
        row("hGroups")
    );
    // When it ends, and how long is left (the default timeout: 20 h).
    let ends = html
        .split("id=\"ends\"")
        .nth(1)
        .expect("the end of the session");
    let ends = ends.split("</tr>").next().unwrap_or_default();
    assert!(
        ends.contains("(in 19 h 59 min)") || ends.contains("(in 20 h)"),
        "{ends}"
    );
    let fr = get(&p, &sid, &format!("/manager/sessions/{sid}?lang=fr")).text();
    assert!(fr.contains("Fin de la session"), "{fr}");
    assert!(
        fr.contains("(dans 19 h 59 min)") || fr.contains("(dans 20 h)"),
        "{fr}"
    );
}

#[test]
fn notifications_are_listed_by_title() {
    let p = console().start();
    let admin = p.login("dwho");
    let t = token(&get(&p, &admin, "/manager/notifications").text());
    let created = post(
        &p,
        &admin,
        "/manager/notifications",
        &[
            ("token", &t),
            ("action", "create"),
            ("uid", "rtyler"),
            ("date", "2024-01-02"),
            ("reference", "cgu-2024"),
            ("title", "Terms of use"),
            ("subtitle", "Read them"),
            ("text", "The terms."),
            ("check", "I agree"),
            ("condition", ""),
        ],
    );
    assert_eq!(created.status, 302, "{}", created.text());
    for (lang, head, day) in [
        ("en", "Title", "January 2, 2024"),
        ("fr", "Titre", "2 janvier 2024"),
    ] {
        let page = get(&p, &admin, &format!("/manager/notifications?lang={lang}")).text();
        let table = page
            .split("id=\"notifications\"")
            .nth(1)
            .expect("the table");
        assert!(
            table.contains(&format!("<th scope=\"col\">{head}</th>")),
            "{table}"
        );
        assert!(
            table.contains("Terms of use<br><small class=\"reference\">cgu-2024</small>"),
            "{table}"
        );
        let day = format!("<time datetime=\"2024-01-02\">{day}</time>");
        assert!(table.contains(&day), "{table}");
    }
}

#[test]
fn the_version_list_is_paged_newest_first() {
    let p = console().start();
    let sid = p.login("dwho");
    // Versions 2..=23 beside the first, each with its own log message.
    let dir = p.data().join("conf");
    let first: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("lmConf-1.json")).unwrap()).unwrap();
    for n in 2..=23 {
        let mut c = first.clone();
        c["cfgNum"] = json!(n);
        c["cfgLog"] = json!(format!("Change number {n}"));
        c["cfgDate"] = json!(SUMMER + n);
        std::fs::write(dir.join(format!("lmConf-{n}.json")), c.to_string()).unwrap();
    }
    let list = |page: &str| {
        let html = conf_page(&p, &sid, "", page);
        let v = html
            .split("id=\"versions\"")
            .nth(1)
            .expect("the list")
            .to_string();
        v.split("</nav>").next().unwrap_or_default().to_string()
    };
    let one = list("");
    let shown = one.matches("href=\"/manager/conf/").count();
    assert_eq!(shown, 20, "{one}");
    assert!(
        one.contains("Change number 23") && one.contains("Change number 4"),
        "{one}"
    );
    assert!(!one.contains("Change number 3<"), "{one}");
    assert!(
        one.find("Change number 23") < one.find("Change number 22"),
        "newest first"
    );
    assert!(
        one.contains("Page 1 of 2") && one.contains("href=\"/manager/conf?versions=2#versions\""),
        "{one}"
    );
    let two = list("?versions=2");
    assert!(
        two.contains("Change number 3<") && two.contains("href=\"/manager/conf/1\""),
        "{two}"
    );
    assert!(!two.contains("Change number 4<"), "{two}");
    assert!(
        two.contains("Page 2 of 2") && two.contains("Newer versions"),
        "{two}"
    );
    // A page beyond the last, or not a number: the nearest page.
    assert!(list("?versions=99").contains("Page 2 of 2"));
    assert!(list("?versions=x").contains("Page 1 of 2"));
}
