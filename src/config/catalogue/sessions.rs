//! Sessions: their lifetimes, their storage (SSO and persistent sessions), what the session
//! server hides.
use super::Group::Sessions;
use super::Input::{Int, Map, Select, Text};
use super::{entry, Entry};

/// The session storage modules (`gate::SESSION_STORAGE`), or unset.
const STORES: &[&str] = &[
    "",
    "Apache::Session::File",
    "Apache::Session::Browseable::File",
    "Apache::Session::SQLite3",
    "Apache::Session::Browseable::SQLite",
    "Apache::Session::Browseable::PgJSON",
    "Lemonldap::NG::Common::Apache::Session::REST",
    "File",
    "SQLite",
    "PgJSON",
    "REST",
];

/// The group's entries.
#[rustfmt::skip]
pub const ENTRIES: &[Entry] = &[
    entry("timeout", Sessions, Int { min: 1, max: 31_536_000 },
        ("Session lifetime", "The longest an SSO session lives, in seconds."),
        ("Durée de vie maximale des sessions", "La durée de vie maximale d'une session SSO, en secondes.")),
    entry("timeoutActivity", Sessions, Int { min: 0, max: 31_536_000 },
        ("Inactivity timeout", "Seconds without activity after which a session ends; 0: never."),
        ("Délai d'inactivité", "Secondes sans activité au bout desquelles une session se termine ; 0 : jamais.")),
    entry("globalStorage", Sessions, Select(STORES),
        ("Session storage", "Where SSO sessions are kept: files, SQLite, PostgreSQL (PgJSON) or another node (REST)."),
        ("Stockage des sessions", "Où sont conservées les sessions SSO : fichiers, SQLite, PostgreSQL (PgJSON) ou autre nœud (REST).")),
    entry("globalStorageOptions", Sessions, Map,
        ("Session storage parameters", "Directory (files); DataSource, UserName, Password, TableName (SQL); baseUrl, user, password (REST)."),
        ("Paramètres du stockage des sessions", "Directory (fichiers) ; DataSource, UserName, Password, TableName (SQL) ; baseUrl, user, password (REST).")),
    entry("persistentStorage", Sessions, Select(STORES),
        ("Persistent session storage", "Where persistent sessions (history, devices, consents) are kept; unset: as SSO sessions."),
        ("Stockage des sessions persistantes", "Où sont conservées les sessions persistantes (historique, équipements, consentements) ; absent : comme les sessions.")),
    entry("persistentStorageOptions", Sessions, Map,
        ("Persistent storage parameters", "The persistent storage's parameters, as those of the session storage."),
        ("Paramètres du stockage persistant", "Les paramètres du stockage persistant, comme ceux du stockage des sessions.")),
    entry("hiddenAttributes", Sessions, Text,
        ("Hidden attributes", "Session attributes the REST session server leaves out unless secret attributes are exported."),
        ("Attributs masqués", "Attributs de session que le serveur REST omet, sauf si les attributs secrets sont exportés.")),
];
