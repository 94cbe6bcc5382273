//! Token hygiene, as an attacker tries it: tokens kept after logout, a stolen code replayed,
//! a PKCE downgrade, the secret in a URL, two client authentications, a public client
//! guessing a secret, an old refresh token of a public client.
use super::oauth_err;
use crate::common::oidc::*;
use crate::common::{Portal, Resp};
use serde_json::{json, Value};

const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const S256: &str =
    "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256";

fn portal() -> Portal {
    start(&[
        ("rp1", rp("rp1", json!({"RefreshToken": 1}))),
        ("pub", rp("pub", json!({"Public": 1, "RefreshToken": 1}))),
    ])
}

fn introspect(p: &Portal, at: &str) -> Value {
    let r = p.client().post_form(
        "/oauth2/introspect",
        &[("token", at)],
        &[("Authorization", &basic("rp1", SECRET))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn userinfo(p: &Portal, at: &str) -> u16 {
    let auth = format!("Bearer {at}");
    p.client()
        .get("/oauth2/userinfo", &[("Authorization", &auth)])
        .status
}

fn refresh(p: &Portal, creds: Option<(&str, &str)>, rt: &str, extra: &[(&str, &str)]) -> Resp {
    let mut f = vec![("grant_type", "refresh_token"), ("refresh_token", rt)];
    f.extend_from_slice(extra);
    token(p, creds, &f)
}

fn text(v: &Value, k: &str) -> String {
    v[k].as_str().unwrap_or_default().to_string()
}

#[test]
fn tokens_die_with_the_sso_session_introspection_included() {
    let p = portal();
    let sid = p.login("dwho");
    let t = redeem(&p, "rp1", &code(&p, &sid, "rp1", "")).json();
    let (at, rt) = (text(&t, "access_token"), text(&t, "refresh_token"));
    assert_eq!(introspect(&p, &at)["active"], true);
    let r = p.client().get(
        "/?logout=1",
        &[
            ("Cookie", &format!("lemonldap={sid}")),
            ("Accept", "application/json"),
        ],
    );
    assert_eq!(r.status, 200);
    assert_eq!(introspect(&p, &at), json!({"active": false}));
    assert_eq!(userinfo(&p, &at), 401);
    let r = refresh(&p, Some(("rp1", SECRET)), &rt, &[]);
    assert_eq!(oauth_err(&r).1, "invalid_grant");
}

#[test]
fn a_replayed_code_revokes_what_it_issued() {
    let p = portal();
    let sid = p.login("dwho");
    let c = code(&p, &sid, "rp1", "");
    let first = redeem(&p, "rp1", &c);
    assert_eq!(first.status, 200);
    let t = first.json();
    let (at, rt) = (text(&t, "access_token"), text(&t, "refresh_token"));
    // A token refreshed before the replay belongs to the same grant.
    let refreshed = refresh(&p, Some(("rp1", SECRET)), &rt, &[]).json();
    let at2 = text(&refreshed, "access_token");
    assert_eq!(userinfo(&p, &at), 200);
    assert_eq!(userinfo(&p, &at2), 200);
    // The attacker replays the stolen code.
    let r = redeem(&p, "rp1", &c);
    assert_eq!(oauth_err(&r).1, "invalid_grant");
    for token in [&at, &at2] {
        assert_eq!(userinfo(&p, token), 401);
        assert_eq!(introspect(&p, token), json!({"active": false}));
    }
    let r = refresh(&p, Some(("rp1", SECRET)), &rt, &[]);
    assert_eq!(oauth_err(&r).1, "invalid_grant");
    let log = p.log();
    assert!(
        log.contains("audit event=oidc_code_replayed client=rp1 issued_to=rp1 user=dwho"),
        "{log}"
    );
    for secret in [&c, &at, &rt] {
        assert!(!log.contains(secret.as_str()), "{secret} in {log}");
    }
    // Other grants of the same user are untouched.
    let other = redeem(&p, "rp1", &code(&p, &sid, "rp1", "")).json();
    assert_eq!(userinfo(&p, &text(&other, "access_token")), 200);
}

#[test]
fn a_verifier_for_a_code_without_challenge_is_refused() {
    let p = portal();
    let sid = p.login("dwho");
    let c = code(&p, &sid, "rp1", "");
    let r = token(
        &p,
        Some(("rp1", SECRET)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
            ("code_verifier", VERIFIER),
        ],
    );
    assert_eq!(oauth_err(&r), (400, "invalid_grant".into(), None));
    // The code was consumed with the attempt.
    assert_eq!(oauth_err(&redeem(&p, "rp1", &c)).1, "invalid_grant");
}

#[test]
fn the_token_endpoint_takes_post_only_and_one_authentication() {
    let p = portal();
    let sid = p.login("dwho");
    let c = code(&p, &sid, "rp1", "");
    let q = format!(
        "/oauth2/token?grant_type=authorization_code&code={c}&redirect_uri={}&client_id=rp1&client_secret={SECRET}",
        enc(CB)
    );
    for method in ["GET", "HEAD", "PUT", "DELETE"] {
        let r = p.client().send(method, &q, &[], b"");
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("allow"), Some("POST"), "{method}");
    }
    // Basic and client_secret in the body, even both right: invalid_request.
    for body_secret in [SECRET, "wrong"] {
        let r = token(
            &p,
            Some(("rp1", SECRET)),
            &[
                ("grant_type", "authorization_code"),
                ("code", &c),
                ("redirect_uri", CB),
                ("client_secret", body_secret),
            ],
        );
        assert_eq!(oauth_err(&r), (400, "invalid_request".into(), None));
    }
    // Neither consumed the code.
    assert_eq!(redeem(&p, "rp1", &c).status, 200);
}

#[test]
fn a_public_client_with_a_secret_is_refused_and_its_refresh_tokens_rotate() {
    let p = portal();
    let sid = p.login("dwho");
    let pkce = |c: &str| {
        vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", c.to_string()),
            ("redirect_uri", CB.to_string()),
            ("code_verifier", VERIFIER.to_string()),
            ("client_id", "pub".to_string()),
        ]
    };
    let send = |f: &[(&str, String)], creds: Option<(&str, &str)>| {
        let f: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
        token(&p, creds, &f)
    };
    let c = code(&p, &sid, "pub", S256);
    let mut guessed = pkce(&c);
    guessed.push(("client_secret", "guess".into()));
    assert_eq!(
        oauth_err(&send(&guessed, None)),
        (401, "invalid_client".into(), None)
    );
    let r = send(&pkce(&c), Some(("pub", "guess")));
    assert_eq!(r.status, 401);
    // The refusals left the code alone.
    let t = send(&pkce(&c), None).json();
    let rt = text(&t, "refresh_token");
    assert_eq!(rt.len(), 64, "{t}");
    // Refresh: a new refresh token each time; the old one is dead.
    let n = refresh(&p, None, &rt, &[("client_id", "pub")]);
    assert_eq!(n.status, 200, "{}", n.text());
    let rt2 = text(&n.json(), "refresh_token");
    assert_eq!(rt2.len(), 64);
    assert_ne!(rt2, rt);
    let n = refresh(&p, None, &rt2, &[("client_id", "pub")]);
    assert_eq!(n.status, 200, "the new one works");
    assert_eq!(userinfo(&p, &text(&n.json(), "access_token")), 200);
    let r = refresh(&p, None, &rt, &[("client_id", "pub")]);
    assert_eq!(oauth_err(&r).1, "invalid_grant", "the old one is dead");
    // A confidential client keeps the contract: the same refresh token, no new one.
    let t = redeem(&p, "rp1", &code(&p, &sid, "rp1", "")).json();
    let rt = text(&t, "refresh_token");
    for _ in 0..2 {
        let r = refresh(&p, Some(("rp1", SECRET)), &rt, &[]);
        assert_eq!(r.status, 200);
        assert!(r.json().get("refresh_token").is_none());
    }
}
