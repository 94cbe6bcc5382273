//! The keys Limette refuses (`config::support::REFUSED`) that the document sets, listed
//! read-only below the editor's form, each with why: the table's note in English, and its
//! French here (a test keeps the two lists the same).
use super::{Ctx, View};
use crate::config::gate::short;
use crate::config::support::{is_secret, REFUSED};
use maud::{html, Markup};
use serde_json::{Map, Value};

/// The French of each refused key's note.
const FR: &[(&str, &str)] = &[
    (
        "grantSessionRules",
        "règles qui refusent une session à la connexion",
    ),
    ("singleSession", "une session par utilisateur"),
    ("singleIP", "une adresse par utilisateur"),
    ("singleUserByIP", "un utilisateur par adresse"),
    (
        "captcha_login_enabled",
        "captcha sur le formulaire de connexion",
    ),
    ("checkHIBP", "vérification des mots de passe divulgués"),
    ("crowdsec", "liste d'adresses bannies"),
    ("customPlugins", "greffons du portail"),
    (
        "adaptativeAuthenticationLevelRules",
        "modifie les niveaux d'authentification",
    ),
    ("portalForceAuthn", "réauthentification forcée"),
    ("portalForceAuthnInterval", "réauthentification forcée"),
    ("sfExtra", "modules de second facteur supplémentaires"),
    ("utotp2fActivation", "second facteur : TOTP ou U2F"),
    ("u2fActivation", "second facteur : U2F"),
    ("yubikey2fActivation", "second facteur : Yubikey"),
    ("mail2fActivation", "second facteur : courriel"),
    ("ext2fActivation", "second facteur : externe"),
    ("rest2fActivation", "second facteur : REST"),
    ("radius2fActivation", "second facteur : Radius"),
    ("password2fActivation", "second facteur : mot de passe"),
    ("issuerDBSAMLActivation", "fournisseur d'identité SAML"),
    ("issuerDBCASActivation", "serveur CAS"),
    ("issuerDBOpenIDActivation", "fournisseur OpenID 2"),
    ("issuerDBGetActivation", "fournisseur GET"),
    ("issuerDBSAMLRule", "règle du fournisseur d'identité SAML"),
    ("issuerDBCASRule", "règle du serveur CAS"),
    (
        "cda",
        "authentification interdomaines : le point d'accès des applications n'a pas d'échange \
         CDA ; protégez les applications sous le domaine du cookie SSO",
    ),
    ("cookieExpiration", "cookie SSO persistant"),
    ("impersonationRule", "usurpation d'identité"),
    ("contextSwitchingRule", "changement de contexte"),
    ("stayConnected", "appareils « rester connecté »"),
];

/// The note of `key` in `lang`.
fn note(lang: &str, key: &str, en: &'static str) -> &'static str {
    match lang {
        "fr" => FR.iter().find(|(k, _)| *k == key).map_or(en, |(_, n)| n),
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
        .map(|k| (k.key, note(page.lang, k.key, k.note)))
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
            assert!(
                FR.iter().any(|(key, _)| *key == k.key),
                "{}: no French note",
                k.key
            );
        }
        for (key, _) in FR {
            assert!(REFUSED.iter().any(|k| k.key == *key), "{key}: not refused");
        }
    }
}
