//! What a relying party is told, with LemonLDAP::NG's per-RP options: extra scopes
//! (`oidcRPMetaDataOptionsExtraClaims`), typed exported variables, per-RP macros, the subject
//! attribute (`UserIDAttr`), claims forced into the ID token, additional audiences, scope rules,
//! declared scopes only, the issuer setting and the provider's own access rule. Each is seen
//! as the RP sees it: the ID token, userinfo, discovery, or the refusal page.
use crate::common::oidc::*;
use crate::common::{Portal, Resp};
use limette::oidc::jwt;
use serde_json::{json, Value};

/// One RP, `app`, with these options and per-RP hashes (`hashes`: top-level keys whose value
/// is this RP's entry), and `extra` top-level settings.
fn portal(opts: Value, hashes: &[(&str, Value)], extra: &[(&str, Value)]) -> Portal {
    let mut b = builder(&[("app", rp("app", opts))]);
    for (k, v) in hashes {
        b = b.conf(k, json!({ "app": v }));
    }
    for (k, v) in extra {
        b = b.conf(k, v.clone());
    }
    b.start()
}

/// Logs `user` in, runs the code flow with `scope`; the token answer.
fn tokens(p: &Portal, user: &str, scope: &str) -> Value {
    let sid = p.login(user);
    let q = format!(
        "response_type=code&client_id=app&scope={}&redirect_uri={}&state=s&nonce=n",
        enc(scope),
        enc(CB)
    );
    let r = authorize(p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let c = param(r.header("location").unwrap(), "code").unwrap();
    let t = redeem(p, "app", &c);
    assert_eq!(t.status, 200, "{}", t.text());
    t.json()
}

fn id_claims(t: &Value) -> Value {
    let idt = t["id_token"].as_str().unwrap();
    Value::Object(jwt::verify_hs256(idt, SECRET.as_bytes()).expect("HS256 with the client secret"))
}

fn userinfo(p: &Portal, t: &Value) -> Resp {
    let bearer = format!("Bearer {}", t["access_token"].as_str().unwrap());
    p.client()
        .get("/oauth2/userinfo", &[("Authorization", bearer.as_str())])
}

#[test]
fn extra_scopes_typed_claims_and_macros_reach_userinfo() {
    let vars = json!({"email": "mail", "name": "cn", "team": "unit;string;always",
        "shout": "loud", "is_doctor": "doctor;bool", "locality": "city"});
    let p = portal(
        json!({}),
        &[
            ("oidcRPMetaDataExportedVars", vars),
            (
                "oidcRPMetaDataOptionsExtraClaims",
                json!({"corp": "team shout is_doctor"}),
            ),
            (
                "oidcRPMetaDataMacros",
                json!({"loud": "uc($cn)", "unit": "\"TARDIS; Gallifrey\"",
                    "doctor": "$uid eq \"dwho\" ? 1 : 0", "city": "\"Cardiff\""}),
            ),
        ],
        &[],
    );
    let t = tokens(&p, "dwho", "openid corp address");
    let u = userinfo(&p, &t);
    assert_eq!(u.status, 200, "{}", u.text());
    assert_eq!(
        u.json(),
        json!({"sub": "dwho", "team": ["TARDIS", "Gallifrey"], "shout": "DOCTOR WHO",
            "is_doctor": true, "address": {"locality": "Cardiff"}})
    );
    // Not forced: the ID token keeps the user's claims out.
    assert!(id_claims(&t).get("shout").is_none());
    let t = tokens(&p, "rtyler", "openid email");
    assert_eq!(
        userinfo(&p, &t).json(),
        json!({"sub": "rtyler", "email": "rtyler@badwolf.org"})
    );
}

#[test]
fn subject_attribute_forced_claims_and_audiences_in_the_id_token() {
    let p = portal(
        json!({"UserIDAttr": "mail", "IDTokenForceClaims": 1,
            "AdditionalAudiences": "api1 https://api2.example"}),
        &[],
        &[],
    );
    let t = tokens(&p, "dwho", "openid profile email");
    let c = id_claims(&t);
    assert_eq!(c["sub"], "dwho@badwolf.org");
    assert_eq!(c["aud"], json!(["app", "api1", "https://api2.example"]));
    assert_eq!(c["azp"], "app");
    assert_eq!(c["name"], "Doctor Who");
    assert_eq!(c["email"], "dwho@badwolf.org");
    assert_eq!(c["iss"], p.url("/"));
    assert_eq!(userinfo(&p, &t).json()["sub"], "dwho@badwolf.org");
    // The subject from a per-RP macro; a user without one gets no code.
    let p = portal(
        json!({"UserIDAttr": "pairwise"}),
        &[(
            "oidcRPMetaDataMacros",
            json!({"pairwise": "$uid eq \"dwho\" ? \"app-\" . $uid : \"\""}),
        )],
        &[],
    );
    assert_eq!(id_claims(&tokens(&p, "dwho", "openid"))["sub"], "app-dwho");
    let sid = p.login("rtyler");
    let q = format!(
        "response_type=code&client_id=app&scope=openid&redirect_uri={}",
        enc(CB)
    );
    let r = authorize(&p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(r.header("location").is_none());
}

#[test]
fn scope_rules_and_declared_scopes_decide_the_granted_scope() {
    let p = portal(
        json!({}),
        &[
            (
                "oidcRPMetaDataExportedVars",
                json!({"email": "mail", "role": "role"}),
            ),
            ("oidcRPMetaDataOptionsExtraClaims", json!({"admin": "role"})),
            (
                "oidcRPMetaDataScopeRules",
                json!({"admin": "$requested and $uid eq \"dwho\""}),
            ),
            ("oidcRPMetaDataMacros", json!({"role": "\"superuser\""})),
        ],
        &[("oidcServiceAllowOnlyDeclaredScopes", json!(1))],
    );
    // dwho asked for admin and the rule grants it; the undeclared scope is dropped.
    let t = tokens(&p, "dwho", "openid admin foo");
    let at = t["access_token"].as_str().unwrap();
    let intro = p.client().post_form(
        "/oauth2/introspect",
        &[("token", at)],
        &[("Authorization", &basic("app", SECRET))],
    );
    assert_eq!(intro.json()["scope"], "openid admin", "{}", intro.text());
    assert_eq!(userinfo(&p, &t).json()["role"], "superuser");
    // rtyler asked too; the rule removes it.
    let t = tokens(&p, "rtyler", "openid admin");
    assert!(userinfo(&p, &t).json().get("role").is_none());
    // Not asked: not granted ($requested).
    let t = tokens(&p, "dwho", "openid email");
    assert_eq!(
        userinfo(&p, &t).json(),
        json!({"sub": "dwho", "email": "dwho@badwolf.org"})
    );
}

#[test]
fn the_provider_rule_and_the_issuer_setting() {
    let iss = "https://sso.example.org";
    let p = portal(
        json!({}),
        &[],
        &[
            ("issuerDBOpenIDConnectRule", json!("$uid ne \"rtyler\"")),
            ("oidcServiceMetaDataIssuer", json!(iss)),
        ],
    );
    let c = id_claims(&tokens(&p, "dwho", "openid"));
    assert_eq!(c["iss"], iss);
    let d = p
        .client()
        .get("/.well-known/openid-configuration", &[])
        .json();
    assert_eq!(d["issuer"], iss);
    assert_eq!(d["token_endpoint"], format!("{iss}/oauth2/token"));
    assert!(d["claims_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("sid")));
    // rtyler may not use the provider at all: portal error 90, no code.
    let sid = p.login("rtyler");
    let r = authorize(&p, Some(&sid), &query("app", ""), &[]);
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(r.text().contains("Access not granted on OIDC service"));
    let r = authorize(
        &p,
        Some(&sid),
        &query("app", ""),
        &[("Accept", "application/json")],
    );
    assert_eq!(r.json(), json!({"result": 0, "error": "90"}));
}

#[test]
fn options_that_cannot_be_read_disable_the_rp_with_a_reason() {
    let p = portal(
        json!({}),
        &[("oidcRPMetaDataScopeRules", json!({"admin": "$uid eq"}))],
        &[],
    );
    let sid = p.login("dwho");
    let r = authorize(&p, Some(&sid), &query("app", ""), &[]);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(p
        .log()
        .contains("relying party app disabled: oidcRPMetaDataScopeRules/app/admin = $uid eq"));
}
