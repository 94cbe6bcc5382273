//! The authorization endpoint: success, the two kinds of errors, login, prompt, max_age,
//! consent.
use super::b64_url;
use crate::common::oidc::*;
use serde_json::json;

#[test]
fn authorize_success_as_llng() {
    let p = start_default();
    let sid = p.login("dwho");
    let r = authorize(&p, Some(&sid), &query("rp1", "&foo=bar"), &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let loc = r.header("location").unwrap();
    assert!(loc.starts_with(&format!("{CB}?")), "{loc}");
    let code = param(loc, "code").unwrap();
    assert!(code.len() == 64 && code.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(param(loc, "state").as_deref(), Some("st1"));
    assert!(param(loc, "session_state").unwrap().contains('.'));
    assert!(r.body.is_empty() && r.header("set-cookie").is_none());
    // No state sent, scope with %20: no state back.
    let q = format!(
        "response_type=code&client_id=rp1&scope=openid%20email&redirect_uri={}",
        enc(CB)
    );
    let r = authorize(&p, Some(&sid), &q, &[]);
    assert_eq!(r.status, 302);
    assert!(param(r.header("location").unwrap(), "state").is_none());
    // POST works as GET.
    let cookie = format!("lemonldap={sid}");
    let r = p.client().post_form(
        "/oauth2/authorize",
        &[
            ("response_type", "code"),
            ("client_id", "rp1"),
            ("scope", "openid"),
            ("redirect_uri", CB),
            ("state", "p"),
        ],
        &[("Cookie", &cookie)],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(
        param(r.header("location").unwrap(), "state").as_deref(),
        Some("p")
    );
}

#[test]
fn authorize_client_errors_are_never_redirected() {
    let p = start_default();
    let sid = p.login("dwho");
    let json = [("Accept", "application/json")];
    let cases = [
        (
            query("nope", ""),
            "107",
            "This application is not known to the portal",
        ),
        (
            query("rp1", "").replace(&enc(CB), &enc("http://evil.example/cb")),
            "108",
            "This redirection URL is not allowed",
        ),
        (
            "response_type=code&client_id=rp1&scope=openid".to_string(),
            "24",
            "Error, please try again",
        ),
    ];
    for (q, code, message) in cases {
        let r = authorize(&p, Some(&sid), &q, &json);
        assert_eq!(r.status, 400, "{q}");
        assert_eq!(r.json(), json!({"result": 0, "error": code}), "{q}");
        assert!(r.header("location").is_none());
        let html = authorize(&p, Some(&sid), &q, &[]);
        assert_eq!(html.status, 400);
        assert!(html
            .header("content-type")
            .unwrap()
            .starts_with("text/html"));
        assert!(html.header("location").is_none());
        assert!(html.text().contains(message), "{}", html.text());
    }
}

#[test]
fn authorize_other_errors_go_back_to_the_client() {
    let p = start_default();
    let sid = p.login("dwho");
    let cases = [
        (
            query("rp1", "").replace("response_type=code", "response_type=token"),
            "unsupported_response_type",
        ),
        (
            query("rp1", "").replace("response_type=code&", ""),
            "unsupported_response_type",
        ),
        (
            query("rp1", "").replace("scope=openid+profile+email", "scope=profile"),
            "invalid_scope",
        ),
        (
            query("rp1", "&code_challenge=abc&code_challenge_method=S512"),
            "invalid_request",
        ),
        (query("pub", ""), "invalid_request"), // public client without PKCE
        (query("rp1", "&max_age=soon"), "invalid_request"),
    ];
    for (q, err) in cases {
        let r = authorize(&p, Some(&sid), &q, &[]);
        assert_eq!(r.status, 302, "{q}: {}", r.text());
        let loc = r.header("location").unwrap();
        assert!(loc.starts_with(CB), "{loc}");
        assert_eq!(param(loc, "error").as_deref(), Some(err), "{q}");
        assert_eq!(param(loc, "state").as_deref(), Some("st1"));
        assert!(param(loc, "code").is_none());
    }
}

#[test]
fn authorize_without_session_logs_in_and_comes_back() {
    let p = start_default();
    let r = authorize(
        &p,
        None,
        &query("rp1", ""),
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 401);
    assert_eq!(r.json(), json!({"result": 0, "error": "9"}));
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("SSO {}", p.url("/")).as_str())
    );
    // HTML: the login form keeps the request in its url field.
    let r = authorize(&p, None, &query("rp1", "&prompt=login"), &[]);
    assert_eq!(r.status, 200);
    let page = r.text();
    let field = |name: &str| {
        let at = page
            .find(&format!("name=\"{name}\" value=\""))
            .unwrap_or_else(|| panic!("{name} in {page}"));
        let rest = &page[at + name.len() + 15..];
        rest[..rest.find('"').unwrap()].to_string()
    };
    let (url, token) = (field("url"), field("token"));
    let back = format!(
        "{}oauth2/authorize?{}",
        p.url("/"),
        query("rp1", "").replace('+', "%20")
    );
    assert_eq!(url, b64_url(&back), "the target drops prompt=login");
    // A wrong password shows the form again, error 5, still carrying the request.
    let wrong = [
        ("user", "dwho"),
        ("password", "nope"),
        ("token", token.as_str()),
        ("url", url.as_str()),
    ];
    let r = p.client().post_form("/", &wrong, &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("trmsg=\"5\""), "{}", r.text());
    assert!(
        r.text().contains(&format!("name=\"url\" value=\"{url}\"")),
        "{}",
        r.text()
    );
    // The form token is single use: the page answering carries the next one.
    let again = r.text();
    let token = again
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or_else(|| panic!("token in {again}"))
        .to_string();
    let fields = [
        ("user", "dwho"),
        ("password", "dwho"),
        ("token", token.as_str()),
        ("url", url.as_str()),
    ];
    let r = p.client().post_form("/", &fields, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let sid = r.cookie("lemonldap").unwrap();
    let target = r
        .header("location")
        .unwrap()
        .strip_prefix(&p.url(""))
        .unwrap()
        .to_string();
    let r = p
        .client()
        .get(&target, &[("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(r.status, 302);
    assert!(param(r.header("location").unwrap(), "code").is_some());
}

#[test]
fn prompt_none_login_and_max_age() {
    let p = default_builder().test_hooks().start();
    // prompt=none without a session: login_required to the client (OIDC Core 3.1.2.6).
    let r = authorize(&p, None, &query("rp1", "&prompt=none"), &[]);
    assert_eq!(r.status, 302);
    let loc = r.header("location").unwrap();
    assert_eq!(param(loc, "error").as_deref(), Some("login_required"));
    assert_eq!(param(loc, "state").as_deref(), Some("st1"));
    // Unknown cookie: login form, cookie cleared.
    let r = authorize(&p, Some(&"ab".repeat(32)), &query("rp1", ""), &[]);
    assert_eq!(r.status, 200);
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    // prompt=login with a session forces a new login: the form, and the cookie dropped.
    let sid = p.login("dwho");
    let r = authorize(&p, Some(&sid), &query("rp1", "&prompt=login"), &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("name=\"password\""));
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    // max_age: a fresh session passes, an older one must log in again.
    assert_eq!(
        authorize(&p, Some(&sid), &query("rp1", "&max_age=60"), &[]).status,
        302
    );
    crate::common::clock::advance(&p, 1);
    let r = authorize(&p, Some(&sid), &query("rp1", "&max_age=0"), &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("name=\"password\""));
    let r = authorize(&p, Some(&sid), &query("rp1", "&max_age=0&prompt=none"), &[]);
    assert_eq!(
        param(r.header("location").unwrap(), "error").as_deref(),
        Some("login_required")
    );
}

#[test]
fn consent_is_asked_then_remembered() {
    let p = start(&[("ask", rp("ask", json!({"BypassConsent": 0})))]);
    let sid = p.login("dwho");
    let cookie = format!("lemonldap={sid}");
    let r = authorize(&p, Some(&sid), &query("ask", "&prompt=none"), &[]);
    assert_eq!(
        param(r.header("location").unwrap(), "error").as_deref(),
        Some("consent_required")
    );
    let r = authorize(&p, Some(&sid), &query("ask", ""), &[]);
    assert_eq!(r.status, 200);
    let page = r.text();
    assert!(
        page.contains("id=\"consent\"") && page.contains("<small>(email)</small>"),
        "{page}"
    );
    // The confirmed form redirects to the relying party: its origin is in form-action.
    let csp = r.header("content-security-policy").unwrap_or_default();
    assert!(
        csp.contains("form-action * http://127.0.0.1:19999;"),
        "{csp}"
    );
    let at = page.find("name=\"token\" value=\"").unwrap() + 20;
    let token = page[at..at + page[at..].find('"').unwrap()].to_string();
    let fields = |confirm: &'static str, token: String| {
        vec![
            ("response_type", "code".to_string()),
            ("client_id", "ask".into()),
            ("scope", "openid profile email".into()),
            ("redirect_uri", CB.into()),
            ("state", "st1".into()),
            ("token", token),
            ("confirm", confirm.into()),
        ]
    };
    let post = |f: Vec<(&str, String)>| {
        let f: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
        p.client()
            .post_form("/oauth2/authorize", &f, &[("Cookie", &cookie)])
    };
    // A forged token shows the page again; refusing gives access_denied.
    assert_eq!(post(fields("1", "1.forged".into())).status, 200);
    let r = post(fields("-1", token.clone()));
    assert_eq!(
        param(r.header("location").unwrap(), "error").as_deref(),
        Some("access_denied")
    );
    let r = post(fields("1", token));
    assert_eq!(r.status, 302);
    assert!(param(r.header("location").unwrap(), "code").is_some());
    // Remembered in the persistent session.
    assert_eq!(
        authorize(&p, Some(&sid), &query("ask", "&prompt=none"), &[]).status,
        302
    );
    let r = authorize(&p, Some(&sid), &query("ask", ""), &[]);
    assert!(param(r.header("location").unwrap(), "code").is_some());
}

/// A consent token is bound to the session and the RP it was shown for: another user's (or
/// the same user's for another RP) POST with it shows the page again and grants nothing.
#[test]
fn a_consent_token_is_worthless_in_another_session() {
    let p = start(&[
        ("ask", rp("ask", json!({"BypassConsent": 0}))),
        ("ask2", rp("ask2", json!({"BypassConsent": 0}))),
    ]);
    let token_of = |sid: &str, client: &str| {
        let page = authorize(&p, Some(sid), &query(client, ""), &[]).text();
        let at = page.find("name=\"token\" value=\"").unwrap() + 20;
        page[at..at + page[at..].find('"').unwrap()].to_string()
    };
    let post = |sid: &str, client: &str, token: &str| {
        let f = [
            ("response_type", "code"),
            ("client_id", client),
            ("scope", "openid profile email"),
            ("redirect_uri", CB),
            ("state", "st1"),
            ("token", token),
            ("confirm", "1"),
        ];
        let cookie = format!("lemonldap={sid}");
        p.client()
            .post_form("/oauth2/authorize", &f, &[("Cookie", &cookie)])
    };
    let attacker = p.login("rtyler");
    let victim = p.login("dwho");
    let stolen = token_of(&attacker, "ask");
    let r = post(&victim, "ask", &stolen);
    assert_eq!(r.status, 200, "another session's token granted consent");
    assert!(r.text().contains("id=\"consent\""));
    let other_rp = token_of(&victim, "ask2");
    assert_eq!(post(&victim, "ask", &other_rp).status, 200);
    // The victim's own token for this RP works.
    let own = token_of(&victim, "ask");
    let r = post(&victim, "ask", &own);
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(param(r.header("location").unwrap(), "code").is_some());
}

/// A public RP without a secret would get ID tokens signed with an empty key: it is disabled
/// with an error line in the log, unknown to authorize (no code), while the others still work.
#[test]
fn a_public_rp_without_a_secret_is_disabled() {
    let p = start(&[
        ("open", rp("open", json!({"Public": 1, "ClientSecret": ""}))),
        ("rp1", rp("rp1", json!({}))),
    ]);
    let sid = p.login("dwho");
    let json = [("Accept", "application/json")];
    let pkce =
        "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256";
    let r = authorize(&p, Some(&sid), &query("open", pkce), &json);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json(), json!({"result": 0, "error": "107"}));
    assert!(r.header("location").is_none());
    assert!(
        p.log().contains(
            "relying party open disabled: oidcRPMetaDataOptionsClientSecret = (unset) is not supported"
        ),
        "{}",
        p.log()
    );
    assert_eq!(
        authorize(&p, Some(&sid), &query("rp1", ""), &[]).status,
        302
    );
}

#[test]
fn re_authentication_ends_the_old_session_on_the_server() {
    let p = start_default();
    let old = p.login("dwho");
    let old_cookie = format!("lemonldap={old}");
    let r = authorize(&p, Some(&old), &query("rp1", "&prompt=login"), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.cookie("lemonldap").as_deref(), Some("0"));
    let aside = r
        .cookie("lemonldaprenew")
        .expect("the old session set aside");
    let page = r.text();
    let field = |name: &str| {
        page.split(&format!("name=\"{name}\" value=\""))
            .nth(1)
            .and_then(|t| t.split('"').next())
            .unwrap_or_else(|| panic!("{name} in {page}"))
            .to_string()
    };
    let (url, token) = (field("url"), field("token"));
    // The browser posts the form with what it holds: the set-aside cookie, no SSO cookie.
    let fields = [
        ("user", "dwho"),
        ("password", "dwho"),
        ("token", token.as_str()),
        ("url", url.as_str()),
    ];
    let r = p.client().post_form(
        "/",
        &fields,
        &[("Cookie", &format!("lemonldaprenew={aside}"))],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let new = r.cookie("lemonldap").expect("a new session");
    assert_ne!(new, old);
    assert_eq!(r.cookie("lemonldaprenew").as_deref(), Some("0"));
    // Whoever kept the old cookie holds nothing any more; the new one works.
    let json = ("Accept", "application/json");
    let r = p.client().get("/", &[("Cookie", &old_cookie), json]);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["error"], "1");
    let r = p
        .client()
        .get("/mysession/?whoami", &[("Cookie", &old_cookie), json]);
    assert_eq!(r.status, 401, "{}", r.text());
    let r = p
        .client()
        .get("/", &[("Cookie", &format!("lemonldap={new}")), json]);
    assert_eq!(r.status, 200, "{}", r.text());
    let log = p.log();
    assert!(log.contains("audit event=logout user=dwho"), "{log}");
    assert!(
        log.contains("audit event=session_replaced user=dwho"),
        "{log}"
    );
}
