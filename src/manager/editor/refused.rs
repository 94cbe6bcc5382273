//! The keys Limette refuses (`config::support::REFUSED`) that the document sets, listed
//! read-only below the editor's form, each with why: the table's note in English, and its
//! French here (a test keeps the two lists the same).
use super::{Ctx, View};
use crate::config::gate::short;
use crate::config::support::{is_secret, REFUSED};
use maud::{html, Markup};
use serde_json::{Map, Value};

/// The French of each note of the refused keys, by its English (not by key: a key named here
/// would read as a key the code honours).
pub(super) const FR: &[(&str, &str)] = &[
    (
        "rules that refuse a session at login",
        "règles qui refusent une session à la connexion",
    ),
    ("one session per user", "une session par utilisateur"),
    ("one address per user", "une adresse par utilisateur"),
    ("one user per address", "un utilisateur par adresse"),
    (
        "captcha on the login form",
        "captcha sur le formulaire de connexion",
    ),
    (
        "password leak check",
        "vérification des mots de passe divulgués",
    ),
    ("address ban list", "liste d'adresses bannies"),
    ("portal plugins", "greffons du portail"),
    (
        "changes authentication levels",
        "modifie les niveaux d'authentification",
    ),
    ("forced re-authentication", "réauthentification forcée"),
    (
        "extra second-factor modules",
        "modules de second facteur supplémentaires",
    ),
    ("second factor: TOTP or U2F", "second facteur : TOTP ou U2F"),
    ("second factor: U2F", "second facteur : U2F"),
    ("second factor: Yubikey", "second facteur : Yubikey"),
    ("second factor: mail", "second facteur : courriel"),
    ("second factor: external", "second facteur : externe"),
    ("second factor: REST", "second facteur : REST"),
    ("second factor: Radius", "second facteur : Radius"),
    ("second factor: password", "second facteur : mot de passe"),
    ("SAML identity provider", "fournisseur d'identité SAML"),
    ("CAS server", "serveur CAS"),
    ("OpenID 2 provider", "fournisseur OpenID 2"),
    ("GET issuer", "fournisseur GET"),
    (
        "rule of the SAML identity provider",
        "règle du fournisseur d'identité SAML",
    ),
    ("rule of the CAS server", "règle du serveur CAS"),
    (
        "cross-domain authentication: the handler endpoint has no CDA exchange; protect \
         applications under the SSO cookie's domain",
        "authentification interdomaines : le point d'accès des applications n'a pas d'échange \
         CDA ; protégez les applications sous le domaine du cookie SSO",
    ),
    ("persistent SSO cookie", "cookie SSO persistant"),
    ("impersonation", "usurpation d'identité"),
    ("context switching", "changement de contexte"),
    ("stay-connected devices", "appareils « rester connecté »"),
    (
        "Limette always keeps persistent sessions (consents, devices, notifications done)",
        "Limette garde toujours les sessions persistantes (consentements, appareils, \
         notifications traitées)",
    ),
];

/// A note in `lang`.
fn note(lang: &str, en: &'static str) -> &'static str {
    match lang {
        "fr" => FR.iter().find(|(e, _)| *e == en).map_or(en, |(_, n)| n),
        _ => en,
    }
}

/// The refused keys the document sets (and a search finds): read-only, with why.
pub fn section(ctx: &Ctx, view: &View, doc: &Map<String, Value>) -> Markup {
    let page = ctx.page();
    let q = view.q.to_lowercase();
    let set: Vec<_> = REFUSED
        .iter()
        .filter(|k| doc.contains_key(k.key))
        .map(|k| (k.key, note(page.lang, k.note)))
        .filter(|(key, note)| {
            q.is_empty() || key.to_lowercase().contains(&q) || note.to_lowercase().contains(&q)
        })
        .collect();
    html! {
        @if !set.is_empty() {
            section id="ed-refused" aria-labelledby="ed-refused-h" {
                h2 id="ed-refused-h" { (page.say("edRefused")) } "\n"
                dl { @for (key, why) in set {
                    dt {
                        code { (key) } " = "
                        @if is_secret(key) { (page.say("mgrSecretHidden")) }
                        @else { code { (doc.get(key).map(short).unwrap_or_default()) } }
                    }
                    dd { (page.say("edRefusedWhy")) " " (why) } "\n"
                } }
            } "\n"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refused_key_has_its_note_in_french() {
        for k in REFUSED {
            let found = FR.iter().any(|(en, _)| *en == k.note);
            assert!(found, "{}: no French note", k.key);
        }
        for (en, _) in FR {
            assert!(REFUSED.iter().any(|k| k.note == *en), "{en}: no such note");
        }
    }
}
