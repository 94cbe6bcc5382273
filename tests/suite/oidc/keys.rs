//! Asymmetric signing over HTTP: RS256, ES256 and EdDSA relying parties complete the code flow
//! and an independent library (Authlib, Python's cryptography) verifies their ID tokens
//! against `/oauth2/jwks` by `kid`; a LemonLDAP::NG configuration's own RSA key and `kid` are
//! used as given; missing keys are generated once and saved; `config rotate-keys` keeps the
//! previous key published until its tokens have expired (moved clock).
use crate::common::config::{cli, poll};
use crate::common::oidc::*;
use crate::common::{Portal, TempDir};
use serde_json::{json, Value};
use std::time::Duration;

use super::rp::run_authlib_rp;
use crate::python;

/// Runs the Authlib relying party against `p` for `client`, checking keys as `how` says.
fn rp_flow(p: &Portal, client: &str, how: &str) -> String {
    let stdout = run_authlib_rp(p, &[client, SECRET, CB, how]);
    stdout.trim().rsplit(' ').next().unwrap_or("").to_string()
}

/// The `kid`s `/oauth2/jwks` publishes.
fn kids(p: &Portal) -> Vec<String> {
    let r = p.client().get("/oauth2/jwks", &[]);
    assert_eq!(r.status, 200);
    r.json()["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap().to_string())
        .collect()
}

/// The header of a JWT.
fn header(token: &str) -> Value {
    use base64::Engine;
    let part = token.split('.').next().unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// An ID token for `client`, through a login and the code flow.
fn id_token(p: &Portal, client: &str) -> String {
    let sid = p.login("dwho");
    let c = code(p, &sid, client, "");
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
    ];
    let t = token(p, Some((client, SECRET)), &f);
    assert_eq!(t.status, 200, "{}", t.text());
    t.json()["id_token"].as_str().unwrap().to_string()
}

#[test]
fn rs256_es256_and_eddsa_rps_verify_against_the_jwks() {
    let p = start(&[
        ("rsa", rp("rsa", json!({"IDTokenSignAlg": "RS256"}))),
        ("ec", rp("ec", json!({"IDTokenSignAlg": "ES256"}))),
        ("ed", rp("ed", json!({"IDTokenSignAlg": "EdDSA"}))),
        ("hs", rp("hs", json!({"IDTokenSignAlg": null}))),
    ]);
    let published = kids(&p);
    assert_eq!(published.len(), 3, "one key per family: {published:?}");
    let mut used = Vec::new();
    for (client, alg) in [("rsa", "RS256"), ("ec", "ES256"), ("ed", "EdDSA")] {
        let kid = rp_flow(&p, client, &format!("jwks:{alg}"));
        assert!(published.contains(&kid), "{kid} not in {published:?}");
        used.push(kid);
    }
    used.dedup();
    assert_eq!(used.len(), 3, "each family signs with its own key");
    // Unset is LemonLDAP::NG 2.16's default, HS512, keyed by the client secret.
    assert_eq!(header(&id_token(&p, "hs"))["alg"], "HS512");
    rp_flow(&p, "hs", "secret");
    let meta = p
        .client()
        .get("/.well-known/openid-configuration", &[])
        .json();
    assert_eq!(
        meta["id_token_signing_alg_values_supported"],
        json!(["HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "EdDSA"])
    );
    // The keys were saved as a new configuration that says why, not kept in memory.
    let saved = std::fs::read_to_string(p.data().join("conf/lmConf-2.json")).unwrap();
    let saved: Value = serde_json::from_str(&saved).unwrap();
    assert!(saved["cfgLog"]
        .as_str()
        .unwrap()
        .contains("Signing keys generated"));
    assert!(saved["oidcServiceEcPrivateKeySig"]
        .as_str()
        .unwrap()
        .contains("BEGIN PRIVATE KEY"));
}

#[test]
fn an_llng_rsa_key_is_used_as_given() {
    // A PKCS#1 key as LemonLDAP::NG's manager writes it, made by OpenSSL, not by Limette.
    let dir = TempDir::new("llngkey");
    let pem_path = dir.path().join("key.pem");
    let made = std::process::Command::new("openssl")
        .args(["genrsa", "-traditional", "-out"])
        .arg(&pem_path)
        .arg("2048")
        .output()
        .expect("openssl runs");
    assert!(made.status.success(), "{made:?}");
    let pem = std::fs::read_to_string(&pem_path).unwrap();
    assert!(pem.starts_with("-----BEGIN RSA PRIVATE KEY-----"));
    let p = builder(&[("rsa", rp("rsa", json!({"IDTokenSignAlg": "RS256"})))])
        .conf("oidcServicePrivateKeySig", json!(pem))
        .conf("oidcServiceKeyIdSig", json!("llng-kid-2024"))
        .start();
    assert_eq!(kids(&p), vec!["llng-kid-2024"]);
    let how = format!("pem:{}:llng-kid-2024:RS256", pem_path.display());
    assert_eq!(rp_flow(&p, "rsa", &how), "llng-kid-2024");
    // Nothing was missing, so nothing was saved.
    assert!(!p.data().join("conf/lmConf-2.json").exists());
}

#[test]
fn rotation_keeps_old_tokens_verifiable_until_they_expire() {
    let p = builder(&[("ec", rp("ec", json!({"IDTokenSignAlg": "ES256"})))])
        .conf("oidcServiceIDTokenExpiration", json!(600))
        .conf("oidcServiceAccessTokenExpiration", json!(900))
        .test_hooks()
        .start();
    let old = id_token(&p, "ec");
    let old_kid = header(&old)["kid"].as_str().unwrap().to_string();
    let r = cli(&p, &["-yes", "1", "rotate-keys"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(
        poll(Duration::from_secs(20), || kids(&p).len() == 3),
        "the new keys are published: {:?}\n{}",
        kids(&p),
        p.log()
    );
    let new = id_token(&p, "ec");
    let new_kid = header(&new)["kid"].as_str().unwrap().to_string();
    assert_ne!(new_kid, old_kid, "the new key signs from now on");
    assert!(kids(&p).contains(&old_kid) && kids(&p).contains(&new_kid));
    // Both tokens verify with an independent library against the JWKS in force.
    verify_with_jwks(&p, &old, &old_kid);
    verify_with_jwks(&p, &new, &new_kid);
    assert_eq!(logout_with_hint(&p, &old), 302, "{}", p.log());
    // The longest token lifetime (900 s) later, the previous key leaves; the new one stays.
    crate::common::clock::advance(&p, 901);
    let now = kids(&p);
    assert!(!now.contains(&old_kid) && now.contains(&new_kid), "{now:?}");
    assert_eq!(logout_with_hint(&p, &old), 400);
    assert_eq!(logout_with_hint(&p, &new), 302);
}

/// RP-initiated logout with an ID token as hint: 302 to the registered URI when the hint
/// verifies, 400 when it does not.
fn logout_with_hint(p: &Portal, hint: &str) -> u16 {
    let q = format!(
        "/oauth2/logout?id_token_hint={}&post_logout_redirect_uri={}",
        enc(hint),
        enc("http://127.0.0.1:19999/bye")
    );
    p.client().get(&q, &[]).status
}

/// Python's Authlib checks a token's signature with the published key its `kid` names.
fn verify_with_jwks(p: &Portal, token: &str, kid: &str) {
    let code = r#"
import sys, json, urllib.request, warnings
warnings.simplefilter("ignore")
from authlib.jose import JsonWebKey, jwt
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
keys = JsonWebKey.import_key_set(json.load(opener.open(sys.argv[1])))
claims = jwt.decode(sys.argv[2], keys)
print("verified", claims["sub"])
"#;
    let out = std::process::Command::new(python::python())
        .args(["-c", code, &p.url("/oauth2/jwks"), token])
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("verified dwho"),
        "token of kid {kid} does not verify: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn signed_userinfo_and_jwt_access_tokens() {
    let opts = json!({"IDTokenSignAlg": "RS256", "UserInfoSignAlg": "EdDSA",
        "AccessTokenJWT": 1, "AccessTokenSignAlg": "ES256", "AccessTokenClaims": 1});
    let p = start(&[("jwt", rp("jwt", opts))]);
    let sid = p.login("dwho");
    let c = code(&p, &sid, "jwt", "");
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
    ];
    let t = token(&p, Some(("jwt", SECRET)), &f).json();
    let at = t["access_token"].as_str().unwrap();
    // RFC 9068: typ at+jwt, signed with the published ES256 key, the user's claims inside.
    let h = header(at);
    assert_eq!(
        (h["typ"].as_str(), h["alg"].as_str()),
        (Some("at+jwt"), Some("ES256"))
    );
    assert!(kids(&p).contains(&h["kid"].as_str().unwrap().to_string()));
    verify_with_jwks(&p, at, "access token");
    // The JWT is a bearer token at userinfo, which answers a signed JWT (OIDC Core 5.3.2).
    let r = p.client().get(
        "/oauth2/userinfo",
        &[("Authorization", &format!("Bearer {at}"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/jwt"));
    // The same no-cache headers as the JSON answer.
    assert_eq!(
        r.header("cache-control"),
        Some("no-cache, no-store, must-revalidate")
    );
    assert_eq!(
        (r.header("pragma"), r.header("expires")),
        (Some("no-cache"), Some("0"))
    );
    let info = r.text();
    assert_eq!(header(&info)["alg"], "EdDSA");
    verify_with_jwks(&p, &info, "userinfo");
    // A forged access token (another signature) is refused.
    let forged = format!("{}x", &at[..at.len() - 2]);
    let r = p.client().get(
        "/oauth2/userinfo",
        &[("Authorization", &format!("Bearer {forged}"))],
    );
    assert_eq!(r.status, 401);
    let intro = p.client().post_form(
        "/oauth2/introspect",
        &[("token", at)],
        &[("Authorization", &basic("jwt", SECRET))],
    );
    assert_eq!(intro.json()["active"], true, "{}", intro.text());
}
