//! The catalogue (`config::catalogue`) held against the areas that read its keys: every key
//! Limette honours has one entry and no other key has one, every choice offered is a value the
//! reading code accepts, every default sits within its bounds, and the texts stay small. These
//! tests live at the top, beside the editor that draws the catalogue, because they call into
//! the areas (OpenID Connect's tables and parsers, the second factors, the user store), which
//! the configuration layer itself must not import.
use crate::config::catalogue::{all, get, Group, Input};
use crate::config::gate;
use crate::config::support::{self, Support};
use crate::oidc::options::RP_OPTIONS;
use serde_json::{json, Map, Value};

/// Every key Limette honours: the main keys marked implemented and the honoured
/// relying-party options (some per-RP tables are in both).
fn honoured() -> std::collections::BTreeSet<&'static str> {
    let main = support::IMPLEMENTED
        .iter()
        .filter(|k| k.support == Support::Implemented);
    let rp = RP_OPTIONS
        .iter()
        .filter(|k| k.support == Support::Implemented);
    main.chain(rp).map(|k| k.key).collect()
}

#[test]
fn every_honoured_key_has_one_entry_and_no_other_key_has_one() {
    let honoured = honoured();
    for key in &honoured {
        let n = all().filter(|e| e.key == *key).count();
        assert_eq!(n, 1, "{key}: {n} entries");
    }
    for e in all() {
        assert!(
            honoured.contains(e.key),
            "{}: not a key Limette honours",
            e.key
        );
    }
    for k in RP_OPTIONS
        .iter()
        .filter(|k| k.support == Support::Implemented)
    {
        assert_eq!(
            get(k.key).map(|e| e.group),
            Some(Group::RelyingParties),
            "{}",
            k.key
        );
    }
}

/// The configuration `pairs` make, as the start-up gate reads it.
fn raw(pairs: Value) -> Map<String, Value> {
    crate::config::defaults::merged(pairs.as_object().expect("an object"))
}

/// Whether the gate lets `key = value` through (with the keys it needs beside it).
fn gate_accepts(key: &str, value: &str, beside: Value) -> bool {
    let mut conf = raw(beside);
    conf.insert(key.into(), json!(value));
    let refusals = gate::refusals(&conf);
    !refusals.iter().any(|r| r.starts_with(key))
}

/// Whether the code that reads `key` accepts `value`, asked of that code.
fn accepted(key: &str, v: &str) -> bool {
    use crate::config::AreaSettings;
    use crate::oidc::keys::{signing::signing_algs, Alg};
    use crate::oidc::settings::{logout, rp_keys::AuthMethod};
    let rp = |short: &str, extra: Value| {
        let mut o = extra.as_object().cloned().unwrap_or_default();
        o.insert(format!("oidcRPMetaDataOptions{short}"), json!(v));
        o
    };
    let sqlite = json!({"dbiChain": "DBI:SQLite:dbname=/var/lib/n.db"});
    match key {
        "authentication" | "registerDB" => gate_accepts(key, v, json!({})),
        "userDB" if v == "Same" => gate_accepts(key, v, json!({})),
        "userDB" => gate_accepts(
            key,
            v,
            json!({"authentication": v, "restAuthUrl": "http://a/",
            "restUserDBUrl": "http://a/"}),
        ),
        "passwordDB" => gate_accepts(key, v, json!({"authentication": "DBI"})),
        "notificationStorage" => {
            gate_accepts(key, v, json!({"notificationStorageOptions": sqlite}))
        }
        "issuerDBOpenIDConnectPath" => gate_accepts(key, v, json!({})),
        "sameSite" => gate_accepts(key, v, json!({"securedCookie": 1})),
        "globalStorage" | "persistentStorage" => v.is_empty() || gate::SESSION_STORAGE.contains(&v),
        // The handler's `https`: a trool, -1 (unset), 0 or 1 (`handler::settings::tri`).
        "https" => matches!(crate::config::as_i64(&json!(v)), Some(-1..=1)),
        "webauthn2fUserVerification" => {
            let conf = raw(json!({"portal": "https://auth.example.com/", key: v}));
            crate::second_factor::webauthn::Settings::from_conf(&conf).is_ok()
        }
        "dbiAuthPasswordHash" => {
            crate::directory::dbi::scheme::Hashing::parse(false, v, "", "", "").is_ok()
        }
        "oidcRPMetaDataOptionsIDTokenSignAlg" => {
            signing_algs(&rp("IDTokenSignAlg", json!({})))[0].is_ok()
        }
        "oidcRPMetaDataOptionsUserInfoSignAlg" => {
            signing_algs(&rp("UserInfoSignAlg", json!({})))[1].is_ok()
        }
        "oidcRPMetaDataOptionsAccessTokenSignAlg" => {
            let jwt = json!({"oidcRPMetaDataOptionsAccessTokenJWT": 1});
            matches!(signing_algs(&rp("AccessTokenSignAlg", jwt))[2], Ok(Some(_)))
        }
        "oidcRPMetaDataOptionsRequestObjectSignAlg" => v.is_empty() || Alg::parse(v).is_some(),
        "oidcRPMetaDataOptionsAuthMethod" => v.is_empty() || AuthMethod::parse(v).is_some(),
        "oidcRPMetaDataOptionsLogoutType" => {
            let url = json!({"oidcRPMetaDataOptionsLogoutUrl": "https://rp.example.com/out"});
            logout::parse(&rp("LogoutType", url), Alg::HS512).is_ok()
        }
        other => panic!("{other}: a select the test cannot check; add its reader here"),
    }
}

