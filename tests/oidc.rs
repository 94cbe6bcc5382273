//! The OpenID Connect provider over HTTP: every row of the contract's "OpenID Connect"
//! section, the login answers it relies on, the REST directory bridge, and an external
//! relying-party library completing the flow.
mod common;

use common::oidc::*;
use common::Portal;
use limette::oidc::jwt;
use serde_json::json;
use std::time::{Duration, Instant};

fn b64_url(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

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
    assert_eq!(m["id_token_signing_alg_values_supported"], json!(["HS256"]));
    assert_eq!(m["response_types_supported"], json!(["code"]));
    assert_eq!(
        m["code_challenge_methods_supported"],
        json!(["plain", "S256"])
    );
    let jwks = p.client().get("/oauth2/jwks", &[]);
    assert_eq!(jwks.json(), json!({"keys": []}));
}

#[test]
fn authorize_success_as_llng() {
    let p = start_default();
    let sid = p.login("dwho");
    let r = authorize(&p, Some(&sid), &query("rp1", "&foo=bar"), &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let loc = r.header("location").unwrap();
    assert!(loc.starts_with(&format!("{CB}?")), "{loc}");
    let code = param(loc, "code").unwrap();
    assert!(code.len() == 64 && code.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(param(loc, "state").as_deref(), Some("st1"));
    assert!(param(loc, "session_state").unwrap().contains('.'));
    assert!(r.body.is_empty() && r.header("set-cookie").is_none());
    // No state sent, scope with %20: no state back.
    let q = format!(
        "response_type=code&client_id=rp1&scope=openid%20email&redirect_uri={}",
        enc(CB)
    );
    let r = authorize(&p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 302);
    assert!(param(r.header("location").unwrap(), "state").is_none());
    // POST works as GET.
    let cookie = format!("lemonldap={sid}");
    let r = p.client().post_form(
        "/oauth2/authorize",
        &[
            ("response_type", "code"),
            ("client_id", "rp1"),
            ("scope", "openid"),
            ("redirect_uri", CB),
            ("state", "p"),
        ],
        &[("Cookie", &cookie)],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(
        param(r.header("location").unwrap(), "state").as_deref(),
        Some("p")
    );
}

#[test]
fn authorize_client_errors_are_never_redirected() {
    let p = start_default();
    let sid = p.login("dwho");
    let json = [("Accept", "application/json")];
    let cases = [
        (query("nope", ""), "107"),
        (
            query("rp1", "").replace(&enc(CB), &enc("http://evil.example/cb")),
            "108",
        ),
        (
            "response_type=code&client_id=rp1&scope=openid".to_string(),
            "24",
        ),
    ];
    for (q, code) in cases {
        let r = authorize(&p, Some(&sid), &q, &json);
        assert_eq!(r.status, 400, "{q}");
        assert_eq!(r.json(), json!({"result": 0, "error": code}), "{q}");
        assert!(r.header("location").is_none());
        let html = authorize(&p, Some(&sid), &q, &[]);
        assert_eq!(html.status, 400);
        assert!(html
            .header("content-type")
            .unwrap()
            .starts_with("text/html"));
        assert!(html.header("location").is_none());
    }
}

#[test]
fn authorize_other_errors_go_back_to_the_client() {
    let p = start_default();
    let sid = p.login("dwho");
    let cases = [
        (
            query("rp1", "").replace("response_type=code", "response_type=token"),
            "unsupported_response_type",
        ),
        (
            query("rp1", "").replace("response_type=code&", ""),
            "unsupported_response_type",
        ),
        (
            query("rp1", "").replace("scope=openid+profile+email", "scope=profile"),
            "invalid_scope",
        ),
        (
            query("rp1", "&code_challenge=abc&code_challenge_method=S512"),
            "invalid_request",
        ),
        (query("pub", ""), "invalid_request"), // public client without PKCE
        (query("rp1", "&max_age=soon"), "invalid_request"),
    ];
    for (q, err) in cases {
        let r = authorize(&p, Some(&sid), &q, &[]);
        assert_eq!(r.status, 302, "{q}: {}", r.text());
        let loc = r.header("location").unwrap();
        assert!(loc.starts_with(CB), "{loc}");
        assert_eq!(param(loc, "error").as_deref(), Some(err), "{q}");
        assert_eq!(param(loc, "state").as_deref(), Some("st1"));
        assert!(param(loc, "code").is_none());
    }
}

#[test]
fn authorize_without_session_logs_in_and_comes_back() {
    let p = start_default();
    let r = authorize(
        &p,
        None,
        &query("rp1", ""),
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 401);
    assert_eq!(r.json(), json!({"result": 0, "error": "9"}));
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("SSO {}", p.url("/")).as_str())
    );
    // HTML: the login form keeps the request in its url field.
    let r = authorize(&p, None, &query("rp1", "&prompt=login"), &[]);
    assert_eq!(r.status, 200);
    let page = r.text();
    let field = |name: &str| {
        let at = page
            .find(&format!("name=\"{name}\" value=\""))
            .unwrap_or_else(|| panic!("{name} in {page}"));
        let rest = &page[at + name.len() + 15..];
        rest[..rest.find('"').unwrap()].to_string()
    };
    let (url, token) = (field("url"), field("token"));
    let back = format!(
        "{}oauth2/authorize?{}",
        p.url("/"),
        query("rp1", "").replace('+', "%20")
    );
    assert_eq!(url, b64_url(&back), "the target drops prompt=login");
    let fields = [
        ("user", "dwho"),
        ("password", "dwho"),
        ("token", token.as_str()),
        ("url", url.as_str()),
    ];
    let r = p.client().post_form("/", &fields, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let sid = r.cookie("lemonldap").unwrap();
    let target = r
        .header("location")
        .unwrap()
        .strip_prefix(&p.url(""))
        .unwrap()
        .to_string();
    let r = p
        .client()
        .get(&target, &[("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(r.status, 302);
    assert!(param(r.header("location").unwrap(), "code").is_some());
}

#[test]
fn prompt_none_login_and_max_age() {
    let p = start_default();
    // prompt=none without a session: login_required to the client (OIDC Core 3.1.2.6).
    let r = authorize(&p, None, &query("rp1", "&prompt=none"), &[]);
    assert_eq!(r.status, 302);
    let loc = r.header("location").unwrap();
    assert_eq!(param(loc, "error").as_deref(), Some("login_required"));
    assert_eq!(param(loc, "state").as_deref(), Some("st1"));
    // Unknown cookie: login form, cookie cleared.
    let r = authorize(&p, Some(&"ab".repeat(32)), &query("rp1", ""), &[]);
    assert_eq!(r.status, 200);
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    // prompt=login with a session forces a new login: the form, and the cookie dropped.
    let sid = p.login("dwho");
    let r = authorize(&p, Some(&sid), &query("rp1", "&prompt=login"), &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("name=\"password\""));
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    // max_age: a fresh session passes, an older one must log in again.
    assert_eq!(
        authorize(&p, Some(&sid), &query("rp1", "&max_age=60"), &[]).status,
        302
    );
    std::thread::sleep(Duration::from_millis(1100));
    let r = authorize(&p, Some(&sid), &query("rp1", "&max_age=0"), &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("name=\"password\""));
    let r = authorize(&p, Some(&sid), &query("rp1", "&max_age=0&prompt=none"), &[]);
    assert_eq!(
        param(r.header("location").unwrap(), "error").as_deref(),
        Some("login_required")
    );
}

#[test]
fn token_success_and_id_token() {
    let p = start_default();
    let sid = p.login("dwho");
    let c = code(&p, &sid, "rp1", "");
    let r = redeem(&p, "rp1", &c);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("cache-control"),
        Some("no-cache, no-store, must-revalidate")
    );
    let t = r.json();
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["expires_in"], 3600);
    let at = t["access_token"].as_str().unwrap();
    assert_eq!(at.len(), 64);
    assert_eq!(t["refresh_token"].as_str().unwrap().len(), 64);
    assert!(t.get("scope").is_none());
    let idt = t["id_token"].as_str().unwrap();
    assert_eq!(jwt_part(idt, 0), json!({"alg": "HS256", "typ": "JWT"}));
    let claims = jwt::verify_hs256(idt, SECRET.as_bytes()).expect("HS256 with the client secret");
    assert_eq!(claims["iss"], p.url("/"));
    assert_eq!(claims["sub"], "dwho");
    assert_eq!(claims["aud"], json!(["rp1"]));
    assert_eq!(claims["azp"], "rp1");
    assert_eq!(claims["acr"], "loa-1");
    assert_eq!(claims["nonce"], "n1");
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        3600
    );
    assert!(claims["auth_time"].as_i64().unwrap() <= claims["iat"].as_i64().unwrap());
    assert_eq!(claims["at_hash"], jwt::at_hash(at));
    // An RP with no algorithm configured gets HS256 (LemonLDAP::NG answers 500), and no
    // refresh token when it has none; client_secret_post works.
    let c = code(&p, &sid, "rp1hs", "");
    let fields = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
        ("client_id", "rp1hs"),
        ("client_secret", SECRET),
    ];
    let t = token(&p, None, &fields).json();
    assert!(jwt::verify_hs256(t["id_token"].as_str().unwrap(), SECRET.as_bytes()).is_ok());
    assert!(t.get("refresh_token").is_none());
}

fn oauth_err(r: &common::Resp) -> (u16, String, Option<String>) {
    (
        r.status,
        r.json()["error"].as_str().unwrap_or("").to_string(),
        r.header("www-authenticate").map(str::to_string),
    )
}

#[test]
fn token_error_table() {
    let p = start_default();
    let sid = p.login("dwho");
    let e = |s: u16, c: &str| (s, c.to_string(), None::<String>);
    let basic = |c: &str| (401, c.to_string(), Some("Basic".to_string()));
    // Same code twice.
    let c = code(&p, &sid, "rp1", "");
    assert_eq!(redeem(&p, "rp1", &c).status, 200);
    assert_eq!(oauth_err(&redeem(&p, "rp1", &c)), e(400, "invalid_grant"));
    // Wrong secret (Basic): 401 + Basic, the code is not consumed.
    let c = code(&p, &sid, "rp1", "");
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
    ];
    assert_eq!(
        oauth_err(&token(&p, Some(("rp1", "wrong")), &f)),
        basic("invalid_client")
    );
    assert_eq!(
        oauth_err(&token(&p, Some(("nope", SECRET)), &f)),
        basic("invalid_client")
    );
    assert_eq!(oauth_err(&token(&p, None, &f)), e(400, "invalid_client"));
    let mut post = f.to_vec();
    post.extend([("client_id", "rp1"), ("client_secret", "wrong")]);
    assert_eq!(oauth_err(&token(&p, None, &post)), e(401, "invalid_client"));
    assert_eq!(
        redeem(&p, "rp1", &c).status,
        200,
        "wrong secret must not consume the code"
    );
    // Wrong redirect_uri consumes the code.
    let c = code(&p, &sid, "rp1", "");
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", "http://127.0.0.1:19999/other"),
    ];
    assert_eq!(
        oauth_err(&token(&p, Some(("rp1", SECRET)), &f)),
        e(400, "invalid_grant")
    );
    assert_eq!(oauth_err(&redeem(&p, "rp1", &c)), e(400, "invalid_grant"));
    // Another client's code consumes it.
    let c = code(&p, &sid, "rp1", "");
    assert_eq!(oauth_err(&redeem(&p, "rp1hs", &c)), e(400, "invalid_grant"));
    assert_eq!(oauth_err(&redeem(&p, "rp1", &c)), e(400, "invalid_grant"));
    // Unknown / malformed code, missing code, grant types.
    assert_eq!(
        oauth_err(&redeem(&p, "rp1", &"0".repeat(64))),
        e(400, "invalid_grant")
    );
    assert_eq!(
        oauth_err(&redeem(&p, "rp1", "../../etc/passwd")),
        e(400, "invalid_grant")
    );
    let creds = Some(("rp1", SECRET));
    assert_eq!(
        oauth_err(&token(&p, creds, &[("grant_type", "authorization_code")])),
        e(400, "invalid_request")
    );
    assert_eq!(
        oauth_err(&token(&p, creds, &[("grant_type", "foo")])),
        e(400, "unsupported_grant_type")
    );
    assert_eq!(
        oauth_err(&token(&p, creds, &[("code", "x")])),
        e(400, "unsupported_grant_type")
    );
    assert_eq!(
        oauth_err(&token(&p, creds, &[("grant_type", "password")])),
        e(400, "unauthorized_client")
    );
    assert_eq!(
        oauth_err(&token(&p, creds, &[("grant_type", "client_credentials")])),
        e(400, "unauthorized_client")
    );
    let auth = basic_header("rp1");
    let r = p.client().get(
        &format!(
            "/oauth2/token?grant_type=authorization_code&code={}",
            "1".repeat(64)
        ),
        &[("Authorization", &auth)],
    );
    assert_eq!(oauth_err(&r), e(400, "invalid_grant"));
}

