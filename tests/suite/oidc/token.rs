//! The token endpoint: the ID token, LemonLDAP::NG's error table, single use under concurrency
//! and across instances, expiry, PKCE, refresh.
use super::oauth_err;
use crate::common::oidc::*;
use crate::common::Portal;
use limette::oidc::jwt;
use serde_json::json;

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
    // An RP without refresh tokens gets none; client_secret_post works.
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
    // RFC 6749 3.2: POST only (LemonLDAP::NG also answers a GET).
    assert_eq!((r.status, r.header("allow")), (405, Some("POST")));
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
    let p = builder(&[("rpexp", rp("rpexp", short))])
        .test_hooks()
        .start();
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
    crate::common::clock::advance(&p, 2);
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
fn codes_work_across_instances_and_sqlite_redemption_is_atomic() {
    // Two instances sharing one SQLite session storage: a code issued by one is redeemed at
    // the other, and concurrent redemptions spread over both give exactly one success.
    let shared = crate::common::TempDir::new("oidc-shared");
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

fn basic_header(client: &str) -> String {
    basic(client, SECRET)
}
