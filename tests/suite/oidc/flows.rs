//! The implicit and hybrid flows (OpenID Connect Core 3.2, 3.3), opt-in as in LemonLDAP::NG
//! (`oidcServiceAllowImplicitFlow`, `oidcServiceAllowHybridFlow`), the response modes
//! (`fragment`, `form_post`), and the code flow switched off: what the relying party finds in
//! the answer, and every refusal, redirected in the mode it asked for.
use crate::common::oidc::*;
use crate::common::Portal;
use limette::oidc::jwt;
use serde_json::{json, Map, Value};

fn portal(flows: &[(&str, Value)]) -> Portal {
    let mut b = builder(&[("app", rp("app", json!({})))]);
    for (k, v) in flows {
        b = b.conf(k, v.clone());
    }
    b.start()
}

fn both() -> Portal {
    portal(&[
        ("oidcServiceAllowImplicitFlow", json!(1)),
        ("oidcServiceAllowHybridFlow", json!(1)),
    ])
}

/// `authorize` for `app` with this response type and extra parameters; the `Location`.
fn ask(p: &Portal, sid: &str, response_type: &str, extra: &str) -> String {
    let q = format!(
        "response_type={}&client_id=app&scope=openid+profile+email&redirect_uri={}&state=st{extra}",
        enc(response_type),
        enc(CB)
    );
    let r = authorize(p, Some(sid), &q, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    r.header("location").unwrap().to_string()
}

/// The parameters of a fragment answer (and nothing in the query).
fn fragment(location: &str) -> Map<String, Value> {
    let (base, f) = location.split_once('#').expect("a fragment");
    assert_eq!(base, CB, "nothing in the query");
    let fake = format!("http://x/?{f}");
    f.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, _)| (k.to_string(), json!(param(&fake, k).unwrap())))
        .collect()
}

fn verify(idt: &str) -> Map<String, Value> {
    jwt::verify_hs256(idt, SECRET.as_bytes()).expect("HS256 with the client secret")
}

#[test]
fn implicit_and_hybrid_are_off_unless_the_service_allows_them() {
    let p = portal(&[]);
    let sid = p.login("dwho");
    for rt in ["id_token", "id_token token", "code id_token"] {
        let f = fragment(&ask(&p, &sid, rt, "&nonce=n"));
        assert_eq!(f["error"], "unsupported_response_type", "{rt}");
        assert_eq!(f["state"], "st");
    }
    // And the code flow can be switched off too.
    let p = portal(&[("oidcServiceAllowAuthorizationCodeFlow", json!(0))]);
    let sid = p.login("dwho");
    let loc = ask(&p, &sid, "code", "");
    assert_eq!(
        param(&loc, "error").as_deref(),
        Some("unsupported_response_type")
    );
    let d = p
        .client()
        .get("/.well-known/openid-configuration", &[])
        .json();
    assert_eq!(d["response_types_supported"], json!([]));
}

#[test]
fn implicit_id_token_alone_carries_the_claims() {
    let p = both();
    let sid = p.login("dwho");
    let f = fragment(&ask(&p, &sid, "id_token", "&nonce=n1"));
    assert!(f.get("access_token").is_none() && f.get("code").is_none());
    assert_eq!(f["state"], "st");
    assert!(f["session_state"].as_str().unwrap().contains('.'));
    let c = verify(f["id_token"].as_str().unwrap());
    assert_eq!(c["nonce"], "n1");
    assert_eq!(c["sub"], "dwho");
    assert_eq!(c["aud"], json!(["app"]));
    assert!(c.get("at_hash").is_none() && c.get("c_hash").is_none());
    // No access token to fetch them with: the claims of the scope are in the ID token.
    assert_eq!(c["name"], "Doctor Who");
    assert_eq!(c["email"], "dwho@badwolf.org");
}