fn basic_header(client: &str) -> String {
    basic(client, SECRET)
}

#[test]
fn concurrent_redemption_gives_exactly_one_success() {
    let p = start_default();
    let sid = p.login("dwho");
    for _ in 0..3 {
        let c = code(&p, &sid, "rp1", "");
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (client, c) = (p.client(), c.clone());
                std::thread::spawn(move || {
                    let auth = basic("rp1", SECRET);
                    let f = [
                        ("grant_type", "authorization_code"),
                        ("code", c.as_str()),
                        ("redirect_uri", CB),
                    ];
                    client
                        .post_form("/oauth2/token", &f, &[("Authorization", &auth)])
                        .status
                })
            })
            .collect();
        let statuses: Vec<u16> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(
            statuses.iter().filter(|s| **s == 200).count(),
            1,
            "{statuses:?}"
        );
        assert!(
            statuses.iter().all(|s| *s == 200 || *s == 400),
            "{statuses:?}"
        );
    }
}

#[test]
fn codes_and_tokens_expire() {
    let short =
        json!({"AuthorizationCodeExpiration": 1, "AccessTokenExpiration": 1, "RefreshToken": 1});
    let p = start(&[("rpexp", rp("rpexp", short))]);
    let sid = p.login("dwho");
    let c1 = code(&p, &sid, "rpexp", "");
    let c2 = code(&p, &sid, "rpexp", "");
    let t = redeem(&p, "rpexp", &c1).json();
    assert_eq!(t["expires_in"], 1);
    let at = t["access_token"].as_str().unwrap().to_string();
    let bearer = format!("Bearer {at}");
    assert_eq!(
        p.client()
            .get("/oauth2/userinfo", &[("Authorization", &bearer)])
            .status,
        200
    );
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(
        oauth_err(&redeem(&p, "rpexp", &c2)),
        (400, "invalid_grant".into(), None)
    );
    let r = p
        .client()
        .get("/oauth2/userinfo", &[("Authorization", &bearer)]);
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some("Bearer error=\"invalid_token\"")
    );
    let r = p.client().post_form(
        "/oauth2/introspect",
        &[("token", &at)],
        &[("Authorization", &basic("rpexp", SECRET))],
    );
    assert_eq!(r.json(), json!({"active": false}));
    // The refresh token outlives the access token.
    let f = [
        ("grant_type", "refresh_token"),
        ("refresh_token", t["refresh_token"].as_str().unwrap()),
    ];
    assert_eq!(token(&p, Some(("rpexp", SECRET)), &f).status, 200);
}

