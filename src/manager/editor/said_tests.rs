//! `said`'s tests: the real checks' messages (the start-up gate, the cookie domain, `config
//! check`'s findings, the rule parser) read in French with their keys and values verbatim, and
//! unchanged in English. Apart from `said.rs`, so that the key table's test does not read the
//! keys these configurations name as keys the code honours.
use super::said::text;
use crate::config::{cookie_domain, gate, Conf};
use serde_json::{json, Map, Value};

/// Says `msg` in French and checks that it changed and kept each of `verbatim`.
fn french(msg: &str, verbatim: &[&str]) -> String {
    let fr = text("fr", msg);
    assert_ne!(fr, msg, "no French for: {msg}");
    for v in verbatim {
        assert!(fr.contains(v), "{v:?} lost in: {fr}");
    }
    assert_eq!(text("en", msg), msg, "English changes: {msg}");
    fr
}

fn raw(v: Value) -> Map<String, Value> {
    crate::config::defaults::merged(v.as_object().unwrap_or(&Map::new()))
}

#[test]
fn the_cookie_domain_lockout_reads_in_french() {
    let e = cookie_domain::check("https://auth.example.com/", "example.org").unwrap_err();
    let fr = french(&e, &["domain = example.org", "https://auth.example.com/"]);
    assert!(fr.contains("ni l'hôte du portail"), "{fr}");
    assert!(!fr.contains("neither"), "{fr}");
    let e = cookie_domain::check("http://127.0.0.1:8080/", "example.org").unwrap_err();
    let fr = french(&e, &["127.0.0.1"]);
    assert!(fr.contains("adresse IP"), "{fr}");
}

#[test]
fn gate_refusals_read_in_french() {
    let cases = [
        (json!({"authentication": "LDAP"}), "authentication = LDAP"),
        (json!({"passwordDB": "LDAP"}), "passwordDB = LDAP"),
        (
            json!({"notificationStorage": "LDAP"}),
            "notificationStorage = LDAP",
        ),
        (json!({"sameSite": "None"}), "securedCookie = 1"),
        (json!({"sameSite": "Loose"}), "sameSite = Loose"),
        (json!({"securedCookie": 2}), "securedCookie = 2"),
        (json!({"userControl": "(("}), "userControl = (("),
        (
            json!({"bruteForceProtection": 1}),
            "loginHistoryEnabled = 1",
        ),
        (
            json!({"bruteForceProtection": 1, "loginHistoryEnabled": 1, "failedLoginNumber": 2}),
            "failedLoginNumber = 2",
        ),
        (
            json!({"authentication": "REST", "restAuthUrl": "https://a.example/x"}),
            "https://a.example/x",
        ),
        (json!({"mail2fActivation": 1}), "mail2fActivation = 1"),
        (json!({"issuerDBOpenIDConnectPath": "^/x/"}), "^/x/"),
    ];
    for (conf, verbatim) in cases {
        let r = gate::refusals(&raw(conf.clone()));
        assert!(!r.is_empty(), "{conf}");
        for line in &r {
            let fr = french(line, &[]);
            assert!(!fr.contains("is not supported"), "{fr}");
            assert!(!fr.contains("supported:"), "{fr}");
        }
        french(&r.join("; "), &[verbatim]);
    }
    let r = gate::refusals(&raw(json!({"authentication": "REST", "userDB": "Demo",
        "restAuthUrl": "http://127.0.0.1:1/a", "restUserDBUrl": "http://127.0.0.1:1/u"})));
    let fr = french(
        &r[0],
        &["userDB = Demo", "authentication = REST", "Same, REST"],
    );
    assert!(
        fr.starts_with("userDB = Demo n'est pas pris en charge avec"),
        "{fr}"
    );
    let fr = french(
        &gate::refusals(&raw(json!({"mail2fActivation": 1})))[0],
        &[],
    );
    assert!(fr.contains("second facteur : courriel"), "{fr}");
}

/// The findings `config check` makes of `doc`, said in French: each changes.
fn findings_of(doc: Value) -> Vec<(String, String)> {
    let conf = Conf::of_json(doc);
    let dir = std::env::temp_dir();
    let local = crate::config::local::LocalConf::embedded(&dir);
    crate::findings::findings(&local, &conf)
        .into_iter()
        .map(|f| (f.message.clone(), french(&f.message, &[])))
        .collect()
}

