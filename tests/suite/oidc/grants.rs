//! The grants beside the code flow, as a relying party uses them: client credentials, the
//! resource owner's password, offline access, reuse detection of a public client's rotated
//! refresh tokens, and token revocation (RFC 7009, through Authlib), each with its refusals.
use super::oauth_err;
use crate::common::oidc::*;
use crate::common::{Portal, Resp};
use limette::oidc::jwt;
use serde_json::{json, Value};

const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const S256: &str =
    "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256";

fn text(v: &Value, k: &str) -> String {
    v[k].as_str()
        .unwrap_or_else(|| panic!("{k} in {v}"))
        .to_string()
}

fn userinfo(p: &Portal, at: &str) -> Resp {
    let auth = format!("Bearer {at}");
    p.client()
        .get("/oauth2/userinfo", &[("Authorization", &auth)])
}

fn introspect(p: &Portal, client: &str, at: &str) -> Value {
    let r = p.client().post_form(
        "/oauth2/introspect",
        &[("token", at)],
        &[("Authorization", &basic(client, SECRET))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn refresh(p: &Portal, creds: Option<(&str, &str)>, rt: &str, extra: &[(&str, &str)]) -> Resp {
    let mut f = vec![("grant_type", "refresh_token"), ("refresh_token", rt)];
    f.extend_from_slice(extra);
    token(p, creds, &f)
}

fn logout(p: &Portal, sid: &str) {
    let cookie = format!("lemonldap={sid}");
    let h = [("Cookie", cookie.as_str()), ("Accept", "application/json")];
    assert_eq!(p.client().get("/?logout=1", &h).status, 200);
}

fn grant_types(p: &Portal) -> Value {
    let d = p.client().get("/.well-known/openid-configuration", &[]);
    d.json()["grant_types_supported"].clone()
}

#[test]
fn client_credentials_for_a_confidential_client_that_may_use_them() {
    let cc = |extra: Value| {
        let mut o = json!({"AllowClientCredentialsGrant": 1});
        o.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        o
    };
    let only_cc = r#"$_oidc_grant_type eq "clientcredentials" and $uid eq "svc""#;
    let p = start(&[
        ("svc", rp("svc", cc(json!({"Rule": only_cc})))),
        ("pubcc", rp("pubcc", cc(json!({"Public": 1})))),
        ("nocc", rp("nocc", json!({}))),
        (
            "ruled",
            rp("ruled", cc(json!({"Rule": "$uid eq \"dwho\""}))),
        ),
    ]);
    let ask = |client: &str, scope: &str| {
        let f = [("grant_type", "client_credentials"), ("scope", scope)];
        token(&p, Some((client, SECRET)), &f)
    };
    let r = ask("svc", "read write");
    assert_eq!(r.status, 200, "{}", r.text());
    let t = r.json();
    assert_eq!(t["token_type"], "Bearer");
    assert!(
        t.get("id_token").is_none() && t.get("refresh_token").is_none(),
        "{t}"
    );
    let at = text(&t, "access_token");
    // The token stands for the client: userinfo answers its subject, as LemonLDAP::NG.
    let u = userinfo(&p, &at);
    assert_eq!(u.status, 200, "{}", u.text());
    assert_eq!(u.json()["sub"], "svc");
    let i = introspect(&p, "svc", &at);
    assert_eq!(
        (&i["active"], &i["client_id"], &i["sub"], &i["scope"]),
        (
            &json!(true),
            &json!("svc"),
            &json!("svc"),
            &json!("read write")
        )
    );
    // Refusals: no scope, a client without the option, a public client, the RP's rule.
    assert_eq!(
        oauth_err(&ask("svc", "")),
        (400, "invalid_scope".into(), None)
    );
    let unauthorized = (400, "unauthorized_client".to_string(), None);
    assert_eq!(oauth_err(&ask("nocc", "read")), unauthorized);
    let public = [
        ("grant_type", "client_credentials"),
        ("scope", "read"),
        ("client_id", "pubcc"),
    ];
    assert_eq!(oauth_err(&token(&p, None, &public)), unauthorized);
    assert_eq!(oauth_err(&ask("ruled", "read")).1, "invalid_grant");
    let wrong = [("grant_type", "client_credentials"), ("scope", "read")];
    assert_eq!(
        oauth_err(&token(&p, Some(("svc", "nope")), &wrong)).1,
        "invalid_client"
    );
    // Discovery lists the grant once some confidential client may use it.
    assert_eq!(
        grant_types(&p),
        json!(["authorization_code", "refresh_token", "client_credentials"])
    );
    assert_eq!(
        grant_types(&start_default()),
        json!(["authorization_code", "refresh_token"])
    );
}

#[test]
fn password_grant_through_the_portals_login() {
    let p = builder(&[
        ("pw", rp("pw", json!({"AllowPasswordGrant": 1, "RefreshToken": 1}))),
        (
            "pwrule",
            rp("pwrule", json!({"AllowPasswordGrant": 1, "Rule": "$uid eq \"rtyler\" and $_oidc_grant_type eq \"password\""})),
        ),
        ("nopw", rp("nopw", json!({}))),
    ])
    .conf("loginHistoryEnabled", json!(1))
    .conf("bruteForceProtection", json!(1))
    .conf("bruteForceProtectionMaxFailed", json!(2))
    .start();
    let ask = |client: &str, user: &str, pass: &str, scope: &str| {
        let f = [
            ("grant_type", "password"),
            ("username", user),
            ("password", pass),
            ("scope", scope),
        ];
        token(&p, Some((client, SECRET)), &f)
    };
    let r = ask("pw", "dwho", "dwho", "openid profile email");
    assert_eq!(r.status, 200, "{}", r.text());
    let t = r.json();
    let claims = jwt::verify_hs256(&text(&t, "id_token"), SECRET.as_bytes()).unwrap();
    assert_eq!(
        (&claims["sub"], &claims["aud"]),
        (&json!("dwho"), &json!(["pw"]))
    );
    assert_eq!(claims["at_hash"], jwt::at_hash(&text(&t, "access_token")));
    let u = userinfo(&p, &text(&t, "access_token")).json();
    assert_eq!(u["email"], "dwho@badwolf.org");
    let n = refresh(&p, Some(("pw", SECRET)), &text(&t, "refresh_token"), &[]);
    assert_eq!(n.status, 200, "{}", n.text());
    // Without openid: no ID token.
    let t = ask("pw", "dwho", "dwho", "profile").json();
    assert!(
        t.get("id_token").is_none() && t.get("access_token").is_some(),
        "{t}"
    );
    // Refusals.
    let invalid_grant = (400, "invalid_grant".to_string(), None);
    assert_eq!(
        oauth_err(&ask("pw", "dwho", "wrong", "openid")),
        invalid_grant
    );
    assert_eq!(
        oauth_err(&ask("pw", "nobody", "x", "openid")),
        invalid_grant
    );
    let missing = [
        ("grant_type", "password"),
        ("username", "dwho"),
        ("scope", "openid"),
    ];
    assert_eq!(
        oauth_err(&token(&p, Some(("pw", SECRET)), &missing)).1,
        "invalid_request"
    );
    assert_eq!(
        oauth_err(&ask("nopw", "dwho", "dwho", "openid")),
        (400, "unauthorized_client".into(), None)
    );
    assert_eq!(
        oauth_err(&ask("pwrule", "dwho", "dwho", "openid")),
        invalid_grant
    );
    assert_eq!(ask("pwrule", "rtyler", "rtyler", "openid").status, 200);
    // The portal's brute-force lock counts the grant's failures: after two, even the right
    // password is refused for a while, here and at the login form alike.
    assert_eq!(
        oauth_err(&ask("pw", "dwho", "wrong", "openid")),
        invalid_grant
    );
    assert_eq!(
        oauth_err(&ask("pw", "dwho", "dwho", "openid")),
        invalid_grant
    );
    let form = [("user", "dwho"), ("password", "dwho")];
    let json = [("Accept", "application/json")];
    assert_eq!(
        p.client().post_form("/", &form, &json).json()["error"],
        "86"
    );
    let types = grant_types(&p);
    assert_eq!(
        types,
        json!(["authorization_code", "refresh_token", "password"])
    );
}

#[test]
fn a_replayed_rotated_refresh_token_revokes_its_family() {
    let p = start(&[("pub", rp("pub", json!({"Public": 1, "RefreshToken": 1})))]);
    let sid = p.login("dwho");
    let c = code(&p, &sid, "pub", S256);
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
        ("client_id", "pub"),
    ];
    let t = token(&p, None, &f).json();
    let (at1, rt1) = (text(&t, "access_token"), text(&t, "refresh_token"));
    let pubc = [("client_id", "pub")];
    let n = refresh(&p, None, &rt1, &pubc).json();
    let (at2, rt2) = (text(&n, "access_token"), text(&n, "refresh_token"));
    assert_eq!(userinfo(&p, &at2).status, 200);
    // An attacker (or the client after a lost answer) presents the used one again.
    assert_eq!(
        oauth_err(&refresh(&p, None, &rt1, &pubc)).1,
        "invalid_grant"
    );
    // RFC 9700 4.14.2: the whole family is revoked, newest tokens included.
    assert_eq!(
        oauth_err(&refresh(&p, None, &rt2, &pubc)).1,
        "invalid_grant"
    );
    for at in [&at1, &at2] {
        assert_eq!(userinfo(&p, at).status, 401);
    }
    assert!(p.log().contains("oidc_refresh_replayed"), "{}", p.log());
    // Another login's family is untouched: the user's other grants live on.
    let c = code(&p, &sid, "pub", S256);
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
        ("client_id", "pub"),
    ];
    let t = token(&p, None, &f).json();
    assert_eq!(
        refresh(&p, None, &text(&t, "refresh_token"), &pubc).status,
        200
    );
}

/// A token lives only while its family does: with the family gone and the tokens left (what a
/// revocation cut short would leave), userinfo, introspection and the refresh grant refuse them.
#[test]
fn tokens_whose_family_is_gone_are_refused() {
    let p = start(&[("rp", rp("rp", json!({"RefreshToken": 1})))]);
    let sid = p.login("dwho");
    let t = redeem(&p, "rp", &code(&p, &sid, "rp", "")).json();
    let (at, rt) = (text(&t, "access_token"), text(&t, "refresh_token"));
    assert_eq!(userinfo(&p, &at).status, 200);
    assert_eq!(introspect(&p, "rp", &at)["active"], true);
    let oidc = p.data().join("sessions").join("oidc");
    let rec: Value = serde_json::from_slice(&std::fs::read(oidc.join(&at)).unwrap()).unwrap();
    let family = oidc.join(text(&rec, "_family"));
    assert!(family.is_file(), "{}", family.display());
    std::fs::remove_file(&family).unwrap();
    assert!(oidc.join(&at).is_file() && oidc.join(&rt).is_file());
    let r = userinfo(&p, &at);
    assert_eq!(r.status, 401);
    assert!(
        r.header("www-authenticate")
            .unwrap_or("")
            .contains("invalid_token"),
        "{:?}",
        r.header("www-authenticate")
    );
    assert_eq!(introspect(&p, "rp", &at)["active"], false);
    let r = refresh(&p, Some(("rp", SECRET)), &rt, &[]);
    assert_eq!(oauth_err(&r).1, "invalid_grant");
}

#[test]
fn offline_refresh_tokens_outlive_the_sso_session_and_are_revoked_per_user() {
    let p = start(&[
        (
            "off",
            rp(
                "off",
                json!({"AllowOffline": 1, "OfflineSessionExpiration": 600}),
            ),
        ),
        ("online", rp("online", json!({"RefreshToken": 1}))),
    ]);
    let sid = p.login("dwho");
    let extra = "&prompt=consent";
    let q = |client: &str| {
        format!(
            "response_type=code&client_id={client}&scope=openid+offline_access+email&redirect_uri={}&state=s&nonce=n{extra}",
            enc(CB)
        )
    };
    let get_code = |client: &str| {
        let r = authorize(&p, Some(&sid), &q(client), &[]);
        assert_eq!(r.status, 302, "{}", r.text());
        param(r.header("location").unwrap(), "code").unwrap()
    };
    // An offline grant gets a refresh token even without RefreshToken (LemonLDAP::NG).
    let t = redeem(&p, "off", &get_code("off")).json();
    let off_rt = text(&t, "refresh_token");
    let i = introspect(&p, "off", &text(&t, "access_token"));
    assert_eq!(
        i["scope"], "openid email",
        "offline_access is not a scope of the tokens"
    );
    // Without AllowOffline, offline_access is dropped and the token is an ordinary one.
    let t = redeem(&p, "online", &get_code("online")).json();
    let online_rt = text(&t, "refresh_token");
    assert_eq!(
        introspect(&p, "online", &text(&t, "access_token"))["scope"],
        "openid email"
    );
    // The grant is listed for the user.
    let listed = sessions_cli(&p, &["offline", "dwho"]);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 1, "{listed}");
    assert!(lines[0].contains("\tdwho\toff\t"), "{listed}");
    logout(&p, &sid);
    let r = refresh(&p, Some(("online", SECRET)), &online_rt, &[]);
    assert_eq!(
        oauth_err(&r).1,
        "invalid_grant",
        "an online token dies with the session"
    );
    let r = refresh(&p, Some(("off", SECRET)), &off_rt, &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let n = r.json();
    let idt = jwt::verify_hs256(&text(&n, "id_token"), SECRET.as_bytes()).unwrap();
    assert_eq!(idt["sub"], "dwho");
    assert!(idt.get("sid").is_none(), "no session to name: {idt:?}");
    let u = userinfo(&p, &text(&n, "access_token"));
    assert_eq!(u.status, 200, "{}", u.text());
    assert_eq!(
        u.json()["email"],
        "dwho@badwolf.org",
        "the saved attributes"
    );
    // Revoked by the administrator: the refresh token and its access tokens die.
    let family = lines[0].split('\t').next().unwrap();
    assert!(sessions_cli(&p, &["offline-revoke", family]).contains("revoked"));
    assert_eq!(
        oauth_err(&refresh(&p, Some(("off", SECRET)), &off_rt, &[])).1,
        "invalid_grant"
    );
    assert_eq!(userinfo(&p, &text(&n, "access_token")).status, 401);
    assert_eq!(sessions_cli(&p, &["offline", "dwho"]), "");
}

/// `limette sessions <args>` on the portal's own files; its standard output.
fn sessions_cli(p: &Portal, args: &[&str]) -> String {
    let out = crate::common::portal_command(p, &["sessions"])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Authlib's `revoke_token` (RFC 7009) for `client`; the HTTP status it got.
fn authlib_revoke(p: &Portal, client: &str, secret: &str, tok: &str, hint: &str) -> String {
    let script = "import sys\nfrom authlib.integrations.requests_client import OAuth2Session\n\
        url, cid, sec, tok, hint = sys.argv[1:6]\n\
        s = OAuth2Session(cid, sec, token_endpoint_auth_method='client_secret_basic', \
        revocation_endpoint_auth_method='client_secret_basic')\n\
        r = s.revoke_token(url, tok, token_type_hint=hint)\n\
        print(r.status_code)\n";
    let out = std::process::Command::new(crate::python::python())
        .args([
            "-c",
            script,
            &p.url("/oauth2/revoke"),
            client,
            secret,
            tok,
            hint,
        ])
        .output()
        .expect("the tests' python3 starts");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn revocation_of_access_and_refresh_tokens_with_authlib() {
    let p = start(&[
        ("rp1", rp("rp1", json!({"RefreshToken": 1}))),
        ("rp2", rp("rp2", json!({}))),
        (
            "jwt",
            rp(
                "jwt",
                json!({"AccessTokenJWT": 1, "AccessTokenSignAlg": "HS256"}),
            ),
        ),
    ]);
    let sid = p.login("dwho");
    let t = redeem(&p, "rp1", &code(&p, &sid, "rp1", "")).json();
    let (at, rt) = (text(&t, "access_token"), text(&t, "refresh_token"));
    let fresh = refresh(&p, Some(("rp1", SECRET)), &rt, &[]).json();
    let at2 = text(&fresh, "access_token");
    // Another client's revocation does nothing, and says nothing (200).
    assert_eq!(
        authlib_revoke(&p, "rp2", SECRET, &at, "access_token"),
        "200"
    );
    assert_eq!(
        authlib_revoke(&p, "rp2", SECRET, &rt, "refresh_token"),
        "200"
    );
    assert_eq!(userinfo(&p, &at).status, 200);
    assert_eq!(
        authlib_revoke(&p, "rp1", SECRET, "unknown", "access_token"),
        "200"
    );
    assert_eq!(
        authlib_revoke(&p, "rp1", "wrong", &at, "access_token"),
        "401"
    );
    // The access token alone.
    assert_eq!(
        authlib_revoke(&p, "rp1", SECRET, &at, "access_token"),
        "200"
    );
    assert_eq!(userinfo(&p, &at).status, 401);
    assert_eq!(introspect(&p, "rp1", &at), json!({"active": false}));
    assert_eq!(userinfo(&p, &at2).status, 200);
    // The refresh token (with a misleading hint): it and every access token of its grant.
    assert_eq!(
        authlib_revoke(&p, "rp1", SECRET, &rt, "access_token"),
        "200"
    );
    assert_eq!(
        oauth_err(&refresh(&p, Some(("rp1", SECRET)), &rt, &[])).1,
        "invalid_grant"
    );
    assert_eq!(userinfo(&p, &at2).status, 401);
    // A JWT access token, by its jti.
    let t = redeem(&p, "jwt", &code(&p, &sid, "jwt", "")).json();
    let jat = text(&t, "access_token");
    assert_eq!(jat.split('.').count(), 3);
    assert_eq!(userinfo(&p, &jat).status, 200);
    assert_eq!(
        authlib_revoke(&p, "jwt", SECRET, &jat, "access_token"),
        "200"
    );
    assert_eq!(userinfo(&p, &jat).status, 401);
    // POST only; the token is required; discovery names the endpoint.
    assert_eq!(p.client().get("/oauth2/revoke", &[]).status, 405);
    let r = p.client().post_form(
        "/oauth2/revoke",
        &[],
        &[("Authorization", &basic("rp1", SECRET))],
    );
    assert_eq!(oauth_err(&r).1, "invalid_request");
    let d = p
        .client()
        .get("/.well-known/openid-configuration", &[])
        .json();
    assert_eq!(d["revocation_endpoint"], p.url("/oauth2/revoke"));
    assert!(d["scopes_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("offline_access")));
}
