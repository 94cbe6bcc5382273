//! Where an authorization request's parameters come from: a request object by value
//! (`request`), by reference (`request_uri`, fetched only from the RP's `RequestUris`), and a
//! pushed authorization request (RFC 9126), each as the relying party would send it, with
//! every refusal it can meet.
use crate::common::oidc::*;
use crate::common::Portal;
use limette::oidc::jwt::{self, Alg, SignKey};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

/// A request object signed with `key`.
fn object(claims: Value, alg: Alg, key: &[u8]) -> String {
    let m = claims.as_object().cloned().unwrap_or_default();
    jwt::sign(&m, alg, "oauth-authz-req+jwt", SignKey::Secret(key)).unwrap()
}

/// Serves `body` at every path of a free port, forever; its base URL.
fn serve(body: String) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            while r.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: application/oauth-authz-req+jwt\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn location(p: &Portal, sid: &str, query: &str) -> String {
    let r = authorize(p, Some(sid), query, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    r.header("location").unwrap().to_string()
}

fn nonce_of(p: &Portal, loc: &str) -> Value {
    let code = param(loc, "code").expect("a code");
    let t = redeem(p, "app", &code);
    assert_eq!(t.status, 200, "{}", t.text());
    let idt = t.json()["id_token"].as_str().unwrap().to_string();
    jwt::verify_hs256(&idt, SECRET.as_bytes()).unwrap()["nonce"].clone()
}

#[test]
fn a_request_object_by_value_replaces_the_query() {
    let p = start(&[("app", rp("app", json!({})))]);
    let sid = p.login("dwho");
    let obj = object(
        json!({"iss": "app", "aud": p.url("/"), "client_id": "app", "response_type": "code",
            "redirect_uri": CB, "scope": "openid email", "nonce": "from-object", "state": "o"}),
        Alg::HS256,
        SECRET.as_bytes(),
    );
    let q = format!("client_id=app&response_type=code&scope=openid&request={obj}");
    let loc = location(&p, &sid, &q);
    assert_eq!(param(&loc, "state").as_deref(), Some("o"));
    assert_eq!(nonce_of(&p, &loc), "from-object");
    // Refused, to the registered redirect URI of the query: a wrong signature, `none`, a
    // response type that disagrees with the query's.
    let base = format!(
        "client_id=app&response_type=code&scope=openid&redirect_uri={}&state=q",
        enc(CB)
    );
    let unsigned = jwt::sign(
        &json!({"nonce": "x"}).as_object().cloned().unwrap(),
        Alg::None,
        "JWT",
        SignKey::Unsigned,
    )
    .unwrap();
    for bad in [
        object(json!({"nonce": "x"}), Alg::HS256, b"not the secret"),
        unsigned,
        object(
            json!({"response_type": "id_token"}),
            Alg::HS512,
            SECRET.as_bytes(),
        ),
        object(
            json!({"aud": "https://elsewhere.example/"}),
            Alg::HS256,
            SECRET.as_bytes(),
        ),
    ] {
        let loc = location(&p, &sid, &format!("{base}&request={bad}"));
        assert_eq!(
            param(&loc, "error").as_deref(),
            Some("invalid_request_object"),
            "{loc}"
        );
        assert_eq!(param(&loc, "state").as_deref(), Some("q"));
        assert!(param(&loc, "code").is_none());
    }
    // Without a registered redirect URI in the query, nothing is redirected.
    let bad = object(json!({"redirect_uri": CB}), Alg::HS256, b"wrong");
    let r = authorize(
        &p,
        Some(&sid),
        &format!("client_id=app&response_type=code&scope=openid&request={bad}"),
        &[],
    );
    assert_eq!(r.status, 400);
    assert!(r.header("location").is_none());
}

#[test]
fn a_request_uri_is_fetched_only_when_registered() {
    let obj = object(
        json!({"client_id": "app", "redirect_uri": CB, "scope": "openid", "nonce": "by-ref"}),
        Alg::HS384,
        SECRET.as_bytes(),
    );
    let base = serve(obj);
    let p = start(&[(
        "app",
        rp("app", json!({"RequestUris": format!("{base}/req/*")})),
    )]);
    let sid = p.login("dwho");
    let uri = format!("{base}/req/42");
    let loc = location(
        &p,
        &sid,
        &format!(
            "client_id=app&response_type=code&scope=openid&request_uri={}",
            enc(&uri)
        ),
    );
    assert_eq!(nonce_of(&p, &loc), "by-ref");
    let other = format!("{base}/other/42");
    let q = format!(
        "client_id=app&response_type=code&scope=openid&redirect_uri={}&request_uri={}",
        enc(CB),
        enc(&other)
    );
    let loc = location(&p, &sid, &q);
    assert_eq!(param(&loc, "error").as_deref(), Some("invalid_request_uri"));
    let d = p
        .client()
        .get("/.well-known/openid-configuration", &[])
        .json();
    assert_eq!(d["request_uri_parameter_supported"], true);
    assert_eq!(d["require_request_uri_registration"], true);
}

#[test]
fn pushed_authorization_requests() {
    let p = start(&[
        ("app", rp("app", json!({}))),
        ("other", rp("other", json!({}))),
    ]);
    let sid = p.login("dwho");
    let auth = basic("app", SECRET);
    let push = |fields: &[(&str, &str)], who: &str| {
        p.client()
            .post_form("/oauth2/par", fields, &[("Authorization", who)])
    };
    let fields = [
        ("response_type", "code"),
        ("scope", "openid"),
        ("redirect_uri", CB),
        ("nonce", "pushed"),
        ("state", "ps"),
    ];
    let r = push(&fields, &auth);
    assert_eq!(r.status, 201, "{}", r.text());
    let j = r.json();
    assert_eq!(j["expires_in"], 60);
    let uri = j["request_uri"].as_str().unwrap().to_string();
    assert!(uri.starts_with("urn:ietf:params:oauth:request_uri:"));
    // The browser brings client_id and request_uri alone; other query values are ignored.
    let q = format!(
        "client_id=app&request_uri={}&nonce=ignored&state=ignored",
        enc(&uri)
    );
    let loc = location(&p, &sid, &q);
    assert_eq!(param(&loc, "state").as_deref(), Some("ps"));
    assert_eq!(nonce_of(&p, &loc), "pushed");
    // Another client cannot use it; nothing is redirected.
    let q = format!("client_id=other&request_uri={}", enc(&uri));
    let r = authorize(&p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 400);
    assert!(r.header("location").is_none());
    // Refusals at the endpoint: no or wrong client authentication, an unregistered redirect
    // URI, a request_uri inside, GET.
    assert_eq!(push(&fields, &basic("app", "wrong")).status, 401);
    let r = p.client().post_form("/oauth2/par", &fields, &[]);
    assert_eq!(r.status, 400, "{}", r.text());
    let mut evil = fields.to_vec();
    evil[2] = ("redirect_uri", "http://evil.example/cb");
    let r = push(&evil, &auth);
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("invalid_request"))
    );
    let mut nested = fields.to_vec();
    nested.push(("request_uri", "urn:ietf:params:oauth:request_uri:x"));
    assert_eq!(push(&nested, &auth).json()["error"], "invalid_request");
    assert_eq!(p.client().get("/oauth2/par", &[]).status, 405);
    let d = p
        .client()
        .get("/.well-known/openid-configuration", &[])
        .json();
    assert_eq!(
        d["pushed_authorization_request_endpoint"],
        p.url("/oauth2/par")
    );
}

/// Authlib as the relying party: it pushes the request with its own client authentication,
/// sends the browser with the request_uri alone, checks the state it made and the ID token.
#[test]
fn authlib_pushes_a_request_and_completes_the_flow() {
    let p = start(&[("app", rp("app", json!({})))]);
    let sid = p.login("dwho");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oidc_par.py");
    let out = std::process::Command::new(crate::rp::python::python())
        .arg(script)
        .args([&p.url("/"), "app", SECRET, CB, &format!("lemonldap={sid}")])
        .output()
        .expect("the tests' python3 starts");
    assert!(
        out.status.success(),
        "{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        p.log()
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["sub"], "dwho");
    assert!(j["request_uri"]
        .as_str()
        .unwrap()
        .starts_with("urn:ietf:params:oauth:request_uri:"));
}
