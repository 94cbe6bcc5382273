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

/// An authentication level (Limette's parsers set no bound; 0 to 100 covers LemonLDAP::NG's
/// levels and leaves room).
pub(super) const LEVEL: Input = Input::Int { min: 0, max: 100 };

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
}
