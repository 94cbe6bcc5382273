//! The `claims` request parameter (OpenID Connect Core 5.5) as a relying party uses it:
//! claims asked for in the ID token or at userinfo beyond the scope, by value in the query and
//! as a JSON object in a request object; only claims the RP exports and the user's scope rules
//! allow; `acr` and `sub` values (5.5.1.1, 5.5.1); a malformed one is `invalid_request`; the
//! consent page names what the claims come from.
use crate::common::oidc::*;
use crate::common::Portal;
use limette::oidc::jwt::{self, Alg, SignKey};
use serde_json::{json, Value};

const SPLIT: &str = r#"{"id_token":{"email":{"essential":true}},"userinfo":{"name":null}}"#;

/// The authorize answer for `app` with `scope` and `extra` query parameters.
fn ask(p: &Portal, sid: &str, scope: &str, extra: &str) -> crate::common::Resp {
    let q = format!(
        "response_type=code&client_id=app&scope={}&redirect_uri={}&state=s&nonce=n{extra}",
        enc(scope),
        enc(CB)
    );
    authorize(p, Some(sid), &q, &[])
}

/// The code flow with `extra` in the query: the ID token's claims and userinfo's answer.
fn flow(p: &Portal, sid: &str, extra: &str) -> (Value, Value) {
    let r = ask(p, sid, "openid", extra);
    assert_eq!(r.status, 302, "{}", r.text());
    let loc = r.header("location").unwrap();
    let c = param(loc, "code").unwrap_or_else(|| panic!("no code in {loc}"));
    let t = redeem(p, "app", &c);
    assert_eq!(t.status, 200, "{}", t.text());
    let t = t.json();
    let idt = t["id_token"].as_str().unwrap();
    let id = Value::Object(jwt::verify_hs256(idt, SECRET.as_bytes()).unwrap());
    let bearer = format!("Bearer {}", t["access_token"].as_str().unwrap());
    let u = p
        .client()
        .get("/oauth2/userinfo", &[("Authorization", &bearer)]);
    assert_eq!(u.status, 200, "{}", u.text());
    (id, u.json())
}

fn error_of(r: &crate::common::Resp) -> Option<String> {
    assert_eq!(r.status, 302, "{}", r.text());
    param(r.header("location").unwrap(), "error")
}

#[test]
fn claims_asked_for_beyond_the_scope_reach_the_id_token_and_userinfo() {
    let p = start(&[("app", rp("app", json!({})))]);
    let d = p
        .client()
        .get_json("/.well-known/openid-configuration")
        .json();
    assert_eq!(d["claims_parameter_supported"], true);
    let sid = p.login("dwho");
    // Scope openid alone: email in the ID token only, name at userinfo only.
    let (id, info) = flow(&p, &sid, &format!("&claims={}", enc(SPLIT)));
    assert_eq!(id["email"], "dwho@badwolf.org", "{id}");
    assert!(id.get("name").is_none(), "{id}");
    assert_eq!(info, json!({"sub": "dwho", "name": "Doctor Who"}));
    // Without the parameter, scope openid releases neither.
    let (id, info) = flow(&p, &sid, "");
    assert!(id.get("email").is_none());
    assert_eq!(info, json!({"sub": "dwho"}));
    // A claim the RP does not export is never released, asked for or not; the token's own
    // claims stay its own.
    let c = r#"{"userinfo":{"phone_number":{"essential":true}},"id_token":{"sub":null,"auth_time":{"essential":true}}}"#;
    let (id, info) = flow(&p, &sid, &format!("&claims={}", enc(c)));
    assert_eq!(info, json!({"sub": "dwho"}));
    assert_eq!(id["sub"], "dwho");
    assert!(id["auth_time"].is_number());
    // Malformed: invalid_request, redirected (the redirect URI is the client's).
    for bad in [
        "not json",
        "[1]",
        r#"{"id_token":["email"]}"#,
        r#"{"userinfo":{"email":true}}"#,
        r#"{"id_token":{"email":{"essential":1}}}"#,
    ] {
        let r = ask(&p, &sid, "openid", &format!("&claims={}", enc(bad)));
        assert_eq!(error_of(&r).as_deref(), Some("invalid_request"), "{bad}");
    }
}