#[test]
fn every_select_value_is_one_the_code_accepts_and_the_default_is_listed() {
    for e in all() {
        let Input::Select(values) = e.input else {
            continue;
        };
        for v in values {
            assert!(
                accepted(e.key, v),
                "{} = {v:?} is refused by the code",
                e.key
            );
        }
        let limette = crate::config::defaults::defaults().get(e.key).cloned();
        let llng = support::llng_keys().get(e.key).and_then(|k| k.default());
        for d in [limette, llng].into_iter().flatten() {
            let d = crate::config::value_string(&d);
            assert!(
                values.contains(&d.as_str()),
                "{}: default {d:?} not listed",
                e.key
            );
        }
    }
    // The session stores offered are exactly the gate's.
    let stores = get("globalStorage").map(|e| e.input);
    let Some(Input::Select(values)) = stores else {
        panic!("globalStorage")
    };
    let offered: Vec<&str> = values.iter().copied().filter(|v| !v.is_empty()).collect();
    assert_eq!(offered, gate::SESSION_STORAGE);
    // A value the code refuses is refused by this test's check, so that it can fail.
    assert!(!accepted("authentication", "LDAP") && !accepted("sameSite", "Loose"));
    assert!(!accepted("oidcRPMetaDataOptionsAccessTokenSignAlg", "none"));
}

#[test]
fn int_defaults_are_within_their_bounds() {
    for e in all() {
        let Input::Int { min, max } = e.input else {
            continue;
        };
        let limette = crate::config::defaults::defaults().get(e.key).cloned();
        let llng = support::llng_keys().get(e.key).and_then(|k| k.default());
        for d in [limette, llng].into_iter().flatten() {
            if support::is_off(&d) && crate::config::as_i64(&d).is_none() {
                continue; // unset ("")
            }
            let n = crate::config::as_i64(&d).unwrap_or_else(|| panic!("{}: {d}", e.key));
            assert!(
                (min..=max).contains(&n),
                "{}: default {n} outside {min}..={max}",
                e.key
            );
        }
    }
}

#[test]
fn texts_are_short_and_the_whole_stays_small() {
    let mut total = 0;
    for e in all() {
        for t in [e.en, e.fr] {
            assert!(t.label.chars().count() <= 50, "{}: label too long", e.key);
            assert!(
                t.help.chars().count() <= 125,
                "{}: help too long: {}",
                e.key,
                t.help
            );
            assert!(t.help.ends_with('.'), "{}: help is one sentence", e.key);
            total += t.label.len() + t.help.len();
        }
    }
    assert!(total < 60_000, "{total} bytes of text");
}