#[test]
fn findings_read_in_french() {
    let found = findings_of(json!({
        "portal": "https://auth.example.com/",
        "domain": "example.org",
        "authentication": "Demo",
        "securedCookie": 0,
        "requireToken": 0,
        "restExportSecretKeys": 1,
        "portalSkinBackgroundX": 1,
        "zzzNoSuchThing": 1,
        "registerDB": "Demo",
        "groups": {"admins": "$uid eq"},
        "locationRules": {"manager.example.com": {"default": "deny", "^/x": "$uid eq"}},
    }));
    let all: String = found.iter().map(|(_, f)| format!("{f}\n")).collect();
    for words in [
        "domain = example.org",
        "authentication = Demo : les comptes de démonstration",
        "securedCookie = 0 derrière un portail https",
        "requireToken est désactivé",
        "restExportSecretKeys est activé",
        "key n'est pas définie",
        "zzzNoSuchThing n'est pas une clé de LemonLDAP::NG 2.16",
        "registerDB = Demo : Limette n'a pas de page",
        "groups/admins : hors du sous-ensemble d'expressions pris en charge (fin inattendue de la règle) ;",
        "définissez [portal] managerHost = manager.example.com",
        "la règle \"$uid eq\" n'est pas valide (fin inattendue de la règle) : l'hôte virtuel \
         manager.example.com refuse toutes les requêtes",
    ] {
        assert!(all.contains(words), "{words:?} not in:\n{all}");
    }
}

#[test]
fn ignored_keys_and_disabled_relying_parties_read_in_french() {
    let found = findings_of(json!({
        "portal": "https://auth.example.com/",
        "key": "k",
        "requireToken": 1,
        "securedCookie": 1,
        "scrollTop": 1234,
        "portalSkn": "x",
        "oidcRPMetaDataOptions": {"app": {"oidcRPMetaDataOptionsClientID": "",
            "oidcRPMetaDataOptionsPublic": 0}},
    }));
    let all: String = found.iter().map(|(_, f)| format!("{f}\n")).collect();
    for words in [
        "application partenaire app : oidcRPMetaDataOptionsClientID",
        "scrollTop = 1234 : Limette ignore ce paramètre",
        "portalSkn n'est pas une clé de LemonLDAP::NG 2.16 (vouliez-vous dire ",
    ] {
        assert!(all.contains(words), "{words:?} not in:\n{all}");
    }
}

#[test]
fn rule_errors_read_in_french() {
    for rule in [
        "$uid eq",
        "$uid eq 'x",
        "$uid eq \"a\" and",
        "foo",
        "inGroup()",
        "$uid =~ 3",
        "$uid eq 'a' 'b'",
        "$ eq 1",
    ] {
        let e = crate::rules::Rule::parse(rule).unwrap_err();
        french(&e, &[]);
    }
}

#[test]
fn area_settings_refusals_read_in_french() {
    use crate::config::AreaSettings;
    let handler = |v: Value| crate::handler::Settings::from_conf(&raw(v)).err();
    for conf in [
        json!({"vhostOptions": {"a.example.com": {"vhostType": "CDA"}},
            "locationRules": {"a.example.com": {"default": "accept"}}}),
        json!({"handlerInternalCache": "x"}),
    ] {
        let e = handler(conf.clone()).unwrap_or_else(|| panic!("refused: {conf}"));
        french(&e, &[]);
    }
    let skins = raw(json!({"portalSkinRules": {"1": "a b"}}));
    let Err(e) = crate::sso::skin::SkinRules::from_conf(&skins) else {
        panic!("a bad skin name is refused")
    };
    french(&e, &["portalSkinRules", "a b"]);
}

#[test]
fn dbi_findings_read_in_french() {
    use crate::config::AreaSettings;
    let dir = std::env::temp_dir().join(format!("limette-said-{}", crate::util::random_hex(6)));
    let chain = format!("dbi:SQLite:dbname={}/none.db", dir.display());
    let conf = raw(json!({"authentication": "DBI", "dbiAuthChain": chain}));
    let Err(e) = crate::directory::dbi::Settings::from_conf(&conf) else {
        panic!("a DBI table is required")
    };
    french(&e, &["dbiAuthTable"]);
    let conf = raw(json!({"authentication": "DBI", "dbiAuthChain": chain,
        "dbiAuthTable": "users", "dbiAuthLoginCol": "login", "dbiAuthPasswordCol": "password"}));
    let s = crate::directory::dbi::Settings::from_conf(&conf).expect("DBI settings");
    let found = crate::directory::dbi::findings(&s);
    assert!(found.len() >= 2, "{found:?}");
    for (_, _, m) in &found {
        french(m, &[]);
    }
}
