//! One decision for every grant: the authorization request, the password grant and the client
//! credentials grant each meet the provider's rule (`issuerDBOpenIDConnectRule`), the RP's rule,
//! the RP's authentication level (grants that stand for a user) and its scope rules. Each test
//! asks one grant to do what each check forbids.
use super::oauth_err;
use crate::common::oidc::*;
use crate::common::Portal;
use serde_json::{json, Value};

const BOTH: &str = r#"{"AllowPasswordGrant": 1, "AllowClientCredentialsGrant": 1}"#;

/// `open`: a scope rule granting `admin` to dwho alone; `ruled`: a rule admitting dwho alone;
/// `high`: authentication level 2 (the Demo module gives 1 on http); `banned`: a client the
/// provider's rule refuses. Every one may use both grants; rtyler is refused by the provider.
fn portal() -> Portal {
    let with = |extra: Value| {
        let mut o: Value = serde_json::from_str(BOTH).unwrap();
        o.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        o
    };
    builder(&[
        ("open", rp("open", with(json!({})))),
        (
            "ruled",
            rp("ruled", with(json!({"Rule": "$uid eq \"dwho\""}))),
        ),
        ("high", rp("high", with(json!({"AuthnLevel": 2})))),
        ("banned", rp("banned", with(json!({})))),
    ])
    .conf(
        "issuerDBOpenIDConnectRule",
        json!("$uid ne \"rtyler\" and $uid ne \"banned\""),
    )
    .conf(
        "oidcRPMetaDataScopeRules",
        json!({"open": {"admin": "$uid eq \"dwho\""}}),
    )
    .start()
}

fn password(p: &Portal, client: &str, user: &str, scope: &str) -> crate::common::Resp {
    let f = [
        ("grant_type", "password"),
        ("username", user),
        ("password", user),
        ("scope", scope),
    ];
    token(p, Some((client, SECRET)), &f)
}

fn client_credentials(p: &Portal, client: &str, scope: &str) -> crate::common::Resp {
    let f = [("grant_type", "client_credentials"), ("scope", scope)];
    token(p, Some((client, SECRET)), &f)
}

/// The scope an access token was granted, by introspection.
fn granted(p: &Portal, client: &str, r: &crate::common::Resp) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    let at = r.json()["access_token"].as_str().unwrap().to_string();
    let i = p.client().post_form(
        "/oauth2/introspect",
        &[("token", &at)],
        &[("Authorization", &basic(client, SECRET))],
    );
    i.json()["scope"].clone()
}

fn invalid_grant() -> (u16, String, Option<String>) {
    (400, "invalid_grant".to_string(), None)
}

#[test]
fn the_password_grant_meets_every_check_of_authorize() {
    let p = portal();
    // The provider's rule: rtyler may not use the service at all.
    assert_eq!(
        oauth_err(&password(&p, "open", "rtyler", "openid")),
        invalid_grant()
    );
    // The RP's rule.
    assert_eq!(
        oauth_err(&password(&p, "ruled", "msmith", "openid")),
        invalid_grant()
    );
    assert_eq!(password(&p, "ruled", "dwho", "openid").status, 200);
    // The RP's authentication level: a password login on http is level 1.
    assert_eq!(
        oauth_err(&password(&p, "high", "dwho", "openid")),
        invalid_grant()
    );
    // The scope rule drops what it does not grant; nothing left is invalid_scope.
    let r = password(&p, "open", "msmith", "openid admin");
    assert_eq!(granted(&p, "open", &r), "openid");
    let r = password(&p, "open", "dwho", "openid admin");
    assert_eq!(granted(&p, "open", &r), "openid admin");
    let r = password(&p, "open", "msmith", "admin");
    assert_eq!(oauth_err(&r), (400, "invalid_scope".to_string(), None));
}

#[test]
fn the_client_credentials_grant_meets_the_checks_that_apply_to_a_client() {
    let p = portal();
    // The provider's rule, on the client's attributes ($uid = its client id).
    assert_eq!(
        oauth_err(&client_credentials(&p, "banned", "read")),
        invalid_grant()
    );
    // The RP's rule: the client is no user dwho.
    assert_eq!(
        oauth_err(&client_credentials(&p, "ruled", "read")),
        invalid_grant()
    );
    // No user, no authentication level: the RP's level does not apply to a client.
    assert_eq!(client_credentials(&p, "high", "read").status, 200);
    // A scope rule sees no user attributes: `admin` (dwho alone) is never granted.
    let r = client_credentials(&p, "open", "read admin");
    assert_eq!(granted(&p, "open", &r), "read");
    let r = client_credentials(&p, "open", "admin");
    assert_eq!(oauth_err(&r), (400, "invalid_scope".to_string(), None));
}

#[test]
fn the_authorization_request_meets_the_same_checks() {
    let p = portal();
    let refused = |user: &str, client: &str, code: &str| {
        let sid = p.login(user);
        let r = authorize(
            &p,
            Some(&sid),
            &query(client, ""),
            &[("Accept", "application/json")],
        );
        assert_eq!(r.status, 403, "{}", r.text());
        assert_eq!(r.json()["error"], code, "{user} at {client}");
    };
    refused("rtyler", "open", "90");
    refused("msmith", "ruled", "84");
    refused("dwho", "high", "102");
    // The scope rule: msmith's code is for a scope without admin.
    let sid = p.login("msmith");
    let q = query("open", "").replace("scope=openid+profile+email", "scope=openid+admin");
    let r = authorize(&p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let c = param(r.header("location").unwrap(), "code").unwrap();
    let t = redeem(&p, "open", &c);
    assert_eq!(granted(&p, "open", &t), "openid");
}
