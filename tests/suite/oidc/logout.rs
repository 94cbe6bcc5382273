//! RP-initiated logout as a cross-site attacker meets it: a bare GET, a forged POST, a hint of
//! another user or session, an unregistered redirect; and as the user and the RP use it: the
//! confirmation, a valid hint with `LogoutBypassConfirm`.
use crate::common::oidc::*;
use crate::common::{Portal, Resp};
use serde_json::json;

const BYE: &str = "http://127.0.0.1:19999/bye";

/// `rp1` skips the confirmation for a valid hint; `rp1hs` does not.
fn portal() -> Portal {
    start(&[
        ("rp1", rp("rp1", json!({"LogoutBypassConfirm": 1}))),
        ("rp1hs", rp("rp1hs", json!({}))),
    ])
}

fn id_token(p: &Portal, sid: &str, client: &str) -> String {
    let r = redeem(p, client, &code(p, sid, client, ""));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["id_token"].as_str().unwrap().to_string()
}

fn alive(p: &Portal, sid: &str) -> bool {
    let cookie = format!("lemonldap={sid}");
    let r = p
        .client()
        .get("/", &[("Cookie", &cookie), ("Accept", "application/json")]);
    r.status == 200
}

fn get(p: &Portal, sid: &str, query: &str) -> Resp {
    let cookie = format!("lemonldap={sid}");
    p.client()
        .get(&format!("/oauth2/logout{query}"), &[("Cookie", &cookie)])
}

fn post(p: &Portal, sid: &str, fields: &[(&str, &str)]) -> Resp {
    let cookie = format!("lemonldap={sid}");
    p.client()
        .post_form("/oauth2/logout", fields, &[("Cookie", &cookie)])
}

/// The confirmation page's token, asserting the page is a confirmation form.
fn confirmation_token(r: &Resp) -> String {
    let page = r.text();
    assert_eq!(r.status, 200, "{page}");
    assert!(page.contains("id=\"logout-confirm\""), "{page}");
    assert!(page.contains("<form method=\"post\""), "{page}");
    assert!(r.header("location").is_none());
    assert!(r.cookie("lemonldap").is_none(), "no cookie is cleared");
    let start = page.find("name=\"token\" value=\"").expect("a token") + 20;
    page[start..].split('"').next().unwrap().to_string()
}

#[test]
fn a_bare_get_asks_and_leaves_the_session_alive() {
    let p = portal();
    let sid = p.login("dwho");
    for r in [
        get(&p, &sid, ""),
        get(&p, &sid, "?client_id=rp1"),
        post(&p, &sid, &[]),
    ] {
        confirmation_token(&r);
        assert!(alive(&p, &sid), "a page on the web cannot log the user out");
    }
    // The page escapes what it echoes.
    let r = get(&p, &sid, "?state=%22%3E%3Cscript%3Ex%3C%2Fscript%3E");
    assert!(!r.text().contains("<script>x"), "{}", r.text());
    assert!(r.text().contains("&quot;&gt;&lt;script&gt;"));
}

#[test]
fn a_cross_site_post_without_the_token_is_refused() {
    let p = portal();
    let sid = p.login("dwho");
    let other = p.login("rtyler");
    let others_token = confirmation_token(&get(&p, &other, ""));
    for fields in [
        vec![("confirm", "1")],
        vec![("confirm", "1"), ("token", "")],
        vec![("confirm", "1"), ("token", "1.abcdef")],
        vec![("confirm", "1"), ("token", others_token.as_str())],
    ] {
        let r = post(&p, &sid, &fields);
        assert_eq!(r.status, 403, "{fields:?}");
        assert!(r.text().contains("id=\"logout-confirm\""));
        assert!(alive(&p, &sid), "{fields:?}");
    }
    // The token is no use in a GET either (it would leak through Referer).
    let token = confirmation_token(&get(&p, &sid, ""));
    get(&p, &sid, &format!("?confirm=1&token={}", enc(&token)));
    assert!(alive(&p, &sid));
    assert!(alive(&p, &other));
}

