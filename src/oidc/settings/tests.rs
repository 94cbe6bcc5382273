//! Tests of the settings: every reason a relying party is disabled, and what loads.
use super::*;
use crate::oidc::keys::{self, Alg};
use serde_json::json;

fn raw(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[test]
fn parses_rps_with_defaults() {
    let r = raw(json!({
        "issuerDBOpenIDConnectActivation": 1,
        "oidcServiceAccessTokenExpiration": 100,
        "oidcRPMetaDataOptions": {"a": {
            "oidcRPMetaDataOptionsClientID": "cid", "oidcRPMetaDataOptionsClientSecret": "s",
            "oidcRPMetaDataOptionsRedirectUris": "http://x/cb  http://y/cb",
            "oidcRPMetaDataOptionsAuthorizationCodeExpiration": "2",
            "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
            "oidcRPMetaDataOptionsPublic": 1}},
        "oidcRPMetaDataExportedVars": {"a": {"email": "mail"}}
    }));
    let s = Settings::from_conf(&r).unwrap();
    let rp = s.rp("cid").unwrap();
    assert_eq!(
        (rp.id_alg, rp.userinfo_alg, rp.access_jwt),
        (Alg::HS256, None, None)
    );
    assert_eq!(rp.redirect_uris, vec!["http://x/cb", "http://y/cb"]);
    assert_eq!((rp.code_ttl, rp.access_ttl, rp.id_ttl), (2, 100, 3600));
    assert!(rp.public && rp.require_pkce && !rp.refresh);
    assert_eq!(rp.release.exported.len(), 1);
    assert_eq!(
        (
            rp.release.exported[0].0.as_str(),
            rp.release.exported[0].1.attr.as_str()
        ),
        ("email", "mail")
    );
    assert!(rp.secret.matches("s") && !rp.secret.matches("t"));
    assert_eq!(format!("{:?}", rp.secret), "Secret(***)");
}

#[test]
fn grants_and_offline_options() {
    let r = raw(json!({
        "oidcServiceOfflineSessionExpiration": 500,
        "oidcRPMetaDataOptions": {
            "a": {"oidcRPMetaDataOptionsClientID": "a", "oidcRPMetaDataOptionsClientSecret": "s",
                  "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
                  "oidcRPMetaDataOptionsAllowClientCredentialsGrant": 1,
                  "oidcRPMetaDataOptionsAllowPasswordGrant": "1",
                  "oidcRPMetaDataOptionsAllowOffline": true,
                  "oidcRPMetaDataOptionsOfflineSessionExpiration": "60"},
            "b": {"oidcRPMetaDataOptionsClientID": "b", "oidcRPMetaDataOptionsClientSecret": "s",
                  "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
                  "oidcRPMetaDataOptionsOfflineSessionExpiration": 0},
            "c": {"oidcRPMetaDataOptionsClientID": "c", "oidcRPMetaDataOptionsClientSecret": "s",
                  "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
                  "oidcRPMetaDataOptionsAllowOffline": "yes"}}
    }));
    let s = Settings::from_conf(&r).unwrap();
    let a = s.rp("a").unwrap();
    assert!(a.allow_client_credentials && a.allow_password && a.allow_offline);
    assert_eq!((a.offline_ttl, s.refresh_ttl), (60, 500));
    let b = s.rp("b").unwrap();
    assert!(!b.allow_client_credentials && !b.allow_password && !b.allow_offline);
    assert_eq!(b.offline_ttl, 500, "0 is the service's");
    assert_eq!(
        s.disabled[0].reason,
        "oidcRPMetaDataOptionsAllowOffline = yes is not supported (0 or 1)"
    );
    assert_eq!(
        Settings::from_conf(&Map::new()).unwrap().refresh_ttl,
        OFFLINE_TTL
    );
}

/// The reason a one-RP configuration is disabled with (`None`: it loads).
fn disabled(extra: Value, beside: Value) -> Option<String> {
    let mut o = raw(json!({"oidcRPMetaDataOptionsClientID": "cid",
        "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}));
    o.extend(raw(extra));
    let mut r = raw(beside);
    r.insert("oidcRPMetaDataOptions".into(), json!({ "a": o }));
    let s = Settings::from_conf(&r).unwrap();
    assert_eq!(s.rps.len() + s.disabled.len(), 1);
    s.disabled.first().map(|d| {
        assert_eq!((d.name.as_str(), d.client_id.as_str()), ("a", "cid"));
        d.reason.clone()
    })
}

#[test]
fn every_disable_reason() {
    let k = |s: &str| format!("oidcRPMetaDataOptions{s}");
    let case = |extra: Value| disabled(extra, json!({})).unwrap_or_default();
    assert_eq!(disabled(json!({}), json!({})), None);
    // An algorithm whose key is missing (Settings alone never generates one).
    assert_eq!(
        case(json!({k("AccessTokenJWT"): "1"})),
        "oidcRPMetaDataOptionsAccessTokenSignAlg = RS256 is not supported (no usable RSA key: oidcServicePrivateKeySig does not read, or is missing until a portal loads this configuration and generates it)"
    );
    assert!(case(json!({k("LogoutUrl"): "javascript:alert(1)"})).contains("an http or https URL"));
    assert!(case(json!({k("LogoutType"): "side"})).contains("(front or back)"));
    assert!(case(json!({k("LogoutSessionRequired"): "yes"})).contains("(0 or 1)"));
    let unsigned = json!({k("LogoutUrl"): "http://rp/bc", k("LogoutType"): "back",
        k("IDTokenSignAlg"): "none"});
    assert!(case(unsigned).contains("must be signed"));
    assert!(case(json!({k("Colour"): "red"})).contains("unknown option"));
    assert!(case(json!({k("IDTokenSignAlg"): "ES256"})).contains("no usable EC P-256 key"));
    assert!(case(json!({k("IDTokenSignAlg"): "PS256"})).starts_with(
        "oidcRPMetaDataOptionsIDTokenSignAlg = PS256 is not supported (one of none, HS256"
    ));
    assert!(
        case(json!({k("AccessTokenJWT"): 1, k("AccessTokenSignAlg"): "none"}))
            .contains("none is not allowed here")
    );
    // Unset is LemonLDAP::NG 2.16's default, HS512, keyed by the secret.
    assert_eq!(
        disabled(json!({k("IDTokenSignAlg"): null}), json!({})),
        None
    );
    assert!(case(json!({k("ClientSecret"): ""})).starts_with(
        "oidcRPMetaDataOptionsClientSecret = (unset) is not supported (a secret is required"
    ));
    assert!(case(json!({k("Rule"): "$uid eq"})).starts_with(
        "oidcRPMetaDataOptionsRule = $uid eq is not supported (the rule does not parse"
    ));
    assert_eq!(
        case(json!({k("RequirePKCE"): "off"})),
        "oidcRPMetaDataOptionsRequirePKCE = off is not supported (0 or 1)"
    );
    assert!(case(json!({k("AuthnLevel"): "high"})).contains("a positive integer"));
    assert!(case(json!({k("AccessTokenExpiration"): "-5"})).contains("a positive integer"));
    // The per-RP hashes load when they read, and disable the RP when they do not.
    let hashes = json!({"oidcRPMetaDataMacros": {"a": {"m": "uc($uid)", "e": ""}},
        "oidcRPMetaDataScopeRules": {"a": {"admin": "$uid eq \"dwho\""}},
        "oidcRPMetaDataOptionsExtraClaims": {"a": {"corp": "team unit"}},
        "oidcRPMetaDataExportedVars": {"a": {"team": "ou;string;always"}}});
    assert_eq!(disabled(json!({}), hashes), None);
    let bad = json!({"oidcRPMetaDataMacros": {"a": {"m": "uc($uid"}}});
    assert!(disabled(json!({}), bad).unwrap().starts_with(
        "oidcRPMetaDataMacros/a/m = uc($uid is not supported (the expression does not parse"
    ));
    let bad = json!({"oidcRPMetaDataScopeRules": {"a": {"admin": "$uid eq"}}});
    assert!(disabled(json!({}), bad)
        .unwrap()
        .starts_with("oidcRPMetaDataScopeRules/a/admin = $uid eq is not supported (the rule"));
    let bad = json!({"oidcRPMetaDataExportedVars": {"a": {"email": "mail;float"}}});
    assert!(disabled(json!({}), bad)
        .unwrap()
        .starts_with("oidcRPMetaDataExportedVars/a/email = mail;float is not supported (type"));
    let inside = json!({k("ExtraClaims"): {"corp": "team"}});
    assert!(case(inside).contains("set beside the options"));
    // Cosmetic options and refused options at their default load.
    let fine = json!({k("DisplayName"): "App", k("AllowOffline"): 0, k("LogoutType"): "front",
        k("UserInfoSignAlg"): "", k("Rule"): "", k("AuthnLevel"): ""});
    assert_eq!(disabled(fine, json!({})), None);
    // none is allowed where LemonLDAP::NG allows it, with a warning for config check.
    let mut o = raw(json!({"oidcRPMetaDataOptionsClientID": "cid",
        "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "none"}));
    o.insert(
        "oidcRPMetaDataOptionsUserInfoSignAlg".into(),
        json!("HS384"),
    );
    let r = raw(json!({"oidcRPMetaDataOptions": {"a": o}}));
    let s = Settings::from_conf(&r).unwrap();
    let rp = s.rp("cid").unwrap();
    assert_eq!((rp.id_alg, rp.userinfo_alg), (Alg::None, Some(Alg::HS384)));
    assert_eq!(s.warnings.len(), 1);
    assert!(s.warnings[0].1.contains("IDTokenSignAlg = none"));
}

#[test]
fn logout_channels_are_read() {
    use crate::oidc::settings::logout::Channel;
    let rp = |extra: Value| {
        let mut o = raw(json!({"oidcRPMetaDataOptionsClientID": "cid",
            "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}));
        o.extend(raw(extra));
        let s = Settings::from_conf(&raw(json!({"oidcRPMetaDataOptions": {"a": o}}))).unwrap();
        s.rp("cid").unwrap().logout.clone()
    };
    assert_eq!(rp(json!({"oidcRPMetaDataOptionsLogoutType": "back"})), None);
    let front = rp(json!({"oidcRPMetaDataOptionsLogoutUrl": "http://rp/fc"})).unwrap();
    assert_eq!(
        (front.channel, front.session_required),
        (Channel::Front, false)
    );
    let back = rp(json!({"oidcRPMetaDataOptionsLogoutUrl": "https://rp/bc?x=1",
        "oidcRPMetaDataOptionsLogoutType": "back", "oidcRPMetaDataOptionsLogoutSessionRequired": 1}))
    .unwrap();
    assert_eq!(back.url, "https://rp/bc?x=1");
    assert_eq!((back.channel, back.session_required), (Channel::Back, true));
}

#[test]
fn a_missing_client_id_names_the_rp() {
    let r = raw(json!({"oidcRPMetaDataOptions": {"noid": {
        "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}}}));
    let s = Settings::from_conf(&r).unwrap();
    let d = &s.disabled[0];
    assert_eq!((d.name.as_str(), d.client_id.as_str()), ("noid", ""));
    assert_eq!(
        d.reason,
        "oidcRPMetaDataOptionsClientID = (unset) is not supported (a client id is required)"
    );
}

#[test]
fn rule_and_level_are_read() {
    let r = raw(json!({"oidcRPMetaDataOptions": {"a": {
        "oidcRPMetaDataOptionsClientID": "cid", "oidcRPMetaDataOptionsClientSecret": "s",
        "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256", "oidcRPMetaDataOptionsAuthnLevel": "3",
        "oidcRPMetaDataOptionsRule": "$uid eq \"dwho\""}}}));
    let s = Settings::from_conf(&r).unwrap();
    let rp = s.rp("cid").unwrap();
    assert_eq!(rp.authn_level, 3);
    let rule = rp.rule.as_ref().unwrap();
    assert!(rule.eval(&raw(json!({"uid": "dwho"}))));
    assert!(!rule.eval(&raw(json!({"uid": "rtyler"}))));
}

/// Two RPs with one client id: which one answers would be a guess, so neither does.
#[test]
fn a_shared_client_id_disables_both() {
    let one = json!({"oidcRPMetaDataOptionsClientID": "same",
        "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"});
    let r = raw(json!({"oidcRPMetaDataOptions": {"a": one, "b": one}}));
    let s = Settings::from_conf(&r).unwrap();
    assert!(s.rp("same").is_none());
    assert_eq!(s.disabled.len(), 2);
    assert!(s.disabled[0]
        .reason
        .contains("another relying party has the same client id"));
}

/// A public client without a secret would get ID tokens signed with an empty key, which
/// anybody can forge: it is disabled, the others still load.
#[test]
fn disables_rps_without_a_secret() {
    let r = raw(json!({"oidcRPMetaDataOptions": {
        "open": {"oidcRPMetaDataOptionsClientID": "open", "oidcRPMetaDataOptionsPublic": 1,
            "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"},
        "empty": {"oidcRPMetaDataOptionsClientID": "empty",
            "oidcRPMetaDataOptionsClientSecret": "", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"},
        "ok": {"oidcRPMetaDataOptionsClientID": "ok", "oidcRPMetaDataOptionsClientSecret": "s",
            "oidcRPMetaDataOptionsPublic": 1, "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}}}));
    let s = Settings::from_conf(&r).unwrap();
    assert!(s.rp("open").is_none() && s.rp("empty").is_none());
    assert!(s.rp("ok").is_some());
    let names: Vec<&str> = s.disabled.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, vec!["open", "empty"]);
    // A public client signed with a provider key needs no secret (LemonLDAP::NG's advice).
    let mut r = raw(json!({"oidcRPMetaDataOptions": {"open": {
        "oidcRPMetaDataOptionsClientID": "open", "oidcRPMetaDataOptionsPublic": 1,
        "oidcRPMetaDataOptionsIDTokenSignAlg": "EdDSA"}}}));
    keys::keygen::complete(&mut r).unwrap();
    let s = Settings::from_conf(&r).unwrap();
    assert_eq!(s.rp("open").map(|rp| rp.id_alg), Some(Alg::EdDSA));
}

#[test]
fn client_authentication_options() {
    let k = |s: &str| format!("oidcRPMetaDataOptions{s}");
    let case = |extra: Value| disabled(extra, json!({})).unwrap_or_default();
    let ec = json!({"keys": [{"kty": "EC", "crv": "P-256", "x": "AQ", "y": "Ag"}]});
    assert_eq!(
        disabled(json!({k("AuthMethod"): "client_secret_jwt"}), json!({})),
        None
    );
    let keyed = json!({k("AuthMethod"): "private_key_jwt", k("Jwks"): ec.to_string()});
    assert_eq!(disabled(keyed, json!({})), None);
    assert!(case(json!({k("AuthMethod"): "tls_client_auth"})).contains(
        "one of client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt"
    ));
    assert!(
        case(json!({k("AuthMethod"): "private_key_jwt"})).contains("needs the RP's public keys")
    );
    assert!(case(json!({k("Jwks"): "{"}))
        .starts_with("oidcRPMetaDataOptionsJwks = { is not supported (not JSON"));
    let by_url = json!({k("AuthMethod"): "private_key_jwt", k("JwksUri"): "https://rp/jwks"});
    assert_eq!(disabled(by_url, json!({})), None);
    assert!(case(json!({k("JwksUri"): "ftp://rp/jwks"})).contains("absolute http(s) URL"));
    let both = json!({k("Jwks"): ec.to_string(), k("JwksUri"): "https://rp/jwks"});
    assert!(case(both).contains("not both"));
    assert_eq!(
        disabled(json!({k("RequestObjectSignAlg"): "none"}), json!({})),
        None
    );
    assert!(case(json!({k("RequestObjectSignAlg"): "RS256"})).contains("needs"));
    assert!(case(json!({k("RequestObjectSignAlg"): "PS256"})).contains("one of none"));
    assert!(
        case(json!({k("AuthMethod"): "client_secret_post", k("Public"): 1}))
            .contains("public client")
    );
}
