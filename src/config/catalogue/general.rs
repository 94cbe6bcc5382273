//! General parameters: the portal's address, the cookie, the domain.
use super::Group::General;
use super::Input::{Bool, Text, Url};
use super::{entry, Entry};

/// The group's entries.
pub const ENTRIES: &[Entry] = &[
    entry(
        "portal",
        General,
        Url,
        ("Portal address", "The URL users reach the portal at; links and redirections are built from it."),
        ("Adresse du portail", "L'URL à laquelle les utilisateurs joignent le portail ; liens et redirections en sont construits."),
    ),
    entry(
        "domain",
        General,
        Text,
        ("Cookie domain", "The DNS domain the SSO cookie is sent to; the portal's host must be inside it."),
        ("Domaine du cookie", "Le domaine DNS auquel le cookie SSO est envoyé ; l'hôte du portail doit en faire partie."),
    ),
    entry(
        "securedCookie",
        General,
        Bool,
        ("Secure cookie", "Send the SSO cookie over HTTPS only."),
        ("Cookie sécurisé", "N'envoyer le cookie SSO qu'en HTTPS."),
    ),
];
