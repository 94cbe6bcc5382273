//! The pages speak the user's language: `?lang=` (remembered in LemonLDAP::NG's `llnglanguage`
//! cookie), then that cookie, then `Accept-Language`; error pages and `/error/<lang>/<n>`
//! agree; and a logout from a link asks first.
use super::{field, form_token, post_login, shown_error};
use crate::common::Portal;

#[test]
fn a_french_browser_gets_french_and_the_switch_is_remembered() {
    let p = Portal::start();
    let c = p.client();
    let fr = c.get("/", &[("Accept-Language", "fr-FR,fr;q=0.9,en;q=0.5")]);
    let html = fr.text();
    assert!(html.contains("<html lang=\"fr\">"), "{html}");
    assert!(html.contains(">Mot de passe</label>"), "{html}");
    assert!(html.contains("href=\"/?lang=en\""), "the switch: {html}");
    assert!(fr.cookie("llnglanguage").is_none(), "nothing chosen yet");
    let en = c.get("/", &[("Accept-Language", "de, en;q=0.8")]);
    assert!(en.text().contains("<html lang=\"en\">"));
    // The switch answers in the chosen language and remembers it for ten years.
    let switched = c.get("/?lang=en", &[("Accept-Language", "fr")]);
    assert!(switched.text().contains(">Password</label>"));
    let set = switched
        .header("set-cookie")
        .unwrap_or_default()
        .to_string();
    assert!(
        set.starts_with("llnglanguage=en; path=/; max-age=315360000"),
        "{set}"
    );
    let again = c.get(
        "/",
        &[("Accept-Language", "fr"), ("Cookie", "llnglanguage=en")],
    );
    assert!(again.text().contains("<html lang=\"en\">"));
    // LemonLDAP::NG's own parameter works too, remembered only when asked.
    let llng = c.get("/?llnglanguage=fr", &[]);
    assert!(llng.text().contains("<html lang=\"fr\">"));
    assert!(llng.cookie("llnglanguage").is_none());
}

#[test]
fn errors_speak_the_pages_language() {
    let p = Portal::start();
    let c = p.client();
    let wrong = c.post_form(
        "/",
        &[
            ("user", "dwho"),
            ("password", "x"),
            ("token", &form_token(&p)),
        ],
        &[("Cookie", "llnglanguage=fr")],
    );
    assert_eq!(shown_error(&wrong.text()), Some(5));
    assert!(wrong
        .text()
        .contains("Identifiant ou mot de passe incorrect"));
    assert!(wrong.text().contains("role=\"alert\""));
    let missing = c.get("/no/such/page", &[("Accept-Language", "fr")]);
    assert_eq!(missing.status, 404);
    let html = missing.text();
    assert!(
        html.contains("<html lang=\"fr\">") && html.contains("<h1>Page introuvable</h1>"),
        "{html}"
    );
    let en = c.get("/no/such/page", &[]).text();
    assert!(
        en.contains("<html lang=\"en\">") && en.contains("<h1>Page not found</h1>"),
        "{en}"
    );
    let r = c.get("/error/fr/5", &[]).json();
    assert_eq!(r["errorsFileURL"], "/static/languages/fr.json");
    let file = c.get("/static/languages/fr.json", &[]).json();
    assert_eq!(file["PE5"], "Identifiant ou mot de passe incorrect");
    let unknown = c.get("/error/de/5", &[]).json();
    assert_eq!(unknown["lang"], "en", "a language no page speaks: English");
}

#[test]
fn a_logout_link_asks_first_and_the_portals_own_form_does_not() {
    let p = Portal::start();
    let c = p.client();
    let login = post_login(&c, "dwho", &form_token(&p));
    assert_eq!(login.status, 302, "post/redirect/get");
    let sid = login.cookie("lemonldap").unwrap();
    let cookie = format!("lemonldap={sid}");
    let me = |sid: &str| {
        c.get(
            "/",
            &[
                ("Accept", "application/json"),
                ("Cookie", &format!("lemonldap={sid}")),
            ],
        )
        .status
    };
    // A link from elsewhere: asked, still signed in.
    let ask = c.get("/?logout=1", &[("Cookie", &cookie)]);
    assert_eq!(ask.status, 200);
    assert!(
        ask.text().contains("id=\"logout-confirm\""),
        "{}",
        ask.text()
    );
    assert!(ask.cookie("lemonldap").is_none());
    assert_eq!(me(&sid), 200);
    // A forged token is a question again.
    let forged = c.post_form(
        "/?logout=1",
        &[("token", "1.0123456789abcdef.x")],
        &[("Cookie", &cookie)],
    );
    assert!(forged.text().contains("id=\"logout-confirm\""));
    assert_eq!(me(&sid), 200);
    // The landing page's button ends the session and goes on to the signed-out page.
    let landing = c.get("/", &[("Cookie", &cookie)]).text();
    let token = field(&landing, "token");
    let out = c.post_form("/?logout=1", &[("token", &token)], &[("Cookie", &cookie)]);
    assert_eq!(out.status, 302, "{}", out.text());
    assert_eq!(out.cookie("lemonldap").as_deref(), Some("0"));
    assert_ne!(me(&sid), 200);
    assert!(out.header("location").unwrap().ends_with("/?loggedout=1"));
    let after = c.get("/?loggedout=1", &[]);
    assert_eq!(shown_error(&after.text()), Some(47), "{}", after.text());
}
