//! A relying party's keys at its `jwks_uri` (`oidcRPMetaDataOptionsJwksUri`), served by a
//! loopback listener that counts its hits: RS256, ES256 and EdDSA request objects verified with
//! them, a key rotation picked up, a flood of unknown `kid`s that does not make the portal fetch
//! on every request, `private_key_jwt` at the token endpoint (configured and registered), a
//! `jwks_uri` that never answers, which holds no worker, and one that serves no key set or one
//! over 64 KiB (refused, logged, not asked again on every request). Unsigned request objects
//! (`none`): only for a client registered for them (`RequestObjectSignAlg`).
use super::oauth_err;
use crate::common::oidc::*;
use crate::common::{hostile, Portal, Resp};
use limette::oidc::jwt::{self, Alg, SignKey};
use limette::oidc::keys::{KeyKind, PrivateKey};
use serde_json::{json, Map, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A new key of `kind` named `kid`.
fn key(kind: KeyKind, kid: &str) -> PrivateKey {
    let (pem, _) = limette::oidc::keygen::generate(kind).unwrap();
    PrivateKey::from_pem(kind, &pem, kid).unwrap()
}

/// The JWK Set of the public halves of `keys`.
fn set(keys: &[&PrivateKey]) -> String {
    let all: Vec<Value> = keys.iter().map(|k| k.public().to_json()).collect();
    json!({ "keys": all }).to_string()
}

/// A listener answering every GET with what `body` holds at the time; its base URL and how
/// many requests came.
struct KeyServer {
    base: String,
    body: Arc<Mutex<String>>,
    hits: Arc<AtomicUsize>,
}

impl KeyServer {
    fn start(first: String) -> KeyServer {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://127.0.0.1:{}", l.local_addr().unwrap().port());
        let body = Arc::new(Mutex::new(first));
        let hits = Arc::new(AtomicUsize::new(0));
        let (b, h) = (body.clone(), hits.clone());
        std::thread::spawn(move || {
            for s in l.incoming().flatten() {
                h.fetch_add(1, Ordering::SeqCst);
                let text = b.lock().unwrap().clone();
                std::thread::spawn(move || answer(s, &text));
            }
        });
        KeyServer { base, body, hits }
    }

    fn url(&self) -> String {
        format!("{}/jwks", self.base)
    }

    fn serve(&self, body: String) {
        *self.body.lock().unwrap() = body;
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// Reads a request's head and answers 200 with `body`.
fn answer(s: TcpStream, body: &str) {
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    while r.read_line(&mut line).unwrap_or(0) > 2 {
        line.clear();
    }
    let mut s = s;
    let _ = write!(
        s,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A request object of `app` with `nonce`, signed by `key` with `alg` (`None`: unsigned).
fn object(client: &str, nonce: &str, signer: Option<(Alg, &PrivateKey)>) -> String {
    let claims: Map<String, Value> = json!({"iss": client, "client_id": client,
        "scope": "openid", "nonce": nonce})
    .as_object()
    .cloned()
    .unwrap();
    match signer {
        Some((alg, k)) => jwt::sign(&claims, alg, "JWT", SignKey::Private(k)).unwrap(),
        None => jwt::sign(&claims, Alg::None, "JWT", SignKey::Unsigned).unwrap(),
    }
}

/// Authorize with `request` (by value) for `client`: the redirect's `code` or `error`.
fn by_value(p: &Portal, sid: &str, client: &str, obj: &str) -> Result<String, String> {
    let q = format!(
        "client_id={client}&response_type=code&scope=openid&state=s&redirect_uri={}&request={obj}",
        enc(CB)
    );
    outcome(authorize(p, Some(sid), &q, &[]))
}

/// The `code` of an authorize redirect, or its `error`.
fn outcome(r: Resp) -> Result<String, String> {
    assert_eq!(r.status, 302, "{}", r.text());
    let loc = r.header("location").unwrap().to_string();
    assert!(loc.starts_with(CB), "{loc}");
    match param(&loc, "code") {
        Some(c) => Ok(c),
        None => Err(param(&loc, "error").unwrap_or_default()),
    }
}

/// An assertion of `client` for the token endpoint, signed by `k` with `alg`.
fn assertion(p: &Portal, client: &str, alg: Alg, k: &PrivateKey) -> String {
    let now = limette::util::now();
    let c = json!({"iss": client, "sub": client, "aud": p.url("/oauth2/token"), "iat": now,
        "exp": now + 60, "jti": limette::util::random_hex(8)});
    jwt::sign(c.as_object().unwrap(), alg, "JWT", SignKey::Private(k)).unwrap()
}

/// Redeems `code` with a client assertion.
fn redeem_asserted(p: &Portal, code: &str, assertion: &str) -> Resp {
    token(
        p,
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", CB),
            ("client_assertion_type", TYPE),
            ("client_assertion", assertion),
        ],
    )
}

#[test]
fn request_objects_signed_with_keys_at_the_jwks_uri_and_a_rotation_picked_up_once() {
    let (rsa, ec, ed) = (
        key(KeyKind::Rsa, "r1"),
        key(KeyKind::Ec, "e1"),
        key(KeyKind::Ed, "d1"),
    );
    let keys = KeyServer::start(set(&[&rsa, &ec, &ed]));
    let p = start(&[("app", rp("app", json!({"JwksUri": keys.url()})))]);
    let sid = p.login("dwho");
    // RS256, then ES256 from the same set: one fetch, the set cached.
    let rs = object("app", "rs", Some((Alg::RS256, &rsa)));
    assert!(by_value(&p, &sid, "app", &rs).is_ok(), "{}", p.log());
    let es = object("app", "es", Some((Alg::ES256, &ec)));
    assert!(by_value(&p, &sid, "app", &es).is_ok(), "{}", p.log());
    let eddsa = object("app", "ed", Some((Alg::EdDSA, &ed)));
    assert!(by_value(&p, &sid, "app", &eddsa).is_ok(), "{}", p.log());
    assert_eq!(keys.hits(), 1);
    // An unsigned object: refused, nothing fetched.
    let unsigned = object("app", "u", None);
    assert_eq!(
        by_value(&p, &sid, "app", &unsigned).unwrap_err(),
        "invalid_request_object"
    );
    assert_eq!(keys.hits(), 1);
    // The client rotates its key: the new kid is not in the cached set, which is fetched again.
    let rotated = key(KeyKind::Ec, "e2");
    keys.serve(set(&[&rotated]));
    let new = object("app", "rotated", Some((Alg::ES256, &rotated)));
    assert!(by_value(&p, &sid, "app", &new).is_ok(), "{}", p.log());
    assert_eq!(keys.hits(), 2);
    // A key the client does not publish, under its current kid: refused.
    let stranger = key(KeyKind::Ec, "e2");
    let forged = object("app", "x", Some((Alg::ES256, &stranger)));
    assert_eq!(
        by_value(&p, &sid, "app", &forged).unwrap_err(),
        "invalid_request_object"
    );
    // Random kids: refused, and no fetch for each (at most one per client every 30 s).
    for i in 0..20 {
        let random = key(KeyKind::Ec, &format!("random-{i}"));
        let obj = object("app", "flood", Some((Alg::ES256, &random)));
        assert_eq!(
            by_value(&p, &sid, "app", &obj).unwrap_err(),
            "invalid_request_object"
        );
    }
    assert_eq!(keys.hits(), 2, "a fetch per unknown kid");
    // The rotated key still serves, from the cache.
    assert!(by_value(&p, &sid, "app", &new).is_ok());
    assert_eq!(keys.hits(), 2);
}

#[test]
fn an_unsigned_request_object_only_for_a_client_registered_for_none() {
    let unsigned = object("open", "u", None);
    let at_uri = unsigned.clone();
    // The same object by reference (OP-request_uri-Unsigned).
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", l.local_addr().unwrap().port());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            answer(s, &at_uri);
        }
    });
    let p = start(&[
        (
            "open",
            rp(
                "open",
                json!({"RequestObjectSignAlg": "none", "RequestUris": format!("{base}/*")}),
            ),
        ),
        ("app", rp("app", json!({}))),
    ]);
    let sid = p.login("dwho");
    assert!(by_value(&p, &sid, "open", &unsigned).is_ok(), "{}", p.log());
    let q = format!(
        "client_id=open&response_type=code&scope=openid&state=s&redirect_uri={}&request_uri={}",
        enc(CB),
        enc(&format!("{base}/req"))
    );
    assert!(outcome(authorize(&p, Some(&sid), &q, &[])).is_ok());
    // Another client: no unsigned object, not even its own.
    let theirs = object("app", "u", None);
    assert_eq!(
        by_value(&p, &sid, "app", &theirs).unwrap_err(),
        "invalid_request_object"
    );
    // The client registered for none: a signed object is not what it registered.
    let claims = json!({"nonce": "h"}).as_object().cloned().unwrap();
    let hs = jwt::sign(
        &claims,
        Alg::HS256,
        "JWT",
        SignKey::Secret(SECRET.as_bytes()),
    )
    .unwrap();
    assert_eq!(
        by_value(&p, &sid, "open", &hs).unwrap_err(),
        "invalid_request_object"
    );
    assert!(by_value(&p, &sid, "app", &hs).is_ok());
    let disco = p
        .client()
        .get_json("/.well-known/openid-configuration")
        .json();
    let algs = &disco["request_object_signing_alg_values_supported"];
    for a in ["none", "HS256", "RS256", "ES256", "EdDSA"] {
        assert!(algs.as_array().unwrap().contains(&json!(a)), "{algs}");
    }
}

#[test]
fn private_key_jwt_with_keys_at_a_jwks_uri() {
    let ec = key(KeyKind::Ec, "pk1");
    let keys = KeyServer::start(set(&[&ec]));
    let p = start(&[(
        "pk",
        rp(
            "pk",
            json!({"AuthMethod": "private_key_jwt", "JwksUri": keys.url()}),
        ),
    )]);
    let sid = p.login("dwho");
    for round in 0..2 {
        let c = code(&p, &sid, "pk", "");
        let r = redeem_asserted(&p, &c, &assertion(&p, "pk", Alg::ES256, &ec));
        assert_eq!(r.status, 200, "round {round}: {}\n{}", r.text(), p.log());
        assert!(r.json()["id_token"].is_string());
    }
    assert_eq!(keys.hits(), 1, "the set is cached");
    // A key it does not publish is refused.
    let c = code(&p, &sid, "pk", "");
    let other = key(KeyKind::Ec, "pk1");
    let r = redeem_asserted(&p, &c, &assertion(&p, "pk", Alg::ES256, &other));
    assert_eq!(oauth_err(&r).1, "invalid_client");
    // No kept key verified it: the set was asked for again, once (at most every 30 s).
    assert_eq!(keys.hits(), 2);
    let c = code(&p, &sid, "pk", "");
    let r = redeem_asserted(&p, &c, &assertion(&p, "pk", Alg::ES256, &other));
    assert_eq!(oauth_err(&r).1, "invalid_client");
    assert_eq!(keys.hits(), 2);
    // A rotation to keys without kid (the assertions name none): the kept key fits, but does
    // not verify, so the set is fetched again.
    let p2 = start(&[(
        "pk",
        rp(
            "pk",
            json!({"AuthMethod": "private_key_jwt", "JwksUri": keys.url()}),
        ),
    )]);
    let sid2 = p2.login("dwho");
    let (old, new) = (key(KeyKind::Rsa, ""), key(KeyKind::Rsa, ""));
    keys.serve(set(&[&old]));
    let c = code(&p2, &sid2, "pk", "");
    let r = redeem_asserted(&p2, &c, &assertion(&p2, "pk", Alg::RS256, &old));
    assert_eq!(r.status, 200, "{}\n{}", r.text(), p2.log());
    keys.serve(set(&[&new]));
    let c = code(&p2, &sid2, "pk", "");
    let r = redeem_asserted(&p2, &c, &assertion(&p2, "pk", Alg::RS256, &new));
    assert_eq!(r.status, 200, "{}\n{}", r.text(), p2.log());
    assert_eq!(keys.hits(), 4);
}

#[test]
fn a_registered_client_with_a_jwks_uri_authenticates_with_private_key_jwt() {
    let rsa = key(KeyKind::Rsa, "reg1");
    let keys = KeyServer::start(set(&[&rsa]));
    let p = builder(&[("rp1", rp("rp1", json!({})))])
        .conf("oidcServiceAllowDynamicRegistration", json!(1))
        .conf("oidcServiceDynamicRegistrationRate", json!(100))
        .start();
    let register = |body: Value| {
        p.client().send(
            "POST",
            "/oauth2/register",
            &[("Content-Type", "application/json")],
            &serde_json::to_vec(&body).unwrap(),
        )
    };
    // jwks and jwks_uri together: refused (RFC 7591 2).
    let both = register(json!({"redirect_uris": [CB], "jwks_uri": keys.url(),
        "jwks": {"keys": [rsa.public().to_json()]}, "token_endpoint_auth_method": "private_key_jwt"}));
    assert_eq!(both.status, 400, "{}", both.text());
    assert_eq!(both.json()["error"], "invalid_client_metadata");
    let r = register(json!({"redirect_uris": [CB], "jwks_uri": keys.url(),
        "token_endpoint_auth_method": "private_key_jwt", "request_object_signing_alg": "RS256"}));
    assert_eq!(r.status, 201, "{}", r.text());
    let a = r.json();
    assert_eq!(a["jwks_uri"], json!(keys.url()));
    assert_eq!(a["request_object_signing_alg"], "RS256");
    let id = a["client_id"].as_str().unwrap().to_string();
    let sid = p.login("dwho");
    // Its request object signed RS256 (the registered alg) gives the code...
    let page = by_value_page(&p, &sid, &id, &object(&id, "reg", Some((Alg::RS256, &rsa))));
    let csrf = consent_token(&page);
    let f = [
        ("response_type", "code"),
        ("client_id", id.as_str()),
        ("scope", "openid"),
        ("redirect_uri", CB),
        ("state", "s"),
        ("nonce", "reg"),
        ("token", csrf.as_str()),
        ("confirm", "1"),
    ];
    let cookie = format!("lemonldap={sid}");
    let r = p
        .client()
        .post_form("/oauth2/authorize", &f, &[("Cookie", &cookie)]);
    let c = outcome(r).expect("a code");
    // ...and its assertion, verified with the keys at its jwks_uri, redeems it.
    let r = redeem_asserted(&p, &c, &assertion(&p, &id, Alg::RS256, &rsa));
    assert_eq!(r.status, 200, "{}\n{}", r.text(), p.log());
    assert!(keys.hits() >= 1);
}

/// The consent page an authorize with a request object gives a registered client.
fn by_value_page(p: &Portal, sid: &str, client: &str, obj: &str) -> String {
    let q = format!(
        "client_id={client}&response_type=code&scope=openid&state=s&redirect_uri={}&request={obj}",
        enc(CB)
    );
    let r = authorize(p, Some(sid), &q, &[]);
    assert_eq!(r.status, 200, "{}\n{}", r.text(), p.log());
    r.text()
}

/// The consent form's CSRF token.
fn consent_token(page: &str) -> String {
    let at = page.find("name=\"token\" value=\"").expect("consent page") + 20;
    page[at..at + page[at..].find('"').unwrap()].to_string()
}

#[test]
fn a_jwks_uri_that_never_answers_holds_no_worker() {
    // A listener that accepts and never answers, keeping its connections.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", l.local_addr().unwrap().port());
    let held = Arc::new(AtomicUsize::new(0));
    let h = held.clone();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        for s in l.incoming().flatten() {
            h.fetch_add(1, Ordering::SeqCst);
            kept.push(s);
        }
    });
    let p = builder(&[(
        "pk",
        rp(
            "pk",
            json!({"AuthMethod": "private_key_jwt", "JwksUri": format!("{base}/jwks")}),
        ),
    )])
    .ini("threads = 1")
    .start();
    let sid = p.login("dwho");
    let ec = key(KeyKind::Ec, "k");
    let c = code(&p, &sid, "pk", "");
    let a = assertion(&p, "pk", Alg::ES256, &ec);
    let port = p.port;
    let body = format!(
        "grant_type=authorization_code&code={c}&redirect_uri={}&client_assertion_type={}&client_assertion={a}",
        enc(CB),
        enc(TYPE)
    );
    let waiting = std::thread::spawn(move || {
        let t0 = Instant::now();
        let req = format!(
            "POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let r = hostile::raw_from("127.0.0.2", port, req.as_bytes()).expect("answered");
        (r, t0.elapsed())
    });
    // The fetch is under way: the one worker still serves the user at once.
    assert!(hostile::wait_for(Duration::from_secs(5), || held
        .load(Ordering::SeqCst)
        >= 1));
    let head = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nCookie: lemonldap={sid}\r\nConnection: close\r\n\r\n"
    );
    for _ in 0..5 {
        let t0 = Instant::now();
        let r = hostile::raw(p.port, head.as_bytes()).expect("the user is answered");
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(
            t0.elapsed() < Duration::from_millis(500),
            "{:?}",
            t0.elapsed()
        );
    }
    // The client is refused once the fetch gives up (2 s), not held longer.
    let (r, took) = waiting.join().unwrap();
    assert_eq!(
        (r.status, oauth_err(&r).1.as_str()),
        (401, "invalid_client")
    );
    assert!(took < Duration::from_secs(4), "answered after {took:?}");
    assert!(p.log().contains("jwks_uri"), "{}", p.log());
}

