//! Discovery, userinfo, introspection, RP-initiated logout, configuration switches.
use super::oauth_err;
use crate::common::oidc::*;
use crate::common::Portal;
use serde_json::json;

#[test]
fn discovery_advertises_what_is_supported() {
    let p = start_default();
    let r = p.client().get("/.well-known/openid-configuration", &[]);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("cache-control"),
        Some("no-cache, no-store, must-revalidate")
    );
    let m = r.json();
    let iss = p.url("/");
    assert_eq!(m["issuer"], iss);
    assert_eq!(
        m["authorization_endpoint"],
        format!("{iss}oauth2/authorize")
    );
    assert_eq!(m["token_endpoint"], format!("{iss}oauth2/token"));
    assert_eq!(m["end_session_endpoint"], format!("{iss}oauth2/logout"));
    // HMAC only: no RP needs a provider key, so none was made and none is advertised.
    assert_eq!(
        m["id_token_signing_alg_values_supported"],
        json!(["HS256", "HS384", "HS512"])
    );
    assert_eq!(m["response_types_supported"], json!(["code"]));
    assert_eq!(
        m["code_challenge_methods_supported"],
        json!(["plain", "S256"])
    );
    let jwks = p.client().get("/oauth2/jwks", &[]);
    assert_eq!(jwks.json(), json!({"keys": []}));
    assert_eq!(jwks.header("cache-control"), Some("public, max-age=3600"));
}

