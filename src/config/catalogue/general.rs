//! General parameters: the portal's address, the cookie, the domain.
use super::Group::General;
use super::Input::{Bool, Select, Text, Url};
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
    entry(
        "cookieName",
        General,
        Text,
        ("Cookie name", "Name of the SSO cookie: letters, digits, - and _ only."),
        ("Nom du cookie", "Nom du cookie SSO : lettres, chiffres, - et _ seulement."),
    ),
    entry(
        "httpOnly",
        General,
        Bool,
        ("JavaScript protection", "Mark the SSO cookie HttpOnly, so that the pages' scripts cannot read it."),
        ("Protection contre JavaScript", "Marque le cookie SSO HttpOnly : les scripts des pages ne peuvent pas le lire."),
    ),
    entry(
        "sameSite",
        General,
        Select(&["", "Strict", "Lax", "None"]),
        ("Cookie SameSite value", "When browsers send the SSO cookie across sites; empty means Lax, None needs a secure cookie."),
        ("Valeur SameSite du cookie", "Quand les navigateurs envoient le cookie SSO entre sites ; vide vaut Lax, None exige un cookie sécurisé."),
    ),
    entry(
        "whatToTrace",
        General,
        Text,
        ("User name attribute (REMOTE_USER)", "The session attribute that names the user in logs, session lists and to applications."),
        ("Attribut de l'utilisateur (REMOTE_USER)", "L'attribut de session qui nomme l'utilisateur dans les journaux, les sessions et pour les applications."),
    ),
];
