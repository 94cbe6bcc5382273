//! Who reaches which relying party: `oidcRPMetaDataOptionsRule`, `oidcRPMetaDataOptionsAuthnLevel`
//! against the Demo module's level, and relying parties disabled at load because their
//! configuration cannot be honoured (unknown clients, one error line each on stderr).
use crate::common::oidc::*;
use limette::oidc::jwt;
use serde_json::json;

const JSON: [(&str, &str); 1] = [("Accept", "application/json")];

/// A refusal after login: 403, the portal error, no redirect, so no code reaches the RP.
fn assert_refused(r: &crate::common::Resp, code: &str, message: &str) {
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(r.header("location").is_none());
    assert!(!r.text().contains("code="), "{}", r.text());
    if r.header("content-type").unwrap_or("").contains("json") {
        assert_eq!(r.json(), json!({"result": 0, "error": code}));
    } else {
        assert!(r.text().contains(message), "{}", r.text());
    }
}

#[test]
fn the_rp_rule_lets_dwho_in_and_keeps_rtyler_out() {
    let rule = json!({"Rule": "$uid eq \"dwho\""});
    let p = start(&[("who", rp("who", rule)), ("all", rp("all", json!({})))]);
    let dwho = p.login("dwho");
    let c = code(&p, &dwho, "who", "");
    assert_eq!(redeem(&p, "who", &c).status, 200);

    let rose = p.login("rtyler");
    let page = authorize(&p, Some(&rose), &query("who", ""), &[]);
    assert!(page.header("content-type").unwrap_or("").contains("html"));
    assert_refused(
        &page,
        "84",
        "You are not authorized to access this application",
    );
    let r = authorize(&p, Some(&rose), &query("who", ""), &JSON);
    assert_refused(&r, "84", "");
    // The rule belongs to one RP: rtyler still reaches the others.
    assert_eq!(
        authorize(&p, Some(&rose), &query("all", ""), &[]).status,
        302
    );
}

#[test]
fn the_rp_authentication_level_is_compared_with_the_demo_level() {
    // The portal is plain http: LemonLDAP::NG's Demo module gives level 1.
    let p = start(&[
        ("high", rp("high", json!({"AuthnLevel": 2}))),
        ("one", rp("one", json!({"AuthnLevel": "1"}))),
    ]);
    let sid = p.login("dwho");
    let page = authorize(&p, Some(&sid), &query("high", ""), &[]);
    assert_refused(
        &page,
        "102",
        "Your authentication level is too low for this application",
    );
    assert_refused(
        &authorize(&p, Some(&sid), &query("high", ""), &JSON),
        "102",
        "",
    );
    let c = code(&p, &sid, "one", "");
    let t = redeem(&p, "one", &c).json();
    let id = t["id_token"].as_str().unwrap();
    let claims = jwt::verify_hs256(id, SECRET.as_bytes()).unwrap();
    assert_eq!(claims["acr"], "loa-1");
    let d = p
        .client()
        .get("/.well-known/openid-configuration", &JSON)
        .json();
    // The names of oidcServiceMetaDataAuthnContext, as LemonLDAP::NG's discovery lists them.
    assert_eq!(
        d["acr_values_supported"],
        json!(["loa-1", "loa-2", "loa-3", "loa-4", "loa-5"])
    );
}

#[test]
fn an_rp_with_an_option_it_cannot_honour_is_an_unknown_client_named_on_stderr() {
    let p = start(&[
        ("reqs", rp("reqs", json!({"LogoutType": "side"}))),
        ("ps256", rp("ps256", json!({"IDTokenSignAlg": "PS256"}))),
        ("typo", rp("typo", json!({"RedirectUri": CB}))),
        (
            "ok",
            rp("ok", json!({"AllowOffline": "0", "LogoutType": "front"})),
        ),
    ]);
    let sid = p.login("dwho");
    for client in ["reqs", "ps256", "typo"] {
        let r = authorize(&p, Some(&sid), &query(client, ""), &JSON);
        assert_eq!(r.status, 400, "{client}: {}", r.text());
        assert_eq!(r.json(), json!({"result": 0, "error": "107"}));
        assert!(r.header("location").is_none());
    }
    let log = p.log();
    for line in [
        "relying party reqs disabled: oidcRPMetaDataOptionsLogoutType = side is not supported (front or back)",
        "relying party ps256 disabled: oidcRPMetaDataOptionsIDTokenSignAlg = PS256 is not supported (one of none, HS256, HS384, HS512, RS256, RS384, RS512, ES256, EdDSA)",
        "relying party typo disabled: oidcRPMetaDataOptionsRedirectUri = *** is not supported (unknown option",
    ] {
        assert_eq!(log.matches(line).count(), 1, "{line}\n{log}");
    }
    assert!(!log.contains("relying party ok"), "{log}");
    assert_eq!(authorize(&p, Some(&sid), &query("ok", ""), &[]).status, 302);
}