#[test]
fn userinfo_by_scope_and_token_location() {
    let p = start_default();
    let sid = p.login("dwho");
    let at = |extra: &str| {
        let q = query("rp1", "").replace("scope=openid+profile+email", extra);
        let r = authorize(&p, Some(&sid), &q, &[]);
        let c = param(r.header("location").unwrap(), "code").unwrap();
        redeem(&p, "rp1", &c).json()["access_token"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let full = at("scope=openid+profile+email");
    let want = json!({"sub": "dwho", "name": "Doctor Who", "preferred_username": "dwho", "email": "dwho@badwolf.org"});
    let c = p.client();
    assert_eq!(
        c.get(
            "/oauth2/userinfo",
            &[("Authorization", &format!("Bearer {full}"))]
        )
        .json(),
        want
    );
    assert_eq!(
        c.get(
            "/oauth2/userinfo",
            &[("Authorization", &format!("bearer {full}"))]
        )
        .json(),
        want
    );
    assert_eq!(
        c.post_form("/oauth2/userinfo", &[("access_token", &full)], &[])
            .json(),
        want
    );
    assert_eq!(
        c.get(&format!("/oauth2/userinfo?access_token={full}"), &[])
            .json(),
        want
    );
    let auth = format!("Bearer {full}");
    assert_eq!(
        c.post_form("/oauth2/userinfo", &[], &[("Authorization", &auth)])
            .json(),
        want
    );
    assert_eq!(
        c.get(
            &format!("/oauth2/userinfo?access_token={}", at("scope=openid")),
            &[]
        )
        .json(),
        json!({"sub": "dwho"})
    );
    let email = at("scope=openid+email");
    let r = c.get(&format!("/oauth2/userinfo?access_token={email}"), &[]);
    assert_eq!(
        r.json(),
        json!({"sub": "dwho", "email": "dwho@badwolf.org"})
    );
    // RFC 6750 errors.
    let r = c.get("/oauth2/userinfo", &[]);
    assert_eq!(
        (r.status, r.header("www-authenticate")),
        (401, Some("Bearer"))
    );
    let r = c.get("/oauth2/userinfo", &[("Authorization", "Bearer nope")]);
    assert_eq!(
        (r.status, r.header("www-authenticate")),
        (401, Some("Bearer error=\"invalid_token\""))
    );
    // The SSO session is gone: the token is dead.
    let r = c.get(
        "/?logout=1",
        &[
            ("Cookie", &format!("lemonldap={sid}")),
            ("Accept", "application/json"),
        ],
    );
    assert_eq!(r.status, 200);
    let r = c.get("/oauth2/userinfo", &[("Authorization", &auth)]);
    assert_eq!(
        (r.status, r.header("www-authenticate")),
        (401, Some("Bearer error=\"invalid_token\""))
    );
}

#[test]
fn introspection() {
    let p = start_default();
    let sid = p.login("dwho");
    let at = redeem(&p, "rp1", &code(&p, &sid, "rp1", "")).json()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let c = p.client();
    let r = c.post_form(
        "/oauth2/introspect",
        &[("token", &at)],
        &[("Authorization", &basic("rp1", SECRET))],
    );
    assert_eq!(r.status, 200);
    let j = r.json();
    assert_eq!(
        (
            j["active"].clone(),
            j["client_id"].clone(),
            j["sub"].clone()
        ),
        (json!(true), json!("rp1"), json!("dwho"))
    );
    assert_eq!(j["iss"], p.url("/"));
    assert_eq!(j["scope"], "openid profile email");
    assert!(j["exp"].as_i64().unwrap() > 0);
    let r = c.post_form(
        "/oauth2/introspect",
        &[("token", &"a".repeat(64))],
        &[("Authorization", &basic("rp1", SECRET))],
    );
    assert_eq!(r.json(), json!({"active": false}));
    let r = c.post_form("/oauth2/introspect", &[("token", &at)], &[]);
    assert_eq!(oauth_err(&r), (400, "invalid_client".into(), None));
}

#[test]
fn rp_initiated_logout() {
    let p = start_default();
    let sid = p.login("dwho");
    let idt = redeem(&p, "rp1", &code(&p, &sid, "rp1", "")).json()["id_token"]
        .as_str()
        .unwrap()
        .to_string();
    let cookie = format!("lemonldap={sid}");
    let c = p.client();
    // Refused before anything ends: unregistered URI, forged hint.
    let bad_uri = format!(
        "/oauth2/logout?id_token_hint={idt}&post_logout_redirect_uri={}",
        enc("http://evil.example/")
    );
    assert_eq!(c.get(&bad_uri, &[("Cookie", &cookie)]).status, 400);
    let mut forged = idt.clone().into_bytes();
    let i = forged.len() - 10;
    forged[i] = if forged[i] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    let forged_q = format!(
        "/oauth2/logout?id_token_hint={forged}&post_logout_redirect_uri={}",
        enc("http://127.0.0.1:19999/bye")
    );
    assert_eq!(c.get(&forged_q, &[("Cookie", &cookie)]).status, 400);
    assert_eq!(
        c.get("/", &[("Cookie", &cookie), ("Accept", "application/json")])
            .status,
        200,
        "still logged in"
    );
    // A valid hint of an RP without LogoutBypassConfirm: asked first (as LemonLDAP::NG).
    let ok = format!(
        "/oauth2/logout?id_token_hint={idt}&post_logout_redirect_uri={}&state=bye1",
        enc("http://127.0.0.1:19999/bye")
    );
    let r = c.get(&ok, &[("Cookie", &cookie)]);
    assert_eq!(r.status, 200);
    let page = r.text();
    assert!(page.contains("id=\"logout-confirm\""), "{page}");
    assert_eq!(
        c.get("/", &[("Cookie", &cookie), ("Accept", "application/json")])
            .status,
        200,
        "asked, not logged out"
    );
    let start = page.find("name=\"token\" value=\"").unwrap() + 20;
    let token = page[start..].split('"').next().unwrap();
    let r = c.post_form(
        "/oauth2/logout",
        &[
            ("id_token_hint", &idt),
            ("post_logout_redirect_uri", "http://127.0.0.1:19999/bye"),
            ("state", "bye1"),
            ("confirm", "1"),
            ("token", token),
        ],
        &[("Cookie", &cookie)],
    );
    assert_eq!(r.status, 302);
    assert_eq!(
        r.header("location"),
        Some("http://127.0.0.1:19999/bye?state=bye1")
    );
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    let r = c.get("/", &[("Cookie", &cookie), ("Accept", "application/json")]);
    assert_eq!(r.status, 401, "the SSO session is gone");
}

#[test]
fn disabled_provider_is_not_found() {
    let p = Portal::builder()
        .conf("issuerDBOpenIDConnectActivation", json!(0))
        .start();
    let r = p.client().get(
        "/.well-known/openid-configuration",
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 404);
}

#[test]
fn an_rp_with_an_unsupported_algorithm_is_disabled_and_the_rest_works() {
    let p = start(&[("rs", rp("rs", json!({"IDTokenSignAlg": "PS256"})))]);
    let r = p.client().get(
        "/oauth2/authorize?response_type=code&client_id=rs&scope=openid&redirect_uri=http%3A%2F%2F127.0.0.1%3A19999%2Fcb",
        &[("Accept", "application/json")],
    );
    assert_eq!(
        (r.status, r.json()),
        (400, json!({"result": 0, "error": "107"}))
    );
    assert!(p.log().contains(
        "relying party rs disabled: oidcRPMetaDataOptionsIDTokenSignAlg = PS256 is not supported (one of none, HS256"
    ));
    let d = p.client().get(
        "/.well-known/openid-configuration",
        &[("Accept", "application/json")],
    );
    assert_eq!(d.status, 200);
}