#[test]
fn confirming_logs_out_and_follows_the_registered_uri() {
    let p = portal();
    let sid = p.login("dwho");
    let token = confirmation_token(&get(&p, &sid, ""));
    let r = post(&p, &sid, &[("confirm", "1"), ("token", &token)]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("id=\"loggedout\""));
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    assert!(!alive(&p, &sid));
    let log = p.log();
    assert!(
        log.contains("audit event=oidc_logout user=dwho client=\"\" by=confirmed"),
        "{log}"
    );
    assert!(!log.contains(&sid) && !log.contains(&token), "{log}");

    // With a hint of an RP that does not bypass, as LemonLDAP::NG: asked, then redirected.
    let sid = p.login("dwho");
    let idt = id_token(&p, &sid, "rp1hs");
    let q = format!(
        "?id_token_hint={idt}&post_logout_redirect_uri={}&state=s1",
        enc(BYE)
    );
    let token = confirmation_token(&get(&p, &sid, &q));
    assert!(alive(&p, &sid));
    let r = post(
        &p,
        &sid,
        &[
            ("id_token_hint", &idt),
            ("post_logout_redirect_uri", BYE),
            ("state", "s1"),
            ("confirm", "1"),
            ("token", &token),
        ],
    );
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some(&*format!("{BYE}?state=s1")));
    assert!(!alive(&p, &sid));
    assert!(p.log().contains("client=rp1hs by=confirmed"));
}

#[test]
fn a_valid_hint_with_bypass_logs_out_directly() {
    let p = portal();
    let sid = p.login("dwho");
    let idt = id_token(&p, &sid, "rp1");
    let r = get(
        &p,
        &sid,
        &format!(
            "?id_token_hint={idt}&post_logout_redirect_uri={}&state=bye1",
            enc(BYE)
        ),
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some(&*format!("{BYE}?state=bye1")));
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    assert!(!alive(&p, &sid));
    assert!(p.log().contains("client=rp1 by=id_token_hint"));
}

#[test]
fn an_unregistered_redirect_is_refused() {
    let p = portal();
    let sid = p.login("dwho");
    let idt = id_token(&p, &sid, "rp1");
    for q in [
        format!(
            "?id_token_hint={idt}&post_logout_redirect_uri={}",
            enc("http://evil.example/")
        ),
        format!("?post_logout_redirect_uri={}", enc(BYE)),
        format!(
            "?client_id=rp1&post_logout_redirect_uri={}",
            enc("http://127.0.0.1:19999/bye/../evil")
        ),
        format!(
            "?client_id=rp1hs&id_token_hint={idt}&post_logout_redirect_uri={}",
            enc(BYE)
        ),
    ] {
        let r = get(&p, &sid, &q);
        assert_eq!(r.status, 400, "{q}: {}", r.text());
        assert!(r.header("location").is_none());
        assert!(alive(&p, &sid), "{q}");
    }
}

#[test]
fn a_hint_of_another_user_or_session_or_forged_is_not_honoured() {
    let p = portal();
    let old = p.login("dwho");
    let old_hint = id_token(&p, &old, "rp1");
    let sid = p.login("dwho");
    let rose = p.login("rtyler");
    let rose_hint = id_token(&p, &rose, "rp1");
    let with = |h: &str| format!("?id_token_hint={h}&post_logout_redirect_uri={}", enc(BYE));
    // Valid hints, but not of this session: asked, not logged out.
    confirmation_token(&get(&p, &sid, &with(&rose_hint)));
    confirmation_token(&get(&p, &sid, &with(&old_hint)));
    assert!(alive(&p, &sid));
    // A forged signature, or a hint signed with another RP's secret: refused outright.
    let mut forged = old_hint.clone().into_bytes();
    let i = forged.len() - 10;
    forged[i] = if forged[i] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    assert_eq!(get(&p, &sid, &with(&forged)).status, 400);
    let claims = jwt_part(&old_hint, 1);
    let other_key =
        limette::oidc::jwt::sign_hs256(claims.as_object().unwrap(), b"not the secret of rp1");
    assert_eq!(get(&p, &sid, &with(&other_key)).status, 400);
    assert!(alive(&p, &sid) && alive(&p, &old) && alive(&p, &rose));
}

#[test]
fn without_a_session_a_valid_hint_goes_back_to_the_rp() {
    let p = portal();
    let sid = p.login("dwho");
    let idt = id_token(&p, &sid, "rp1hs");
    let q = format!(
        "/oauth2/logout?id_token_hint={idt}&post_logout_redirect_uri={}&state=z",
        enc(BYE)
    );
    let r = p.client().get(&q, &[]);
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some(&*format!("{BYE}?state=z")));
    assert!(alive(&p, &sid), "nothing named the session");
}