#[test]
fn pkce_success_and_mismatch() {
    let p = start_default();
    let sid = p.login("dwho");
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    let s256 =
        "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256";
    let with = |client: &str, c: &str, v: &str, secret: bool| {
        let mut f = vec![
            ("grant_type", "authorization_code"),
            ("code", c),
            ("redirect_uri", CB),
            ("code_verifier", v),
        ];
        if !secret {
            f.push(("client_id", client));
        }
        token(&p, secret.then_some((client, SECRET)), &f)
    };
    let c = code(&p, &sid, "rp1", s256);
    assert_eq!(with("rp1", &c, verifier, true).status, 200);
    let c = code(&p, &sid, "rp1", s256);
    assert_eq!(
        oauth_err(&with("rp1", &c, &verifier.replace('d', "e"), true)).1,
        "invalid_grant"
    );
    let c = code(&p, &sid, "rp1", s256);
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
    ];
    assert_eq!(
        oauth_err(&token(&p, Some(("rp1", SECRET)), &f)).1,
        "invalid_grant",
        "verifier missing"
    );
    let plain = format!("&code_challenge={verifier}&code_challenge_method=plain");
    let c = code(&p, &sid, "rp1", &plain);
    assert_eq!(with("rp1", &c, verifier, true).status, 200);
    // A public client: client_id alone, PKCE mandatory.
    let c = code(&p, &sid, "pub", s256);
    let r = with("pub", &c, verifier, false);
    assert_eq!(r.status, 200, "{}", r.text());
    let c = code(&p, &sid, "pub", s256);
    assert_eq!(
        oauth_err(&with("pub", &c, "x".repeat(43).as_str(), false)).1,
        "invalid_grant"
    );
    // A confidential client cannot pass as public.
    let c = code(&p, &sid, "rp1", s256);
    assert_eq!(
        oauth_err(&with("rp1", &c, verifier, false)),
        (401, "invalid_client".into(), None)
    );
}

