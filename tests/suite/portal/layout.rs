//! The account bar and the menu's tiles as users meet them: the bar names the user on every
//! signed-in page (the menu, an error page) and links the console only for those its rules
//! let in, to the first console page they may open, and the second factors only for those who
//! may register one; its sign-out ends the session at once;
//! the applications show as tiles with their logo file, or a letter when the logo names no
//! file, and their description; past a dozen applications the filter (`?q=`) keeps the
//! matching ones only.
use crate::common::Portal;
use serde_json::{json, Value};

fn get(p: &Portal, sid: &str, path: &str) -> (u16, String) {
    let r = p
        .client()
        .get(path, &[("Cookie", &format!("lemonldap={sid}"))]);
    (r.status, r.text())
}

/// The account bar of a page (`<nav class="account" ...>...</nav>`), empty when there is none.
fn bar(html: &str) -> &str {
    html.split_once("<nav class=\"account\"")
        .and_then(|(_, r)| r.split_once("</nav>"))
        .map_or("", |(b, _)| b)
}

/// The names of the tiles a page shows, in order.
fn tiles(html: &str) -> Vec<String> {
    html.split("<span class=\"appname\">")
        .skip(1)
        .filter_map(|r| r.split('<').next())
        .map(str::to_string)
        .collect()
}

fn console_portal() -> Portal {
    Portal::builder()
        .ini("managerHost = manager.example.com")
        .conf(
            "locationRules",
            json!({"manager.example.com": {
                "(?#Sessions)^/sessions": "$uid eq \"dwho\" or $uid eq \"rtyler\"",
                "default": "$uid eq \"dwho\""
            }}),
        )
        .start()
}

#[test]
fn the_bar_names_the_user_and_links_the_console_only_for_those_allowed() {
    let p = console_portal();
    let dwho = p.login("dwho");
    let (status, menu) = get(&p, &dwho, "/");
    assert_eq!(status, 200);
    let b = bar(&menu);
    assert!(b.contains("<strong>Doctor Who</strong>"), "{menu}");
    assert!(b.contains("href=\"/manager/\""), "{b}");
    assert!(
        b.contains("aria-current=\"page\""),
        "the menu is marked: {b}"
    );
    assert!(b.contains("action=\"/?logout=1&amp;token="), "{b}");
    assert!(menu.contains("<a class=\"skip\" href=\"#main\">"), "{menu}");
    // rtyler may open the sessions page only: the link goes there.
    let rtyler = p.login("rtyler");
    let b = bar(&get(&p, &rtyler, "/").1).to_string();
    assert!(b.contains("<strong>Rose Tyler</strong>"), "{b}");
    assert!(b.contains("href=\"/manager/sessions\""), "{b}");
    assert!(!b.contains("href=\"/manager/\""), "{b}");
    let msmith = p.login("msmith");
    let (_, menu) = get(&p, &msmith, "/");
    assert!(!bar(&menu).is_empty(), "{menu}");
    assert!(!bar(&menu).contains("/manager"), "no console link: {menu}");
    // An error page of a signed-in user has the bar; a visitor's has none.
    let (status, error) = get(&p, &msmith, "/no/such/page");
    assert_eq!(status, 404);
    assert!(bar(&error).contains("Connected as"), "{error}");
    let anonymous = p.client().get("/no/such/page", &[]);
    assert_eq!(anonymous.status, 404);
    assert!(bar(&anonymous.text()).is_empty(), "{}", anonymous.text());
    // The console's own 403 page, for msmith, says who is signed in and offers no console.
    let (status, refused) = get(&p, &msmith, "/manager/");
    assert_eq!(status, 403);
    assert!(bar(&refused).contains("Connected as") && !bar(&refused).contains("/manager"));
}

