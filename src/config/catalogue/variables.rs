//! Variables: the attributes a session gets from the directory, the macros and groups computed
//! at login from them.
use super::Group::Variables;
use super::Input::{Bool, Map, Text};
use super::{entry, Entry};

/// The group's entries.
#[rustfmt::skip]
pub const ENTRIES: &[Entry] = &[
    entry("exportedVars", Variables, Map,
        ("Exported variables", "Session attributes read from the directory: the attribute's name, then the directory's field."),
        ("Attributs à exporter", "Attributs de session lus dans l'annuaire : le nom de l'attribut, puis le champ de l'annuaire.")),
    entry("macros", Variables, Map,
        ("Macros", "Attributes computed at login: a name, then an expression of the rules language."),
        ("Macros", "Attributs calculés à la connexion : un nom, puis une expression du langage des règles.")),
    entry("groups", Variables, Map,
        ("Groups", "Groups given at login: a group's name, then the rule a user must meet to be in it."),
        ("Groupes", "Groupes attribués à la connexion : le nom du groupe, puis la règle qu'un utilisateur doit remplir.")),
    entry("groupsBeforeMacros", Variables, Bool,
        ("Compute groups before macros", "Compute the groups first, so that macros can read them."),
        ("Calculer les groupes avant les macros", "Calcule d'abord les groupes, pour que les macros puissent les lire.")),
    entry("multiValuesSeparator", Variables, Text,
        ("Multi-value separator", "Text between the values of an attribute that has several (\"; \" by default)."),
        ("Séparateur de valeurs multiples", "Texte entre les valeurs d'un attribut qui en a plusieurs (« ; » par défaut).")),
];
