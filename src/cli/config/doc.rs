//! The document "Using an existing LemonLDAP::NG configuration" (`docs/llng-configuration.md`),
//! generated from the code's tables (`config::support`, `config::gate`, `oidc::options`) so
//! that the page and the code cannot drift: a test compares the file with [`document`], and
//! `LIMETTE_BLESS=1 cargo test --lib doc` rewrites it.
use crate::config::gate;
use crate::config::support::{self, KeyInfo, Support};

/// The whole page, in Markdown.
pub fn document() -> String {
    let mut d = String::new();
    d.push_str(INTRO);
    d.push_str("\n## Modules and stores\n\n| key | supported values |\n|---|---|\n");
    let modules: [(&str, String); 7] = [
        ("authentication", gate::AUTHENTICATION.join(", ")),
        (
            "userDB",
            format!("Same, {}", gate::AUTHENTICATION.join(", ")),
        ),
        ("passwordDB", gate::PASSWORD_DB.join(", ")),
        ("registerDB", gate::REGISTER_DB.join(", ")),
        (
            "globalStorage, persistentStorage",
            gate::SESSION_STORAGE.join(", "),
        ),
        ("notificationStorage", gate::NOTIFICATION_STORAGE.join(", ")),
        ("[configuration] type", gate::CONF_TYPES.join(", ")),
    ];
    for (key, values) in modules {
        d.push_str(&format!("| `{key}` | {values} |\n"));
    }
    // The same page for every build: the drivers of the release and static builds, with the
    // feature that brings PostgreSQL named.
    d.push_str(
        "\nSQL stores (`dbiChain`, `DataSource`) accept the drivers SQLite and Pg (PostgreSQL, \
         in the builds with the `postgres` feature: the release and static builds; see \
         docs/cluster.md); any other driver is refused by name.\n",
    );
    table(
        &mut d,
        "Keys Limette honours",
        IMPLEMENTED_TEXT,
        support::IMPLEMENTED,
    );
    table(
        &mut d,
        "Keys that refuse start-up",
        REFUSED_TEXT,
        support::REFUSED,
    );
    table(
        &mut d,
        "Relying-party options",
        RP_TEXT,
        crate::oidc::options::RP_OPTIONS,
    );
    ignored(&mut d);
    d
}

fn table(d: &mut String, title: &str, text: &str, rows: &[KeyInfo]) {
    d.push_str(&format!(
        "\n## {title}\n\n{text}\n\n| key | Limette | note |\n|---|---|---|\n"
    ));
    let mut rows: Vec<&KeyInfo> = rows.iter().collect();
    crate::util::sort::sort_by_key(&mut rows, |k| k.key);
    for k in rows {
        let what = match k.support {
            Support::Implemented => "honoured",
            Support::Ignored => "ignored",
            Support::Refused => "refused",
        };
        d.push_str(&format!("| `{}` | {what} | {} |\n", k.key, k.note));
    }
}

fn ignored(d: &mut String) {
    let keys: Vec<String> = support::llng_keys()
        .keys()
        .filter(|k| !k.starts_with("oidcRPMetaDataOptions"))
        .filter(|k| support::support(k).is_some_and(|i| i.support == Support::Ignored))
        .map(|k| format!("`{k}`"))
        .collect();
    d.push_str(&format!(
        "\n## Keys Limette ignores\n\n{IGNORED_TEXT}\n\n{}\n",
        keys.join(", ")
    ));
}

const INTRO: &str = "# Using an existing LemonLDAP::NG configuration

<!-- Generated from the code's tables (src/config/support.rs, src/config/gate.rs,
src/oidc/options.rs) by `LIMETTE_BLESS=1 cargo test --lib doc`; do not edit by hand. -->

Limette reads LemonLDAP::NG 2.16's `lmConf-N.json` as it is. It never runs a configuration
differently from what it says: a key it reads works as LemonLDAP::NG documents it; a module,
store or value it cannot honour stops start-up with one line naming the key and the value
(exit status 2); a relying party with an option it cannot honour is disabled with an error line
and answered as unknown; keys it does not read are listed by `limette config check`.

Bring a configuration along:

    mkdir -p limette-data/conf && cp /var/lib/lemonldap-ng/conf/lmConf-*.json limette-data/conf/
    limette config check          # errors, disabled relying parties, ignored keys, warnings
    limette config check --json   # the same for scripts

`config check` exits 0 when clean, 1 with warnings only, 2 with errors. Keys set in the INI's
`[portal]` section override the stored ones as in LemonLDAP::NG; an unknown INI key is a
warning naming the closest known key, a value that looks like JSON and does not parse stops
start-up, and an override that replaces a hash says what it takes away.

The shared `key` of the configuration encrypts what crosses nodes (the `__secret` of REST
session creates), so LemonLDAP::NG and Limette nodes sharing a configuration agree.
";

const IMPLEMENTED_TEXT: &str = "Read and honoured as LemonLDAP::NG documents them; a value \
Limette cannot honour is refused where the key is read.";

const REFUSED_TEXT: &str = "Not implemented, and ignoring them would widen access or change \
what users get: any value other than LemonLDAP::NG's default stops start-up.";

const RP_TEXT: &str = "Options of `oidcRPMetaDataOptions/<rp>` (and the per-RP hashes beside \
them). A refused option with a value other than LemonLDAP::NG's default, an unknown option, or \
a value Limette cannot honour disables that relying party: an error line at start-up, \
`disabled:` in `limette config check`, and the RP is answered as an unknown client.";

const IGNORED_TEXT: &str = "Every other LemonLDAP::NG 2.16 key is not read: cosmetic settings, \
and settings of modules and pages Limette does not have (whose modules the gate above refuses). \
`limette config check` warns about each one whose value differs from LemonLDAP::NG's default; \
a key LemonLDAP::NG does not know either is reported with the closest known key.";

#[cfg(test)]
mod tests {
    /// The page in `docs/` is the one the tables produce.
    #[test]
    fn the_document_matches_the_tables() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/llng-configuration.md");
        let want = super::document();
        if std::env::var("LIMETTE_BLESS").as_deref() == Ok("1") {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/llng-configuration.md is stale: run LIMETTE_BLESS=1 cargo test --lib doc"
        );
    }
}
