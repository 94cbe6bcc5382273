//! Unit tests of the claims released per scope, typed and split as LemonLDAP::NG releases them.
use super::*;

fn release(exported: &[(&str, &str)]) -> Release {
    Release {
        exported: exported
            .iter()
            .map(|(c, s)| (c.to_string(), Source::parse(s).unwrap()))
            .collect(),
        scopes: Release::scopes_with(&[]),
        separator: "; ".into(),
        ..Release::default()
    }
}

fn session(v: Value) -> Session {
    v.as_object().cloned().unwrap_or_default()
}

#[test]
fn claims_follow_scope_and_mapping() {
    let r = release(&[("email", "mail"), ("name", "cn")]);
    let s = session(json!({"mail": "dwho@badwolf.org", "cn": "Doctor Who"}));
    assert_eq!(
        Value::Object(r.userinfo("openid", "dwho", &s, false)),
        json!({"sub": "dwho"})
    );
    assert_eq!(
        Value::Object(r.userinfo("openid email", "dwho", &s, false)),
        json!({"sub": "dwho", "email": "dwho@badwolf.org"})
    );
    let all = r.userinfo("openid profile email", "dwho", &s, false);
    assert_eq!(all["name"], "Doctor Who");
    assert!(!all.contains_key("preferred_username"));
    // oidcServiceIgnoreScopeForClaims: every mapped claim, whatever the scope.
    assert_eq!(
        Value::Object(r.userinfo("openid", "dwho", &s, true)),
        json!({"sub": "dwho", "email": "dwho@badwolf.org", "name": "Doctor Who"})
    );
}

#[test]
fn types_lists_and_address_members() {
    let r = release(&[
        ("email_verified", "verified;bool"),
        ("updated_at", "changed;int"),
        ("nickname", "aliases"),
        ("website", "sites;string;always"),
        ("locale", "langs;string;never"),
        ("locality", "l"),
        ("country", "c"),
        ("picture", "empty"),
    ]);
    let s = session(
        json!({"verified": "0", "changed": "1700000000x", "aliases": "a; b",
        "sites": "http://x", "langs": "fr; en", "l": "Cardiff", "c": "UK", "empty": ""}),
    );
    let c = r.userinfo("openid email profile address", "u", &s, false);
    assert_eq!(c["email_verified"], json!(false));
    assert_eq!(c["updated_at"], json!(1_700_000_000));
    assert_eq!(c["nickname"], json!(["a", "b"]));
    assert_eq!(c["website"], json!(["http://x"]));
    assert_eq!(c["locale"], json!("fr; en"));
    assert_eq!(
        c["address"],
        json!({"locality": "Cardiff", "country": "UK"})
    );
    assert!(!c.contains_key("picture"));
    assert!(Source::parse("x;float").is_err() && Source::parse("x;int;maybe").is_err());
}

#[test]
fn extra_scopes_macros_and_subject() {
    let mut r = release(&[("email", "mail"), ("team", "unit"), ("shout", "loud")]);
    r.scopes = Release::scopes_with(&[
        ("corp".into(), "team shout".into()),
        ("email".into(), "team".into()),
    ]);
    r.macros = vec![("loud".into(), Expression::parse("uc($cn)").unwrap())];
    r.user_id_attr = Some("mail".into());
    let s = session(json!({"mail": "d@x", "unit": "TARDIS", "cn": "who", "_whatToTrace": "dwho"}));
    let c = r.userinfo("openid corp email", "sub", &s, false);
    assert_eq!(
        Value::Object(c),
        json!({"sub": "sub", "team": "TARDIS", "shout": "WHO"})
    );
    assert!(r.declares("corp") && r.declares("openid") && !r.declares("admin"));
    assert_eq!(r.sub(&s).as_deref(), Some("d@x"));
    r.user_id_attr = Some("loud".into());
    assert_eq!(r.sub(&s).as_deref(), Some("WHO"));
    r.user_id_attr = Some("missing".into());
    assert_eq!(r.sub(&s), None);
    r.user_id_attr = None;
    assert_eq!(r.sub(&s).as_deref(), Some("dwho"));
}