#[test]
fn a_key_set_that_does_not_read_or_is_over_64_kib_is_refused_and_logged() {
    let ec = key(KeyKind::Ec, "k1");
    let keys = KeyServer::start("{not json".into());
    let pk = |uri: String| {
        rp(
            "pk",
            json!({"AuthMethod": "private_key_jwt", "JwksUri": uri}),
        )
    };
    let p = start(&[("pk", pk(keys.url()))]);
    let sid = p.login("dwho");
    for _ in 0..5 {
        let c = code(&p, &sid, "pk", "");
        let r = redeem_asserted(&p, &c, &assertion(&p, "pk", Alg::ES256, &ec));
        assert_eq!(oauth_err(&r).1, "invalid_client");
    }
    assert!(p.log().contains("the key set is not JSON"), "{}", p.log());
    // A set that failed is not asked for on every request.
    assert!(keys.hits() <= 2, "{} fetches", keys.hits());
    // A valid set padded past 64 KiB: refused whole.
    let padded = format!("{}{}", set(&[&ec]), " ".repeat(64 * 1024));
    let big = KeyServer::start(padded);
    let p = start(&[("pk", pk(big.url()))]);
    let sid = p.login("dwho");
    let c = code(&p, &sid, "pk", "");
    let r = redeem_asserted(&p, &c, &assertion(&p, "pk", Alg::ES256, &ec));
    assert_eq!(oauth_err(&r).1, "invalid_client");
    assert!(p.log().contains("over 64 KiB"), "{}", p.log());
}
