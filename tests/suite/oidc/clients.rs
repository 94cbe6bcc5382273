//! Client authentication by JWT (RFC 7523: `private_key_jwt` through Authlib with an RSA and
//! an EC key, `client_secret_jwt`) and every refusal; JWT introspection answers (RFC 9701)
//! verified by signature; dynamic registration (RFC 7591) followed by a code flow with the new
//! client, its refusals, and registration off.
use super::oauth_err;
use crate::common::oidc::*;
use crate::common::{Portal, Resp, TempDir};
use limette::oidc::jwt::{self, Alg, SignKey, VerifyKey};
use limette::oidc::keys::{KeyKind, PrivateKey, PublicJwk};
use serde_json::{json, Map, Value};

const TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Runs tests/oidc_client_auth.py with `args`; its standard output. A failure fails the test,
/// with the server's log when there is a server.
fn python(p: Option<&Portal>, args: &[&str]) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oidc_client_auth.py");
    let out = std::process::Command::new(crate::python::python())
        .arg(script)
        .args(args)
        .output()
        .expect("the tests' python3 starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let log = p.map(Portal::log).unwrap_or_default();
    assert!(
        out.status.success(),
        "{args:?}: {stderr}\nserver log:\n{log}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Claims of an assertion by `client` for `aud`, living a minute, with a fresh jti.
fn claims(client: &str, aud: &str) -> Map<String, Value> {
    let now = limette::util::now();
    json!({"iss": client, "sub": client, "aud": aud, "iat": now, "exp": now + 60,
        "jti": limette::util::random_hex(8)})
    .as_object()
    .cloned()
    .unwrap()
}

/// The token request fields of an assertion redeeming `code`.
fn redeem_with(p: &Portal, assertion: &str, code: &str) -> Resp {
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
fn private_key_jwt_with_authlib_rsa_and_ec() {
    let dir = TempDir::new("pkjwt");
    let dir_s = dir.path().to_str().unwrap().to_string();
    let jwks = python(None, &["keys", &dir_s]);
    let pk = |extra: Value| {
        let mut e =
            json!({"AuthMethod": "private_key_jwt", "Jwks": jwks.trim(), "ClientSecret": null});
        e.as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap());
        e
    };
    let p = start(&[
        ("pk", rp("pk", pk(json!({})))),
        // HS256 ID tokens need the secret: a private_key_jwt client may keep one.
        ("pks", rp("pks", pk(json!({"ClientSecret": SECRET})))),
    ]);
    let sid = p.login("dwho");
    let url = p.url("/oauth2/token");
    for (client, file, kid, alg) in [
        ("pks", "rsa.pem", "rsa1", "RS256"),
        ("pks", "ec.pem", "ec1", "ES256"),
    ] {
        let c = code(&p, &sid, client, "");
        let pem = format!("{dir_s}/{file}");
        let out = python(Some(&p), &["redeem", &url, client, &pem, kid, alg, &c, CB]);
        let t: Value = serde_json::from_str(out.trim()).unwrap();
        assert!(
            t["access_token"].is_string() && t["id_token"].is_string(),
            "{t}"
        );
    }
    // An RP without a secret whose ID tokens are HS* is disabled (the secret is their key).
    assert!(p.log().contains("relying party pk disabled"));
    // The secret is no way in for a private_key_jwt client.
    let c = code(&p, &sid, "pks", "");
    let r = redeem(&p, "pks", &c);
    assert_eq!(oauth_err(&r).0, 401);
    // The key read by Limette signs what the RP's key set verifies; a wrong kid is refused.
    let rsa = std::fs::read_to_string(dir.path().join("rsa.pem")).unwrap();
    let key = PrivateKey::from_pem(KeyKind::Rsa, &rsa, "rsa1").unwrap();
    let a = jwt::sign(
        &claims("pks", &url),
        Alg::RS256,
        "JWT",
        SignKey::Private(&key),
    )
    .unwrap();
    let wrong_kid = PrivateKey::from_pem(KeyKind::Rsa, &rsa, "other").unwrap();
    let b = jwt::sign(
        &claims("pks", &url),
        Alg::RS256,
        "JWT",
        SignKey::Private(&wrong_kid),
    );
    assert_eq!(
        oauth_err(&redeem_with(&p, &b.unwrap(), &c)).1,
        "invalid_client"
    );
    assert_eq!(redeem_with(&p, &a, &c).status, 200);
}

#[test]
fn client_secret_jwt_and_every_refusal() {
    let (pem, _) = limette::oidc::keygen::generate(KeyKind::Ec).unwrap();
    let ec = PrivateKey::from_pem(KeyKind::Ec, &pem, "k1").unwrap();
    let jwks = json!({"keys": [ec.public().to_json()]}).to_string();
    let p = start(&[
        ("sj", rp("sj", json!({"AuthMethod": "client_secret_jwt"}))),
        (
            "pk",
            rp("pk", json!({"AuthMethod": "private_key_jwt", "Jwks": jwks})),
        ),
        ("plain", rp("plain", json!({}))),
    ]);
    let sid = p.login("dwho");
    let url = p.url("/oauth2/token");
    let hs = |c: &Map<String, Value>, alg: Alg, key: &[u8]| {
        jwt::sign(c, alg, "JWT", SignKey::Secret(key)).unwrap()
    };
    let refused = |assertion: &str, code: &str, why: &str| {
        let r = redeem_with(&p, assertion, code);
        assert_eq!(
            oauth_err(&r),
            (401, "invalid_client".to_string(), None),
            "{why}: {}",
            r.text()
        );
    };
    let c = code(&p, &sid, "sj", "");
    let with = |extra: Value| {
        let mut m = claims("sj", &url);
        for (k, v) in extra.as_object().unwrap() {
            m.insert(k.clone(), v.clone());
        }
        m
    };
    let now = limette::util::now();
    refused(
        &hs(
            &with(json!({"aud": "https://elsewhere/token"})),
            Alg::HS256,
            SECRET.as_bytes(),
        ),
        &c,
        "wrong aud",
    );
    refused(
        &hs(
            &with(json!({"exp": now - 1})),
            Alg::HS256,
            SECRET.as_bytes(),
        ),
        &c,
        "expired",
    );
    refused(
        &hs(
            &with(json!({"exp": now + 7200})),
            Alg::HS256,
            SECRET.as_bytes(),
        ),
        &c,
        "lives two hours",
    );
    refused(
        &hs(
            &with(json!({"iss": "plain"})),
            Alg::HS256,
            SECRET.as_bytes(),
        ),
        &c,
        "iss of another client",
    );
    refused(
        &hs(&with(json!({})), Alg::HS256, b"not-the-secret"),
        &c,
        "wrong signature",
    );
    let none = jwt::sign(&with(json!({})), Alg::None, "JWT", SignKey::Unsigned).unwrap();
    refused(&none, &c, "alg none");
    let ec_signed = jwt::sign(&with(json!({})), Alg::ES256, "JWT", SignKey::Private(&ec)).unwrap();
    refused(&ec_signed, &c, "an asymmetric alg for client_secret_jwt");
    // A method the RP is not registered for: Basic for sj, an assertion for plain and pk.
    assert_eq!(oauth_err(&redeem(&p, "sj", &c)).0, 401);
    refused(
        &hs(&claims("plain", &url), Alg::HS256, SECRET.as_bytes()),
        &c,
        "plain: unset method",
    );
    refused(
        &hs(&claims("pk", &url), Alg::HS256, SECRET.as_bytes()),
        &c,
        "pk: secret-keyed",
    );
    // Another assertion type, or a secret beside the assertion.
    let good = hs(
        &with(json!({"aud": p.url("/")})),
        Alg::HS512,
        SECRET.as_bytes(),
    );
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
        (
            "client_assertion_type",
            "urn:ietf:params:oauth:client-assertion-type:saml2-bearer",
        ),
        ("client_assertion", good.as_str()),
    ];
    assert_eq!(oauth_err(&token(&p, None, &f)).0, 401);
    let mut two = f.to_vec();
    two[3].1 = TYPE;
    two.push(("client_secret", SECRET));
    assert_eq!(oauth_err(&token(&p, None, &two)).1, "invalid_request");
    // Every refusal left the code alone; the issuer as audience is accepted.
    let r = redeem_with(&p, &good, &c);
    assert_eq!(r.status, 200, "{}", r.text());
    // Replayed: the same assertion again, at the introspection endpoint too.
    let replay = p.client().post_form(
        "/oauth2/introspect",
        &[
            ("token", "x"),
            ("client_assertion_type", TYPE),
            ("client_assertion", &good),
        ],
        &[],
    );
    assert_eq!(oauth_err(&replay).1, "invalid_client");
    // private_key_jwt with the EC key, aud the introspection endpoint.
    let at = r.json()["access_token"].as_str().unwrap().to_string();
    let pk_claims = claims("pk", &p.url("/oauth2/introspect"));
    let a = jwt::sign(&pk_claims, Alg::ES256, "JWT", SignKey::Private(&ec)).unwrap();
    let i = p.client().post_form(
        "/oauth2/introspect",
        &[
            ("token", &at),
            ("client_assertion_type", TYPE),
            ("client_assertion", &a),
        ],
        &[],
    );
    assert_eq!(
        (i.status, i.json()["active"].clone()),
        (200, json!(false)),
        "{}",
        i.text()
    );
    assert!(p.log().contains("jti already used"));
}

#[test]
fn introspection_answers_a_signed_jwt_on_request() {
    let p = start(&[("rs", rp("rs", json!({"IDTokenSignAlg": "RS256"})))]);
    let sid = p.login("dwho");
    let c = code(&p, &sid, "rs", "");
    let at = redeem(&p, "rs", &c).json()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let ask = |accept: &str| {
        p.client().post_form(
            "/oauth2/introspect",
            &[("token", &at)],
            &[("Authorization", &basic("rs", SECRET)), ("Accept", accept)],
        )
    };
    assert_eq!(ask("application/json").json()["active"], true);
    let r = ask("application/token-introspection+jwt");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/token-introspection+jwt")
    );
    assert!(r.header("cache-control").unwrap().contains("no-store"));
    let t = r.text();
    let header = jwt_part(&t, 0);
    assert_eq!(
        (header["typ"].as_str(), header["alg"].as_str()),
        (Some("token-introspection+jwt"), Some("RS256"))
    );
    let jwks = p.client().get_json("/oauth2/jwks").json();
    let key = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == header["kid"])
        .and_then(PublicJwk::from_json)
        .unwrap();
    let claims = jwt::verify(&t, Alg::RS256, VerifyKey::Public(&key)).unwrap();
    assert_eq!(claims["iss"], p.url("/"));
    assert_eq!(claims["aud"], "rs");
    assert!(claims["iat"].is_i64());
    let inner = &claims["token_introspection"];
    assert_eq!(
        (inner["active"].clone(), inner["sub"].clone()),
        (json!(true), json!("dwho"))
    );
    // A forged signature does not verify.
    let forged = format!("{}x", &t[..t.len() - 2]);
    assert!(jwt::verify(&forged, Alg::RS256, VerifyKey::Public(&key)).is_err());
    let disco = p
        .client()
        .get_json("/.well-known/openid-configuration")
        .json();
    assert!(disco["introspection_signing_alg_values_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("RS256")));
}

/// `POST /oauth2/register` with a JSON body.
fn register(p: &Portal, body: &Value) -> Resp {
    p.client().send(
        "POST",
        "/oauth2/register",
        &[("Content-Type", "application/json")],
        &serde_json::to_vec(body).unwrap(),
    )
}

#[test]
fn registration_then_a_code_flow_with_the_new_client() {
    let p = builder(&[("rp1", rp("rp1", json!({})))])
        .conf("oidcServiceAllowDynamicRegistration", json!(1))
        .conf("oidcServiceDynamicRegistrationRate", json!(100))
        .conf(
            "oidcServiceDynamicRegistrationExportedVars",
            json!({"email": "mail"}),
        )
        .conf("restConfigServer", json!(1))
        .start();
    let disco = p
        .client()
        .get_json("/.well-known/openid-configuration")
        .json();
    assert_eq!(disco["registration_endpoint"], p.url("/oauth2/register"));
    let before = p.client().get_json("/config/latest").json()["cfgNum"]
        .as_i64()
        .unwrap();
    let r = register(
        &p,
        &json!({"redirect_uris": [CB], "client_name": "Dyn",
        "token_endpoint_auth_method": "client_secret_post", "grant_types": ["authorization_code"]}),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(r.header("cache-control").unwrap().contains("no-store"));
    let a = r.json();
    let (id, secret) = (
        a["client_id"].as_str().unwrap(),
        a["client_secret"].as_str().unwrap(),
    );
    assert_eq!(
        (
            a["client_secret_expires_at"].clone(),
            a["redirect_uris"].clone()
        ),
        (json!(0), json!([CB]))
    );
    assert_eq!(a["id_token_signed_response_alg"], "RS256");
    let latest = p.client().get_json("/config/latest").json();
    assert!(latest["cfgNum"].as_i64().unwrap() > before);
    assert_eq!(latest["cfgAuthor"], "OpenID Connect Registration (Dyn)");
    assert_eq!(latest["cfgAuthorIP"], "127.0.0.1");
    // The running server serves it at once: consent, code, token with the new secret.
    let sid = p.login("dwho");
    let c = consented_code(&p, &sid, id, "openid profile email");
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
        ("client_id", id),
        ("client_secret", secret),
    ];
    let t = token(&p, None, &f);
    assert_eq!(t.status, 200, "{}", t.text());
    let id_token = t.json()["id_token"].as_str().unwrap().to_string();
    assert_eq!(
        (
            jwt_part(&id_token, 0)["alg"].clone(),
            jwt_part(&id_token, 1)["aud"][0].clone()
        ),
        (json!("RS256"), json!(id))
    );
    // Registered for client_secret_post: Basic is refused.
    assert_eq!(oauth_err(&token(&p, Some((id, secret)), &f[..3])).0, 401);
    // Bad metadata, with RFC 7591's codes.
    let bad = |body: Value, code: &str| {
        let r = register(&p, &body);
        assert_eq!(
            (r.status, r.json()["error"].as_str().unwrap().to_string()),
            (400, code.to_string()),
            "{body}"
        );
    };
    bad(json!({"client_name": "no uris"}), "invalid_redirect_uri");
    bad(
        json!({"redirect_uris": ["https://rp/cb#frag"]}),
        "invalid_redirect_uri",
    );
    bad(
        json!({"redirect_uris": ["/relative"]}),
        "invalid_redirect_uri",
    );
    bad(
        json!({"redirect_uris": [CB], "id_token_signed_response_alg": "none"}),
        "invalid_client_metadata",
    );
    bad(
        json!({"redirect_uris": [CB], "token_endpoint_auth_method": "private_key_jwt"}),
        "invalid_client_metadata",
    );
    // A jwks_uri that is not an absolute http(s) URI.
    bad(
        json!({"redirect_uris": [CB], "jwks_uri": "rp/jwks",
            "token_endpoint_auth_method": "private_key_jwt"}),
        "invalid_client_metadata",
    );
    bad(json!(["not", "an", "object"]), "invalid_client_metadata");
    // Nothing refused was saved.
    let after = p.client().get_json("/config/latest").json()["cfgNum"]
        .as_i64()
        .unwrap();
    assert_eq!(after, latest["cfgNum"].as_i64().unwrap());
}

#[test]
fn registration_off_is_no_endpoint() {
    let p = start(&[("rp1", rp("rp1", json!({})))]);
    let disco = p
        .client()
        .get_json("/.well-known/openid-configuration")
        .json();
    assert!(disco.get("registration_endpoint").is_none());
    assert!(disco["token_endpoint_auth_methods_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("private_key_jwt")));
    assert_eq!(register(&p, &json!({"redirect_uris": [CB]})).status, 404);
}
