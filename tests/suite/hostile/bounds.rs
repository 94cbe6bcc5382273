//! Every protocol parameter has a length bound, answered with the error its protocol
//! prescribes, and nothing oversized reaches storage: an OpenID Connect `nonce` or `state`
//! over 1 KiB, any parameter over 4 KiB, a login name over 255 bytes, a password over 4 KiB.
use crate::common::oidc::{self, enc, param, CB, SECRET};
use crate::common::Portal;

/// Whether any file under `dir` holds `needle`.
fn stored_anywhere(dir: &std::path::Path, needle: &[u8]) -> bool {
    std::fs::read_dir(dir).unwrap().flatten().any(|e| {
        let path = e.path();
        if path.is_dir() {
            stored_anywhere(&path, needle)
        } else {
            std::fs::read(&path).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle))
        }
    })
}

fn authorize_query(state: &str, nonce: &str) -> String {
    format!(
        "response_type=code&client_id=rp1&scope=openid&redirect_uri={}&state={state}&nonce={nonce}",
        enc(CB)
    )
}

#[test]
fn an_oversized_nonce_or_state_is_invalid_request_and_never_stored() {
    let p = oidc::start_default();
    let sid = p.login("dwho");
    let big = "n".repeat(1025);
    let r = oidc::authorize(&p, Some(&sid), &authorize_query("st1", &big), &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let to = r.header("location").unwrap();
    assert!(to.starts_with(CB), "{to}");
    assert_eq!(param(to, "error").as_deref(), Some("invalid_request"));
    assert_eq!(param(to, "state").as_deref(), Some("st1"));
    assert_eq!(param(to, "code"), None);
    // An oversized state is refused too, and not echoed back.
    let r = oidc::authorize(&p, Some(&sid), &authorize_query(&big, "n1"), &[]);
    let to = r.header("location").unwrap();
    assert_eq!(param(to, "error").as_deref(), Some("invalid_request"));
    assert_eq!(param(to, "state"), None);
    // In a POSTed form, far over the bound but under the body limit (64 KiB): the same.
    let huge = "h".repeat(32 << 10);
    let form = format!("{}&x=1", authorize_query("st1", &huge));
    let cookie = format!("lemonldap={sid}");
    let r = p.client().send(
        "POST",
        "/oauth2/authorize",
        &[
            ("Cookie", &cookie),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        form.as_bytes(),
    );
    assert_eq!(r.status, 302, "{}", r.status);
    let to = r.header("location").unwrap();
    assert_eq!(param(to, "error").as_deref(), Some("invalid_request"));
    assert!(!stored_anywhere(p.data(), &big.as_bytes()[..1025]));
    assert!(!stored_anywhere(p.data(), &huge.as_bytes()[..4096]));
    // At the bound, the code is issued and the nonce comes back in the ID token.
    let fits = "f".repeat(1024);
    let r = oidc::authorize(&p, Some(&sid), &authorize_query("st1", &fits), &[]);
    let code = param(r.header("location").unwrap(), "code").expect("a code");
    let t = oidc::redeem(&p, "rp1", &code);
    assert_eq!(t.status, 200, "{}", t.text());
    let id = oidc::jwt_part(t.json()["id_token"].as_str().unwrap(), 1);
    assert_eq!(id["nonce"], fits.as_str());
}

#[test]
fn an_oversized_token_request_parameter_is_invalid_request() {
    let p = oidc::start_default();
    let long = "c".repeat(4097);
    for field in ["code", "redirect_uri", "code_verifier", "client_id"] {
        let mut fields = vec![("grant_type", "authorization_code"), ("code", "abc")];
        fields.retain(|(k, _)| *k != field);
        fields.push((field, &long));
        let r = oidc::token(&p, Some(("rp1", SECRET)), &fields);
        assert_eq!(r.status, 400, "{field}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_request", "{field}");
    }
}

#[test]
fn oversized_login_names_and_passwords_are_refused_before_the_directory() {
    let p = Portal::start();
    let login = |user: &str, password: &str| {
        p.client().post_form(
            "/",
            &[("user", user), ("password", password)],
            &[("Accept", "application/json")],
        )
    };
    // 256 characters userControl accepts: malformed by length alone (PE_MALFORMEDUSER).
    let r = login(&"d".repeat(256), "dwho");
    assert_eq!((r.status, r.json()["error"].as_str()), (401, Some("40")));
    let r = login("dwho", &"p".repeat(4097));
    assert_eq!((r.status, r.json()["error"].as_str()), (401, Some("5")));
    let r = login("dwho", "dwho");
    assert_eq!(r.status, 200, "{}", r.text());
}