#[test]
fn refresh_grant() {
    let p = start_default();
    let sid = p.login("dwho");
    let t = redeem(&p, "rp1", &code(&p, &sid, "rp1", "")).json();
    let rt = t["refresh_token"].as_str().unwrap();
    let f = [("grant_type", "refresh_token"), ("refresh_token", rt)];
    let r = token(&p, Some(("rp1", SECRET)), &f);
    assert_eq!(r.status, 200, "{}", r.text());
    let n = r.json();
    assert_ne!(n["access_token"], t["access_token"]);
    assert!(n.get("refresh_token").is_none());
    let claims = jwt::verify_hs256(n["id_token"].as_str().unwrap(), SECRET.as_bytes()).unwrap();
    assert!(claims.get("nonce").is_none());
    assert_eq!(
        claims["at_hash"],
        jwt::at_hash(n["access_token"].as_str().unwrap())
    );
    let bearer = format!("Bearer {}", n["access_token"].as_str().unwrap());
    assert_eq!(
        p.client()
            .get("/oauth2/userinfo", &[("Authorization", &bearer)])
            .status,
        200
    );
    // Unknown, or another client's: invalid_grant (RFC 6749 5.2).
    let unknown = [
        ("grant_type", "refresh_token"),
        ("refresh_token", &"f".repeat(64)),
    ];
    assert_eq!(
        oauth_err(&token(&p, Some(("rp1", SECRET)), &unknown)).1,
        "invalid_grant"
    );
    assert_eq!(
        oauth_err(&token(&p, Some(("rp1hs", SECRET)), &f)).1,
        "invalid_grant"
    );
    let missing = [("grant_type", "refresh_token")];
    assert_eq!(
        oauth_err(&token(&p, Some(("rp1", SECRET)), &missing)).1,
        "invalid_request"
    );
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
    let ok = format!(
        "/oauth2/logout?id_token_hint={idt}&post_logout_redirect_uri={}&state=bye1",
        enc("http://127.0.0.1:19999/bye")
    );
    let r = c.get(&ok, &[("Cookie", &cookie)]);
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
fn consent_is_asked_then_remembered() {
    let p = start(&[("ask", rp("ask", json!({"BypassConsent": 0})))]);
    let sid = p.login("dwho");
    let cookie = format!("lemonldap={sid}");
    let r = authorize(&p, Some(&sid), &query("ask", "&prompt=none"), &[]);
    assert_eq!(
        param(r.header("location").unwrap(), "error").as_deref(),
        Some("consent_required")
    );
    let r = authorize(&p, Some(&sid), &query("ask", ""), &[]);
    assert_eq!(r.status, 200);
    let page = r.text();
    assert!(
        page.contains("id=\"consent\"") && page.contains("<li>email</li>"),
        "{page}"
    );
    let at = page.find("name=\"token\" value=\"").unwrap() + 20;
    let token = page[at..at + page[at..].find('"').unwrap()].to_string();
    let fields = |confirm: &'static str, token: String| {
        vec![
            ("response_type", "code".to_string()),
            ("client_id", "ask".into()),
            ("scope", "openid profile email".into()),
            ("redirect_uri", CB.into()),
            ("state", "st1".into()),
            ("token", token),
            ("confirm", confirm.into()),
        ]
    };
    let post = |f: Vec<(&str, String)>| {
        let f: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
        p.client()
            .post_form("/oauth2/authorize", &f, &[("Cookie", &cookie)])
    };
    // A forged token shows the page again; refusing gives access_denied.
    assert_eq!(post(fields("1", "1.forged".into())).status, 200);
    let r = post(fields("-1", token.clone()));
    assert_eq!(
        param(r.header("location").unwrap(), "error").as_deref(),
        Some("access_denied")
    );
    let r = post(fields("1", token));
    assert_eq!(r.status, 302);
    assert!(param(r.header("location").unwrap(), "code").is_some());
    // Remembered in the persistent session.
    assert_eq!(
        authorize(&p, Some(&sid), &query("ask", "&prompt=none"), &[]).status,
        302
    );
    let r = authorize(&p, Some(&sid), &query("ask", ""), &[]);
    assert!(param(r.header("location").unwrap(), "code").is_some());
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
fn unsupported_algorithm_is_a_configuration_error() {
    let r =
        std::panic::catch_unwind(|| start(&[("rs", rp("rs", json!({"IDTokenSignAlg": "RS256"})))]));
    assert!(r.is_err(), "a portal must not start with an RS256 RP");
}

fn rest_portal(auth: &str, user: &str) -> Portal {
    Portal::builder()
        .conf("authentication", json!("REST"))
        .conf("userDB", json!("REST"))
        .conf("restAuthUrl", json!(auth))
        .conf("restUserDBUrl", json!(user))
        .conf("restTimeout", json!(1))
        .start()
}

fn json_login(p: &Portal, user: &str, pass: &str) -> common::Resp {
    p.client().post_form(
        "/",
        &[("user", user), ("password", pass)],
        &[("Accept", "application/json")],
    )
}

#[test]
fn rest_directory_bridge() {
    let good = stub_directory(Stub::Good);
    let p = rest_portal(&format!("{good}/auth"), &format!("{good}/user"));
    let r = json_login(&p, "alice", "secret");
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.json()["id"].as_str().unwrap().to_string();
    let r = p.client().get(
        "/",
        &[
            ("Cookie", &format!("lemonldap={sid}")),
            ("Accept", "application/json"),
        ],
    );
    assert_eq!(r.status, 200);
    let r = json_login(&p, "alice", "wrong");
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "5"}))
    );
    let r = json_login(&p, "bob", "secret");
    assert_eq!(r.json()["error"], "5");
}

