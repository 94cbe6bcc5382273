//! The console editor's catalogue: for each key Limette honours, the group LemonLDAP::NG's
//! manager shows it in, the input it takes, and a label and a one-line help in English and
//! French (facts from LemonLDAP::NG's documentation and attribute definitions, in Limette's own
//! words). What Limette does with a key is `support`'s table; its type and default in
//! LemonLDAP::NG 2.16 are `support::llng_keys`; this table adds only what a person editing the
//! key needs. One file a group; `ENTRIES` lists them all.
mod advanced;
mod auth;
mod general;
mod notifications;
mod oidc;
mod portal;
mod rp;
mod second_factors;
mod sessions;
mod variables;
mod vhosts;

/// Where the editor shows a key: LemonLDAP::NG's manager's groups, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// General parameters: the portal's address, cookies, the domain.
    General,
    /// Variables: exported variables, macros, groups.
    Variables,
    /// The portal: its pages, menu, messages, languages.
    Portal,
    /// Authentication, user and password modules with their parameters.
    Authentication,
    /// Second factors.
    SecondFactors,
    /// Issuer modules: the OpenID Connect service.
    Oidc,
    /// OpenID Connect relying parties (their options, `oidcRPMetaDataOptions*`).
    RelyingParties,
    /// Virtual hosts: the rules and headers of protected applications.
    VirtualHosts,
    /// Notifications.
    Notifications,
    /// Sessions: timeouts, storage, their limits.
    Sessions,
    /// Advanced parameters: security, brute force, storage of the configuration, logs.
    Advanced,
}

impl Group {
    /// Every group, in the editor's order.
    pub const ALL: [Group; 11] = [
        Group::General,
        Group::Variables,
        Group::Portal,
        Group::Authentication,
        Group::SecondFactors,
        Group::Oidc,
        Group::RelyingParties,
        Group::VirtualHosts,
        Group::Notifications,
        Group::Sessions,
        Group::Advanced,
    ];

    /// The group's name in `lang` (`en` or `fr`; English otherwise).
    pub fn name(self, lang: &str) -> &'static str {
        let (en, fr) = match self {
            Group::General => ("General parameters", "Paramètres généraux"),
            Group::Variables => ("Variables", "Variables"),
            Group::Portal => ("Portal", "Portail"),
            Group::Authentication => ("Authentication modules", "Modules d'authentification"),
            Group::SecondFactors => ("Second factors", "Seconds facteurs"),
            Group::Oidc => ("OpenID Connect service", "Service OpenID Connect"),
            Group::RelyingParties => ("OpenID Connect relying parties", "Clients OpenID Connect"),
            Group::VirtualHosts => ("Protected applications", "Applications protégées"),
            Group::Notifications => ("Notifications", "Notifications"),
            Group::Sessions => ("Sessions", "Sessions"),
            Group::Advanced => ("Advanced parameters", "Paramètres avancés"),
        };
        if lang == "fr" {
            fr
        } else {
            en
        }
    }
}

/// The input a key takes, and what the editor checks before anything else does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// On or off (`0`/`1` in the document, as LemonLDAP::NG writes it).
    Bool,
    /// A whole number within bounds (inclusive).
    Int { min: i64, max: i64 },
    /// One line of text.
    Text,
    /// An absolute `http(s)` URL.
    Url,
    /// A LemonLDAP::NG rule (its syntax checked as the access rules parse it).
    Rule,
    /// One of these values.
    Select(&'static [&'static str]),
    /// A table of names and values (an object of strings: macros, exported variables, ...).
    Map,
    /// A PEM block (a key or a certificate).
    Pem,
    /// A secret: never shown, an empty field keeps the stored value.
    Password,
    /// Several lines of text (a list, a template).
    Lines,
    /// A structured value (nested objects: per host, per relying party, the menu's
    /// categories), edited as JSON text and checked on save.
    Json,
}

/// A label and a one-line help, in one language.
#[derive(Debug, Clone, Copy)]
pub struct Text {
    /// A few words naming the key for a person ("Portal address").
    pub label: &'static str,
    /// One sentence: what the key does, and its unit where it has one.
    pub help: &'static str,
}

/// One key of the catalogue.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// LemonLDAP::NG's key name (for a relying-party option: the option's key,
    /// `oidcRPMetaDataOptions...`).
    pub key: &'static str,
    /// Its group.
    pub group: Group,
    /// The input it takes.
    pub input: Input,
    /// English.
    pub en: Text,
    /// French.
    pub fr: Text,
}

impl Entry {
    /// The label and help in `lang` (`fr`; English otherwise).
    pub fn text(&self, lang: &str) -> Text {
        if lang == "fr" {
            self.fr
        } else {
            self.en
        }
    }
}

/// A catalogue entry, written on one line in the group files.
pub const fn entry(
    key: &'static str,
    group: Group,
    input: Input,
    en: (&'static str, &'static str),
    fr: (&'static str, &'static str),
) -> Entry {
    Entry {
        key,
        group,
        input,
        en: Text {
            label: en.0,
            help: en.1,
        },
        fr: Text {
            label: fr.0,
            help: fr.1,
        },
    }
}

/// Every group file's entries.
pub const ENTRIES: &[&[Entry]] = &[
    general::ENTRIES,
    variables::ENTRIES,
    portal::ENTRIES,
    auth::ENTRIES,
    second_factors::ENTRIES,
    oidc::ENTRIES,
    rp::ENTRIES,
    vhosts::ENTRIES,
    notifications::ENTRIES,
    sessions::ENTRIES,
    advanced::ENTRIES,
];

/// Every entry, in the group files' order.
pub fn all() -> impl Iterator<Item = &'static Entry> {
    ENTRIES.iter().flat_map(|g| g.iter())
}

/// The entry of `key`, if the catalogue has it.
pub fn get(key: &str) -> Option<&'static Entry> {
    all().find(|e| e.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_has_one_entry_with_texts_in_both_languages() {
        let mut seen = std::collections::HashSet::new();
        for e in all() {
            assert!(seen.insert(e.key), "{} twice", e.key);
            for t in [e.en, e.fr] {
                assert!(!t.label.is_empty() && !t.help.is_empty(), "{}", e.key);
            }
            if let Input::Int { min, max } = e.input {
                assert!(min <= max, "{}", e.key);
            }
        }
        assert_eq!(get("portal").map(|e| e.group), Some(Group::General));
    }

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
            "globalStorage" | "persistentStorage" => {
                v.is_empty() || gate::SESSION_STORAGE.contains(&v)
            }
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
}
