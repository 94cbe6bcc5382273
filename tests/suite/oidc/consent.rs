//! The consent page as a user reads it (the relying party's display name and logo, the
//! signed-in account, one sentence per scope with its raw name), and consents revoked from the
//! portal's menu: after it, the next authorization asks again. Both pages speak the request's
//! language (`Accept-Language: fr` gets French).
use crate::common::oidc::*;
use crate::common::Portal;
use serde_json::json;

/// The value of a hidden field.
fn field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in {html}"))
        + marker.len();
    html[at..at + html[at..].find('"').unwrap()].to_string()
}

fn portal() -> Portal {
    start(&[
        (
            "ask",
            rp(
                "ask",
                json!({"BypassConsent": 0, "DisplayName": "Tardis <Library>",
                    "Icon": "https://cdn.example.com/tardis.png"}),
            ),
        ),
        (
            "plain",
            rp("plain", json!({"BypassConsent": 0, "Icon": "tardis.png"})),
        ),
    ])
}

/// Accepts the consent page of `client` for the session `sid`.
fn consent(p: &Portal, sid: &str, client: &str) {
    let page = authorize(p, Some(sid), &query(client, ""), &[]).text();
    let f = [
        ("response_type", "code"),
        ("client_id", client),
        ("scope", "openid profile email"),
        ("redirect_uri", CB),
        ("state", "st1"),
        ("token", &field(&page, "token")),
        ("confirm", "1"),
    ];
    let cookie = format!("lemonldap={sid}");
    let r = p
        .client()
        .post_form("/oauth2/authorize", &f, &[("Cookie", &cookie)]);
    assert_eq!(r.status, 302, "{}", r.text());
}

fn menu(p: &Portal, sid: &str) -> String {
    let r = p
        .client()
        .get("/", &[("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(r.status, 200);
    r.text()
}

#[test]
fn the_page_names_the_application_the_account_and_each_scope() {
    let p = portal();
    let sid = p.login("dwho");
    let q = query("ask", "").replace("email", "email+phone+custom");
    let page = authorize(&p, Some(&sid), &q, &[]).text();
    assert!(
        page.contains("The application Tardis &lt;Library&gt; would like to:"),
        "{page}"
    );
    assert!(!page.contains(">ask<"), "the key is not shown: {page}");
    assert!(page.contains("Connected as <strong>Doctor Who</strong>"));
    for line in [
        "Know your identity <small>(openid)</small>",
        "Know your profile <small>(profile)</small>",
        "Know your email <small>(email)</small>",
        "Know your phone number <small>(phone)</small>",
        "Other information: <small>(custom)</small>",
    ] {
        assert!(page.contains(line), "{line}: {page}");
    }
    assert!(page.contains("<img src=\"https://cdn.example.com/tardis.png\""));
    // No display name: the key; a logo that is a file name: none.
    let page = authorize(&p, Some(&sid), &query("plain", ""), &[]).text();
    assert!(
        page.contains("The application plain would like to:"),
        "{page}"
    );
    assert!(!page.contains("tardis.png"), "{page}");
}

#[test]
fn a_consent_revoked_from_the_menu_is_asked_again() {
    let p = portal();
    let sid = p.login("dwho");
    assert!(
        !menu(&p, &sid).contains("id=\"oidcConsents\""),
        "no consent yet"
    );
    consent(&p, &sid, "ask");
    consent(&p, &sid, "plain");
    let page = menu(&p, &sid);
    assert!(page.contains("id=\"oidcConsents\""), "{page}");
    assert!(page.contains("<td>Tardis &lt;Library&gt;</td>"), "{page}");
    assert!(page.contains("<td>openid profile email</td>"));
    let cookie = format!("lemonldap={sid}");
    let revoke = |token: &str| {
        p.client().post_form(
            "/",
            &[("revokeConsent", "ask"), ("token", token)],
            &[("Cookie", &cookie)],
        )
    };
    // Without the page's token (or with another session's) nothing changes.
    let other = p.login("rtyler");
    consent(&p, &other, "ask");
    let foreign = field(&menu(&p, &other), "token");
    for bad in ["", "1.forged", foreign.as_str()] {
        let r = revoke(bad);
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.text().contains("role=\"alert\""), "{}", r.text());
        assert_eq!(
            authorize(&p, Some(&sid), &query("ask", ""), &[]).status,
            302
        );
    }
    let r = revoke(&field(&page, "token"));
    assert_eq!(r.status, 302, "{}", r.text());
    let back = format!("http://127.0.0.1:{}/#oidcConsents", p.port);
    assert_eq!(r.header("location"), Some(back.as_str()));
    // The menu says it, once.
    let said = r
        .cookie("limetteflash")
        .expect("the revocation said on the menu");
    let flash = format!("{cookie}; limetteflash={said}");
    let page = p.client().get("/", &[("Cookie", &flash)]).text();
    let done = "role=\"status\"><p>Your consent to Tardis &lt;Library&gt; was revoked.</p>";
    assert!(page.contains(done), "{page}");
    assert!(!menu(&p, &sid).contains("id=\"done\""));
    // The next authorization asks again; the other RP's consent stays.
    let r = authorize(&p, Some(&sid), &query("ask", ""), &[]);
    assert_eq!(r.status, 200, "consent asked again");
    assert!(r.text().contains("id=\"consent\""));
    assert_eq!(
        authorize(&p, Some(&sid), &query("plain", ""), &[]).status,
        302
    );
    let page = menu(&p, &sid);
    assert!(!page.contains("Tardis"), "{page}");
    assert!(page.contains("<td>plain</td>"));
}

#[test]
fn a_french_browser_reads_the_consent_and_its_revocation_in_french() {
    let p = portal();
    let sid = p.login("dwho");
    let fr = [("Accept-Language", "fr-FR,fr;q=0.9,en;q=0.5")];
    let q = query("ask", "").replace("email", "email+custom");
    let page = authorize(&p, Some(&sid), &q, &fr).text();
    assert!(page.contains("<html lang=\"fr\">"), "{page}");
    assert!(
        page.contains("L&#39;application Tardis &lt;Library&gt; voudrait :"),
        "{page}"
    );
    assert!(page.contains("Connecté en tant que <strong>Doctor Who</strong>"));
    for line in [
        "Connaître votre identité <small>(openid)</small>",
        "Connaître vos informations personnelles <small>(profile)</small>",
        "Connaître votre adresse électronique <small>(email)</small>",
        "Une autre information : <small>(custom)</small>",
    ] {
        assert!(page.contains(line), "{line}: {page}");
    }
    assert!(page.contains(">Accepter</button>") && page.contains(">Refuser</button>"));
    consent(&p, &sid, "ask");
    let cookie = format!("lemonldap={sid}");
    let menu = p
        .client()
        .get("/", &[("Cookie", &cookie), ("Accept-Language", "fr")])
        .text();
    assert!(menu.contains("<html lang=\"fr\">"), "{menu}");
    assert!(menu.contains("<h2>Accords OIDC</h2>"), "{menu}");
    assert!(
        menu.contains("<th scope=\"col\">Informations</th>"),
        "{menu}"
    );
    assert!(
        menu.contains("aria-label=\"Supprimer Tardis &lt;Library&gt;\">Supprimer</button>"),
        "{menu}"
    );
    assert!(
        menu.contains(" UTC</time>") && menu.contains(" à "),
        "{menu}"
    );
}