#[test]
fn implicit_with_an_access_token() {
    let p = both();
    let sid = p.login("dwho");
    let f = fragment(&ask(&p, &sid, "token id_token", "&nonce=n2"));
    let at = f["access_token"].as_str().unwrap();
    assert_eq!(f["token_type"], "Bearer");
    assert_eq!(f["expires_in"], "3600");
    let c = verify(f["id_token"].as_str().unwrap());
    assert_eq!(c["at_hash"], jwt::at_hash(at));
    assert!(c.get("name").is_none(), "claims come from userinfo");
    let bearer = format!("Bearer {at}");
    let u = p
        .client()
        .get("/oauth2/userinfo", &[("Authorization", bearer.as_str())]);
    assert_eq!(u.status, 200, "{}", u.text());
    assert_eq!(u.json()["email"], "dwho@badwolf.org");
    // The token dies with the session, as the token endpoint's do.
    let r = p.logout_confirmed(&sid);
    assert!(r.status < 400, "{}", r.text());
    let u = p
        .client()
        .get("/oauth2/userinfo", &[("Authorization", bearer.as_str())]);
    assert_eq!(u.status, 401);
}

#[test]
fn hybrid_code_and_tokens_belong_together() {
    let p = both();
    let sid = p.login("dwho");
    let f = fragment(&ask(&p, &sid, "code id_token token", "&nonce=n3"));
    let code = f["code"].as_str().unwrap();
    let at = f["access_token"].as_str().unwrap();
    let c = verify(f["id_token"].as_str().unwrap());
    assert_eq!(c["c_hash"], jwt::at_hash(code));
    assert_eq!(c["at_hash"], jwt::at_hash(at));
    assert_eq!(c["nonce"], "n3");
    // The code is redeemed at the token endpoint like any code; its ID token agrees.
    let t = redeem(&p, "app", code);
    assert_eq!(t.status, 200, "{}", t.text());
    let c2 = verify(t.json()["id_token"].as_str().unwrap());
    assert_eq!((&c2["sub"], &c2["nonce"]), (&c["sub"], &c["nonce"]));
    // code token: no ID token at the front.
    let f = fragment(&ask(&p, &sid, "code token", "&nonce=n4"));
    assert!(f.contains_key("code") && f.contains_key("access_token"));
    assert!(!f.contains_key("id_token"));
}

#[test]
fn refusals_go_back_in_the_requested_mode() {
    let p = both();
    let sid = p.login("dwho");
    // No nonce: OIDC Core 3.2.2.1 makes it mandatory when tokens leave the front door.
    let f = fragment(&ask(&p, &sid, "id_token", ""));
    assert_eq!(f["error"], "invalid_request");
    assert!(!f.contains_key("id_token"));
    // Tokens never in a query.
    let f = fragment(&ask(&p, &sid, "id_token", "&nonce=n&response_mode=query"));
    assert_eq!(f["error"], "invalid_request");
    // Unknown words and the bare OAuth implicit grant are not OpenID Connect flows.
    for rt in ["token", "code foo", "id_token id_token"] {
        let loc = ask(&p, &sid, rt, "&nonce=n");
        assert_eq!(
            param(&loc, "error").as_deref(),
            Some("unsupported_response_type"),
            "{rt}: {loc}"
        );
    }
    // prompt=none without a session: login_required, in the fragment.
    let q = format!(
        "response_type=id_token&client_id=app&scope=openid&redirect_uri={}&nonce=n&prompt=none",
        enc(CB)
    );
    let r = authorize(&p, None, &q, &[]);
    assert_eq!(
        fragment(r.header("location").unwrap())["error"],
        "login_required"
    );
}

#[test]
fn form_post_answers_with_a_form_to_the_client() {
    let p = both();
    let sid = p.login("dwho");
    let q = format!(
        "response_type=code+id_token&client_id=app&scope=openid&redirect_uri={}&state=s%22x&nonce=n&response_mode=form_post",
        enc(CB)
    );
    let r = authorize(&p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let page = r.text();
    assert!(
        page.contains(&format!("<form method=\"post\" action=\"{CB}\">")),
        "{page}"
    );
    assert!(page.contains("name=\"code\""), "{page}");
    assert!(page.contains("name=\"id_token\""), "{page}");
    assert!(page.contains("value=\"s&quot;x\""), "{page}");
    let csp = r.header("content-security-policy").unwrap();
    assert!(csp.contains("http://127.0.0.1:19999"), "{csp}");
    let js = p.client().get("/static/form_post.js", &[]);
    assert_eq!(js.status, 200);
    assert!(js.text().contains("submit()"));
    let d = p
        .client()
        .get("/.well-known/openid-configuration", &[])
        .json();
    assert_eq!(
        d["response_modes_supported"],
        json!(["query", "fragment", "form_post"])
    );
    assert!(d["response_types_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("code id_token token")));
}