#[test]
fn acr_and_sub_values_are_held_to() {
    let p = start(&[("app", rp("app", json!({})))]);
    let sid = p.login("dwho");
    let claims = |c: Value| format!("&claims={}", enc(&c.to_string()));
    let (id, _) = flow(&p, &sid, "");
    let acr = id["acr"].as_str().unwrap().to_string();
    // 5.5.1.1: an essential acr the session cannot meet is a failed authentication.
    let r = ask(
        &p,
        &sid,
        "openid",
        &claims(json!({"id_token": {"acr": {"essential": true, "values": ["loa-9"]}}})),
    );
    assert_eq!(error_of(&r).as_deref(), Some("access_denied"));
    let met = json!({"id_token": {"acr": {"essential": true, "values": ["loa-9", acr]}}});
    assert_eq!(flow(&p, &sid, &claims(met)).0["acr"], json!(acr));
    // Voluntary: the session's acr, nothing refused.
    let voluntary = json!({"id_token": {"acr": {"value": "loa-9"}}});
    assert_eq!(flow(&p, &sid, &claims(voluntary)).0["acr"], json!(acr));
    // 5.5.1: a sub value that is another user's gets no answer for this one.
    let other = json!({"id_token": {"sub": {"value": "rtyler"}}});
    let r = ask(&p, &sid, "openid", &claims(other));
    assert_eq!(error_of(&r).as_deref(), Some("login_required"));
    let mine = json!({"id_token": {"sub": {"value": "dwho"}}});
    assert_eq!(flow(&p, &sid, &claims(mine)).0["sub"], "dwho");
}

#[test]
fn a_scope_rule_that_denies_a_scope_denies_its_claims() {
    let p = builder(&[("app", rp("app", json!({})))])
        .conf(
            "oidcRPMetaDataScopeRules",
            json!({"app": {"email": "$uid eq 'rtyler'"}}),
        )
        .start();
    let sid = p.login("dwho");
    let (id, info) = flow(&p, &sid, &format!("&claims={}", enc(SPLIT)));
    assert!(id.get("email").is_none(), "{id}");
    assert_eq!(info["name"], "Doctor Who");
}

/// In a request object the parameter is a JSON object, not a string (OIDC Core 6.1).
#[test]
fn a_request_object_carries_the_claims_as_an_object() {
    let p = start(&[("app", rp("app", json!({})))]);
    let sid = p.login("dwho");
    let claims = json!({"iss": "app", "aud": p.url("/"), "client_id": "app",
        "response_type": "code", "redirect_uri": CB, "scope": "openid", "nonce": "n",
        "claims": serde_json::from_str::<Value>(SPLIT).unwrap()});
    let m = claims.as_object().cloned().unwrap();
    let obj = jwt::sign(
        &m,
        Alg::HS256,
        "oauth-authz-req+jwt",
        SignKey::Secret(SECRET.as_bytes()),
    )
    .unwrap();
    let (id, info) = flow(&p, &sid, &format!("&request={obj}"));
    assert_eq!(id["email"], "dwho@badwolf.org");
    assert_eq!(info["name"], "Doctor Who");
}

/// The user consents to what is released: the page names the scopes the claims come from,
/// and the consent given covers them.
#[test]
fn the_consent_page_names_what_the_claims_come_from() {
    let p = start(&[("app", rp("app", json!({"BypassConsent": 0})))]);
    let sid = p.login("dwho");
    let page = ask(&p, &sid, "openid", &format!("&claims={}", enc(SPLIT))).text();
    assert!(page.contains("data-scope=\"email\""), "{page}");
    assert!(page.contains("data-scope=\"profile\""), "{page}");
    let plain = ask(&p, &sid, "openid", "").text();
    assert!(!plain.contains("data-scope=\"email\""), "{plain}");
}

/// The request is kept with the tokens: a refreshed ID token and userinfo with the refreshed
/// access token honour it still.
#[test]
fn a_refresh_keeps_the_claims_asked_for() {
    let p = start(&[("app", rp("app", json!({"RefreshToken": 1})))]);
    let sid = p.login("dwho");
    let r = ask(&p, &sid, "openid", &format!("&claims={}", enc(SPLIT)));
    let c = param(r.header("location").unwrap(), "code").unwrap();
    let t = redeem(&p, "app", &c).json();
    let f = [
        ("grant_type", "refresh_token"),
        ("refresh_token", t["refresh_token"].as_str().unwrap()),
    ];
    let t = token(&p, Some(("app", SECRET)), &f);
    assert_eq!(t.status, 200, "{}", t.text());
    let t = t.json();
    let id = jwt::verify_hs256(t["id_token"].as_str().unwrap(), SECRET.as_bytes()).unwrap();
    assert_eq!(id["email"], "dwho@badwolf.org");
    let bearer = format!("Bearer {}", t["access_token"].as_str().unwrap());
    let u = p
        .client()
        .get("/oauth2/userinfo", &[("Authorization", &bearer)]);
    assert_eq!(u.json(), json!({"sub": "dwho", "name": "Doctor Who"}));
}
