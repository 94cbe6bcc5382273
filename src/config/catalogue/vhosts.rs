//! Protected applications (virtual hosts): their access rules, headers and options, and the
//! handler endpoint's own settings.
use super::Group::VirtualHosts;
use super::Input::{Bool, Int, Json, Select, Text};
use super::{entry, Entry};

/// The group's entries.
#[rustfmt::skip]
pub const ENTRIES: &[Entry] = &[
    entry("locationRules", VirtualHosts, Json,
        ("Access rules", "Per host: a URL pattern, then the rule a user must meet; default covers the rest."),
        ("Règles d'accès", "Par hôte : un motif d'URL, puis la règle à remplir ; default couvre le reste.")),
    entry("exportedHeaders", VirtualHosts, Json,
        ("Exported headers", "Per host: a header's name, then the expression giving its value for the application."),
        ("En-têtes exportés", "Par hôte : le nom d'un en-tête, puis l'expression qui donne sa valeur à l'application.")),
    entry("vhostOptions", VirtualHosts, Json,
        ("Host options", "Per host: vhostAuthnLevel, vhostHttps, vhostPort, vhostMaintenance, vhostAliases."),
        ("Options des hôtes", "Par hôte : vhostAuthnLevel, vhostHttps, vhostPort, vhostMaintenance, vhostAliases.")),
    entry("customToTrace", VirtualHosts, Text,
        ("REMOTE_CUSTOM attribute", "The session attribute sent to applications as Lm-Remote-Custom; empty: none."),
        ("Attribut REMOTE_CUSTOM", "L'attribut de session envoyé aux applications dans Lm-Remote-Custom ; vide : aucun.")),
    entry("handlerInternalCache", VirtualHosts, Int { min: 0, max: 300 },
        ("Handler cache", "Seconds the handler endpoint answers for a session from memory (300 at most)."),
        ("Cache du handler", "Secondes pendant lesquelles le handler répond d'une session depuis sa mémoire (300 au plus).")),
    entry("https", VirtualHosts, Select(&["-1", "0", "1"]),
        ("HTTPS", "The scheme of the handler's redirections: 1 https, 0 http, -1 the request's."),
        ("HTTPS", "Le schéma des redirections du handler : 1 https, 0 http, -1 celui de la requête.")),
    entry("port", VirtualHosts, Int { min: -1, max: 65_535 },
        ("Port", "The port of the handler's redirections; -1 or 0: the request's."),
        ("Port", "Le port des redirections du handler ; -1 ou 0 : celui de la requête.")),
    entry("maintenance", VirtualHosts, Bool,
        ("Maintenance mode", "The handler endpoint answers 503 for every protected application."),
        ("Mode maintenance", "Le handler répond 503 pour toutes les applications protégées.")),
];