#[test]
fn rest_directory_failures_are_error_24() {
    let dead = format!("http://127.0.0.1:{}", common::free_port());
    for base in [
        stub_directory(Stub::Slow),
        stub_directory(Stub::BadJson),
        stub_directory(Stub::Fails),
        dead,
    ] {
        let p = rest_portal(&format!("{base}/auth"), &format!("{base}/user"));
        let t0 = Instant::now();
        let r = json_login(&p, "alice", "secret");
        assert!(
            t0.elapsed() < Duration::from_secs(4),
            "{base}: took {:?}",
            t0.elapsed()
        );
        assert_eq!(
            (r.status, r.json()),
            (401, json!({"result": 0, "error": "24"})),
            "{base}"
        );
        assert!(p.log().contains("directory failure"), "{base}: {}", p.log());
        assert!(r.cookie("lemonldap").is_none());
    }
}

#[test]
fn demo_rp_walkthrough() {
    // The README's curl steps against the embedded default configuration.
    let p = Portal::builder().portal_url_matches().start();
    let sid = p.login("dwho");
    let q = format!("response_type=code&client_id=demo&scope=openid%20profile%20email&redirect_uri={}&state=xyz&nonce=abc", enc("http://127.0.0.1:9999/cb"));
    let r = authorize(&p, Some(&sid), &q, &[]);
    let loc = r.header("location").unwrap();
    assert!(loc.starts_with("http://127.0.0.1:9999/cb?"));
    let c = param(loc, "code").unwrap();
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", "http://127.0.0.1:9999/cb"),
    ];
    let t = token(&p, Some(("demo", "demosecret")), &f).json();
    assert!(jwt::verify_hs256(t["id_token"].as_str().unwrap(), b"demosecret").is_ok());
    let r = p.client().get(
        "/oauth2/userinfo",
        &[(
            "Authorization",
            &format!("Bearer {}", t["access_token"].as_str().unwrap()),
        )],
    );
    assert_eq!(r.json()["email"], "dwho@badwolf.org");
}

