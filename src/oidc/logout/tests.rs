//! Unit tests of RP-initiated logout: reading the request, the hint, and where the user goes back.
use super::*;
use crate::oidc::settings::Secret;
use serde_json::Map;

fn settings(bypass: bool) -> Settings {
    let rp = Rp {
        client_id: "c".into(),
        secret: Secret::new("s"),
        post_logout_uris: vec!["http://rp/bye".into()],
        logout_bypass_confirm: bypass,
        ..Rp::default()
    };
    let other = Rp {
        client_id: "o".into(),
        secret: Secret::new("t"),
        ..Rp::default()
    };
    Settings {
        enabled: true,
        rps: vec![rp, other],
        refresh_ttl: 1,
        ..Settings::default()
    }
}

fn hint(key: &[u8], iss: &str, sub: &str, sid: &str) -> String {
    let mut c = Map::new();
    c.insert("iss".into(), json!(iss));
    c.insert("aud".into(), json!(["c"]));
    c.insert("azp".into(), json!("c"));
    c.insert("sub".into(), json!(sub));
    c.insert("sid".into(), json!(sid));
    jwt::sign_hs256(&c, key)
}

fn q(pairs: &[(&str, &str)]) -> Params {
    Params(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

#[test]
fn checks_hint_and_registration() {
    let s = settings(false);
    let iss = "http://p/";
    let good = hint(b"s", iss, "dwho", "x");
    let with = |h: &str, uri: &str| {
        q(&[
            ("id_token_hint", h),
            ("post_logout_redirect_uri", uri),
            ("state", "x"),
        ])
    };
    let ask = read(&s, iss, &with(&good, "http://rp/bye")).unwrap();
    assert_eq!(ask.target.as_deref(), Some("http://rp/bye?state=x"));
    assert_eq!(ask.hint.map(|h| h.sub), Some("dwho".into()));
    assert!(read(&s, iss, &with(&good, "http://evil/")).is_err());
    let forged = hint(b"forged", iss, "dwho", "x");
    assert!(read(&s, iss, &with(&forged, "http://rp/bye")).is_err());
    let foreign = hint(b"s", "http://other/", "dwho", "x");
    assert!(read(&s, iss, &with(&foreign, "http://rp/bye")).is_err());
    let mismatch = q(&[("id_token_hint", &good), ("client_id", "o")]);
    assert!(read(&s, iss, &mismatch).is_err());
    // The other RP has no registered URI: refused, never an open redirect.
    let other = q(&[
        ("client_id", "o"),
        ("post_logout_redirect_uri", "http://rp/bye"),
    ]);
    assert!(read(&s, iss, &other).is_err());
    let bare = read(&s, iss, &Params::default()).unwrap();
    assert!(bare.rp.is_none() && bare.hint.is_none() && bare.target.is_none());
}

#[test]
fn a_self_registered_client_needs_its_hint_to_be_followed() {
    let mut s = settings(false);
    s.rps[0].name = "register-1700000000".into();
    let iss = "http://p/";
    let bye = ("post_logout_redirect_uri", "http://rp/bye");
    let bare = read(&s, iss, &q(&[("client_id", "c"), bye])).unwrap();
    assert!(bare.target.is_none(), "the portal's page, not the URI");
    let h = hint(b"s", iss, "dwho", "x");
    let hinted = read(&s, iss, &q(&[("id_token_hint", &h), bye])).unwrap();
    assert_eq!(hinted.target.as_deref(), Some("http://rp/bye"));
}

#[test]
fn bypass_needs_the_option_and_a_hint_of_this_session() {
    let session = |id: &str, uid: &str| {
        let mut m = Map::new();
        m.insert("_session_id".into(), json!(id));
        m.insert("_whatToTrace".into(), json!(uid));
        crate::sso::SsoSession::from(m)
    };
    let me = session("aa", "dwho");
    let sid = crate::sso::oidc_sid("k", "aa");
    let iss = "http://p/";
    let ask = |s: &Settings, h: &str| {
        read(s, iss, &q(&[("id_token_hint", h)]))
            .unwrap()
            .bypass(&me, "k")
    };
    let (on, off) = (settings(true), settings(false));
    assert!(ask(&on, &hint(b"s", iss, "dwho", &sid)));
    assert!(!ask(&off, &hint(b"s", iss, "dwho", &sid)), "LLNG asks");
    assert!(!ask(&on, &hint(b"s", iss, "rtyler", &sid)), "other user");
    let other_sid = crate::sso::oidc_sid("k", "bb");
    assert!(
        !ask(&on, &hint(b"s", iss, "dwho", &other_sid)),
        "other session"
    );
    let no_hint = read(&on, iss, &Params::default()).unwrap();
    assert!(!no_hint.bypass(&me, "k"));
}