#[test]
fn the_bar_signs_out_at_once_and_without_the_logout_rule_has_no_sign_out() {
    let p = console_portal();
    let sid = p.login("dwho");
    let (_, menu) = get(&p, &sid, "/");
    let action = bar(&menu)
        .split("action=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("the sign-out form")
        .replace("&amp;", "&");
    let r = p
        .client()
        .post_form(&action, &[], &[("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(r.status, 302, "signed out at once, not asked: {}", r.text());
    let (_, after) = get(&p, &sid, "/");
    assert!(bar(&after).is_empty(), "the session has ended: {after}");
    assert!(after.contains("name=\"password\""), "{after}");
    let p = Portal::builder()
        .conf("portalDisplayLogout", json!("$uid ne \"msmith\""))
        .start();
    let (_, menu) = get(&p, &p.login("msmith"), "/");
    assert!(
        bar(&menu).contains("<strong>Mickey Smith</strong>"),
        "{menu}"
    );
    assert!(!menu.contains("?logout=1"), "{menu}");
    let (_, menu) = get(&p, &p.login("dwho"), "/?lang=fr");
    assert!(bar(&menu).contains("Se déconnecter"), "{menu}");
}

#[test]
fn the_bar_links_the_second_factors_when_the_user_may_register_one() {
    let p = Portal::builder()
        .conf("totp2fActivation", json!(1))
        .conf("totp2fSelfRegistration", json!("$uid eq \"dwho\""))
        .start();
    let dwho = p.login("dwho");
    let b = bar(&get(&p, &dwho, "/").1).to_string();
    assert!(b.contains("/2fregisters\">Second factors</a>"), "{b}");
    // On the second factors' page, the bar marks it as the current one.
    let (status, page) = get(&p, &dwho, "/2fregisters/totp");
    assert_eq!(status, 200, "{page}");
    assert!(
        bar(&page).contains("aria-current=\"page\">Second factors</a>"),
        "{page}"
    );
    let (_, menu) = get(&p, &p.login("rtyler"), "/");
    assert!(
        !bar(&menu).is_empty() && !bar(&menu).contains("2fregisters"),
        "{menu}"
    );
}

/// `n` applications always shown, the first two with a logo name, the first one's file present.
fn many(n: usize) -> Value {
    let mut cat = json!({"type": "category", "catname": "Services"});
    for i in 0..n {
        let name = match i {
            0 => "Mail".to_string(),
            1 => "Calendar".to_string(),
            _ => format!("Tool {i}"),
        };
        let mut options = json!({"name": name, "uri": format!("http://s{i}.example.com/"),
            "display": "on", "description": format!("Description {i}")});
        match i {
            0 => options["logo"] = json!("mail.png"),
            1 => options["logo"] = json!("demo.png"),
            _ => {}
        }
        cat[format!("s{i:02}")] = json!({"type": "application", "options": options});
    }
    json!({ "1services": cat })
}

#[test]
fn tiles_show_a_logo_file_or_a_letter_and_the_description() {
    let p = Portal::builder().conf("applicationList", many(3)).start();
    let logos = p.data().join("static/common/apps");
    std::fs::create_dir_all(&logos).unwrap();
    let png = b"\x89PNG\r\n\x1a\n-not-decoded-by-the-server";
    std::fs::write(logos.join("mail.png"), png).unwrap();
    let sid = p.login("dwho");
    let (_, menu) = get(&p, &sid, "/");
    assert_eq!(tiles(&menu), ["Mail", "Calendar", "Tool 2"], "{menu}");
    assert!(
        menu.contains("<img class=\"applogo\" src=\"/static/common/apps/mail.png\""),
        "{menu}"
    );
    assert!(!menu.contains("demo.png"), "no file, no image: {menu}");
    assert!(menu.contains("<span class=\"badge\" aria-hidden=\"true\">C</span>"));
    assert!(menu.contains("<span class=\"appdesc\">Description 1</span>"));
    let logo = p.client().get("/static/common/apps/mail.png", &[]);
    assert_eq!(logo.status, 200);
    assert_eq!(logo.body, png.to_vec());
    // Three applications: no filter.
    assert!(!menu.contains("id=\"appq\""), "{menu}");
}

#[test]
fn past_a_dozen_the_filter_keeps_the_matching_applications_only() {
    let p = Portal::builder().conf("applicationList", many(13)).start();
    let sid = p.login("dwho");
    let (_, menu) = get(&p, &sid, "/");
    assert_eq!(tiles(&menu).len(), 13);
    assert!(
        menu.contains("<form class=\"appfilter\" method=\"get\""),
        "{menu}"
    );
    assert!(menu.contains("name=\"q\""));
    let (_, found) = get(&p, &sid, "/?q=CALENDAR");
    assert_eq!(tiles(&found), ["Calendar"], "{found}");
    assert!(
        found.contains("value=\"CALENDAR\""),
        "the words stay in the box"
    );
    assert!(
        found.contains("Applications matching “CALENDAR”: 1."),
        "{found}"
    );
    let (_, by_desc) = get(&p, &sid, "/?q=description%201");
    assert_eq!(
        tiles(&by_desc),
        ["Calendar", "Tool 10", "Tool 11", "Tool 12"],
        "{by_desc}"
    );
    let (_, none) = get(&p, &sid, "/?q=%3Cb%3Ezzz&lang=fr");
    assert!(tiles(&none).is_empty());
    assert!(
        none.contains("Aucune application ne correspond à « &lt;b&gt;zzz »."),
        "{none}"
    );
    assert!(!none.contains("<b>zzz"));
}
