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
    // RFC 9126 §4: single use. Used again with client_id alone, nothing vouches for a
    // redirect URI: a portal error, not redirected; with the client's registered redirect
    // URI in the query, `invalid_request_uri` goes there.
    let again = format!("client_id=app&request_uri={}", enc(&uri));
    let r = authorize(&p, Some(&sid), &again, &[]);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.header("location").is_none());
    let r = authorize(
        &p,
        Some(&sid),
        &format!("{again}&redirect_uri={}", enc(CB)),
        &[],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let loc = r.header("location").unwrap();
    assert!(loc.starts_with(CB), "{loc}");
    assert_eq!(param(loc, "error").as_deref(), Some("invalid_request_uri"));
    assert_eq!(param(loc, "code"), None);
    // Another client cannot use one; nothing is redirected, and it is spent for its own
    // client too (it leaked).
    let uri = push(&fields, &auth).json()["request_uri"]
        .as_str()
        .unwrap()
        .to_string();
    let q = format!("client_id=other&request_uri={}", enc(&uri));
    let r = authorize(&p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 400);
    assert!(r.header("location").is_none());
    let q = format!("client_id=app&request_uri={}", enc(&uri));
    assert_eq!(authorize(&p, Some(&sid), &q, &[]).status, 400);
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
    assert_eq!(authlib_par(&p, &format!("lemonldap={sid}")), json!([]));
}

/// The same with a browser that has no session and a client that asks for consent: PAR, then
/// the login form, then the consent page, then the code (RFC 9126 §4 single use holds through
/// the login round trip).
#[test]
fn authlib_pushes_a_request_and_the_user_signs_in_and_consents() {
    let p = start(&[("app", rp("app", json!({"BypassConsent": 0})))]);
    assert_eq!(authlib_par(&p, "login:dwho"), json!(["login", "consent"]));
}

/// Runs tests/oidc_par.py; the pages the browser went through.
fn authlib_par(p: &Portal, browser: &str) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oidc_par.py");
    let out = std::process::Command::new(crate::python::python())
        .arg(script)
        .args([&p.url("/"), "app", SECRET, CB, browser])
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
    j["pages"].clone()
}

/// RFC 9126 §4: of eight browsers presenting the same pushed `request_uri` at once, exactly
/// one gets a code (the store takes the record atomically); the others are refused.
#[test]
fn a_pushed_request_is_used_once_even_concurrently() {
    let p = start(&[("app", rp("app", json!({})))]);
    let sid = p.login("dwho");
    let fields = [
        ("response_type", "code"),
        ("scope", "openid"),
        ("redirect_uri", CB),
        ("state", "once"),
    ];
    let r = p.client().post_form(
        "/oauth2/par",
        &fields,
        &[("Authorization", &basic("app", SECRET))],
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let uri = r.json()["request_uri"].as_str().unwrap().to_string();
    let q = format!("client_id=app&request_uri={}", enc(&uri));
    let codes = std::thread::scope(|t| {
        let runs: Vec<_> = (0..8)
            .map(|_| t.spawn(|| authorize(&p, Some(&sid), &q, &[])))
            .collect();
        runs.into_iter()
            .map(|h| h.join().unwrap())
            .filter(|r| {
                r.header("location")
                    .and_then(|l| param(l, "code"))
                    .is_some()
            })
            .count()
    });
    assert_eq!(codes, 1, "{}", p.log());
}

/// A browser without a session: the pushed request is consumed at once, the login form comes
/// back to `authorize` with a fresh single-use request_uri (never the pushed parameters, never
/// the spent one), and the flow ends at the client with the pushed state and nonce. The
/// return URL works once.
#[test]
fn a_pushed_request_survives_the_login_round_trip() {
    let p = start(&[("app", rp("app", json!({})))]);
    let fields = [
        ("response_type", "code"),
        ("scope", "openid"),
        ("redirect_uri", CB),
        ("nonce", "after-login"),
        ("state", "secret-state"),
        ("prompt", "login"),
    ];
    let r = p.client().post_form(
        "/oauth2/par",
        &fields,
        &[("Authorization", &basic("app", SECRET))],
    );
    let uri = r.json()["request_uri"].as_str().unwrap().to_string();
    let q = format!("client_id=app&request_uri={}", enc(&uri));
    let form = authorize(&p, None, &q, &[]);
    assert_eq!(form.status, 200, "{}", form.text());
    let html = form.text();
    let field = |name: &str| {
        html.split(&format!("name=\"{name}\" value=\""))
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or_else(|| panic!("no {name} in {html}"))
            .to_string()
    };
    use base64::Engine;
    let url = field("url");
    let back = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(&url)
            .unwrap(),
    )
    .unwrap();
    let fresh = param(&back, "request_uri").expect("a request_uri to come back with");
    assert!(
        fresh.starts_with("urn:ietf:params:oauth:request_uri:"),
        "{back}"
    );
    assert_ne!(fresh, uri);
    assert!(!back.contains("secret-state"), "{back}");
    // The pushed one is spent already.
    assert_eq!(authorize(&p, None, &q, &[]).status, 400);
    let r = p.client().post_form(
        "/",
        &[
            ("user", "dwho"),
            ("password", "dwho"),
            ("url", &url),
            ("token", &field("token")),
        ],
        &[],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some(back.as_str()));
    let cookie = r
        .headers_named("set-cookie")
        .into_iter()
        .find(|c| c.starts_with("lemonldap="))
        .expect("the SSO cookie")
        .to_string();
    let sid = cookie["lemonldap=".len()..]
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let path = back.split_once("/oauth2/authorize?").unwrap().1;
    // prompt=login was answered by this login: no loop back to the form.
    let loc = location(&p, &sid, path);
    assert_eq!(param(&loc, "state").as_deref(), Some("secret-state"));
    assert_eq!(nonce_of(&p, &loc), "after-login");
    assert_eq!(authorize(&p, Some(&sid), path, &[]).status, 400);
}