#[test]
fn external_rp_library_completes_the_flow() {
    // Authlib (installed by .ci/setup.d/oidc.sh) validates signature, iss, aud, exp, nonce,
    // at_hash. A missing library or interpreter makes this test fail, never skip.
    let p = Portal::builder().portal_url_matches().start();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oidc_rp.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .args([
            p.url("/").as_str(),
            "demo",
            "demosecret",
            "http://127.0.0.1:9999/cb",
        ])
        .output()
        .expect("python3 is required for the relying-party test (.ci/setup.d/oidc.sh)");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "RP script failed:\n{stdout}\n{stderr}\nserver log:\n{}",
        p.log()
    );
    assert!(stdout.contains("RP OK"), "{stdout}");
}

#[test]
fn codes_work_across_instances_and_sqlite_redemption_is_atomic() {
    // Two instances sharing one SQLite session storage: a code issued by one is redeemed at
    // the other, and concurrent redemptions spread over both give exactly one success.
    let shared = common::TempDir::new("oidc-shared");
    let db = shared.path().join("sessions.db");
    let ini = format!(
        "globalStorageOptions = {{\"DataSource\": \"dbi:SQLite:dbname={}\"}}",
        db.display()
    );
    let rps = json!({"rp1": rp("rp1", json!({}))});
    let start = || {
        Portal::builder()
            .portal_url_matches()
            .conf("oidcRPMetaDataOptions", rps.clone())
            .ini("globalStorage = SQLite")
            .ini(&ini)
            .start()
    };
    let (a, b) = (start(), start());
    assert!(db.exists(), "the sessions live in the shared SQLite file");
    let sid = a.login("dwho");
    let c = code(&a, &sid, "rp1", "");
    assert_eq!(
        redeem(&b, "rp1", &c).status,
        200,
        "a code of instance A redeemed at instance B"
    );
    for _ in 0..3 {
        let c = code(&a, &sid, "rp1", "");
        let clients = [
            a.client(),
            b.client(),
            a.client(),
            b.client(),
            a.client(),
            b.client(),
        ];
        let handles: Vec<_> = clients
            .into_iter()
            .map(|client| {
                let c = c.clone();
                std::thread::spawn(move || {
                    let auth = basic("rp1", SECRET);
                    let f = [
                        ("grant_type", "authorization_code"),
                        ("code", c.as_str()),
                        ("redirect_uri", CB),
                    ];
                    client
                        .post_form("/oauth2/token", &f, &[("Authorization", &auth)])
                        .status
                })
            })
            .collect();
        let statuses: Vec<u16> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(
            statuses.iter().filter(|s| **s == 200).count(),
            1,
            "{statuses:?}"
        );
    }
}

#[test]
fn login_through_the_oidc_entrance() {
    // POST /oauth2/ with user/password is the portal login, as LemonLDAP::NG.
    let p = start_default();
    let c = p.client();
    let json = [("Accept", "application/json")];
    let r = c.post_form("/oauth2/", &[("user", "dwho"), ("password", "nope")], &json);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "5"}))
    );
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("SSO {}", p.url("/")).as_str())
    );
    let r = c.post_form("/oauth2/", &[("user", "dwho")], &json);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "24"}))
    );
    let r = c.post_form("/oauth2/", &[("user", "dwho"), ("password", "")], &json);
    assert_eq!(
        (r.status, r.json()),
        (401, json!({"result": 0, "error": "2"}))
    );
    let r = c.post_form("/oauth2/", &[("user", "dwho"), ("password", "dwho")], &json);
    assert_eq!(r.status, 200);
    assert_eq!(r.cookie("lemonldap").as_deref(), r.json()["id"].as_str());
}
