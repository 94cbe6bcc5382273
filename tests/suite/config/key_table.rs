//! The key table against the code: every LemonLDAP::NG key the code names as a whole string
//! literal must be in the table as implemented (a relying party's option in the options
//! table; the start-up gate may name any key, to refuse it), and every key the table calls implemented must be named somewhere
//! in the code besides the table. So `config check`, the start-up log and the console's editor
//! cannot call a key ignored that the code honours, nor implemented that nothing reads.
use limette::config::support::{llng_keys, support, Support, IMPLEMENTED};
use limette::oidc::options::rp_option;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Files that name keys without reading them to honour them: the tables (the main one, the
/// relying parties' options), the configuration proxy's wire layout, the lists of secrets to
/// hide (diff, redact).
const NOT_READERS: &[&str] = &[
    "config/support.rs",
    "oidc/options.rs",
    "config_proxy/keys.rs",
    "config/diff.rs",
    "config/redact.rs",
];

/// Lists inside readers that name keys the reader does not read: the INI reader's list of
/// LemonLDAP::NG's INI keys it ignores.
const NOT_READ_LISTS: &[&str] = &["const LLNG_INI_KEYS"];

/// LemonLDAP::NG keys that are also words of HTTP, HTML or the language files (`method="post"`,
/// a `status` field, the `stayConnected` message): a literal of them is not a read of the key.
const WORDS: &[&str] = &["post", "status", "stayConnected"];

/// Options LemonLDAP::NG keeps inside a parent key, per object (a virtual host's
/// `vhostOptions/<host>/vhostHttps`): the parent's line of the table says which are honoured.
const NESTED: &[(&str, &str)] = &[("vhost", "vhostOptions")];

/// An option inside a parent key the table calls implemented.
fn nested_in_implemented(key: &str) -> bool {
    NESTED.iter().any(|(prefix, parent)| {
        key.starts_with(prefix)
            && key != *parent
            && support(parent).is_some_and(|k| k.support == Support::Implemented)
    })
}

/// Relying-party options LemonLDAP::NG stores at the top level of the configuration too
/// (`oidcRPMetaDataOptionsExtraClaims/<rp>`): the main table must know them as well.
const TOP_LEVEL_RP_OPTIONS: &[&str] = &["oidcRPMetaDataOptionsExtraClaims"];

/// Keys read under another name than a literal of their own: the key and the file that
/// reads it, checked to exist.
const READ_BY_NAME: &[(&str, &str)] = &[
    // A second factor's generic keys, `<prefix>2f<Name>`, read for every factor listed.
    ("totp2fActivation", "second_factor/settings.rs"),
    ("totp2fSelfRegistration", "second_factor/settings.rs"),
    ("totp2fAuthnLevel", "second_factor/settings.rs"),
    ("totp2fLabel", "second_factor/settings.rs"),
    ("totp2fLogo", "second_factor/settings.rs"),
    ("totp2fUserCanRemoveKey", "second_factor/settings.rs"),
    ("totp2fTTL", "second_factor/settings.rs"),
    ("webauthn2fActivation", "second_factor/settings.rs"),
    ("webauthn2fSelfRegistration", "second_factor/settings.rs"),
    ("webauthn2fAuthnLevel", "second_factor/settings.rs"),
    ("webauthn2fLabel", "second_factor/settings.rs"),
    ("webauthn2fLogo", "second_factor/settings.rs"),
    ("webauthn2fUserCanRemoveKey", "second_factor/settings.rs"),
    // The relying parties' hashes beside their options: the options table's module reads them.
    ("oidcRPMetaDataMacros", "oidc/options.rs"),
    ("oidcRPMetaDataScopeRules", "oidc/options.rs"),
];

/// Keys Limette reads from the INI file only (`[all] logLevel`), where LemonLDAP::NG keeps
/// them too; in the main configuration they are ignored, as the table says.
const INI_ONLY: &[&str] = &["logLevel"];

/// Every whole string literal of a Rust source, comments left out (good enough for this
/// code base: no raw strings hold keys).
fn literals(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in src.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(start) = rest.find('"') {
            let after = &rest[start + 1..];
            let Some(end) = after.find('"') else { break };
            out.push(after[..end].to_string());
            rest = &after[end + 1..];
        }
    }
    out
}

fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            // Tests name keys to write configurations, not to read them.
            if rel.ends_with("tests.rs") || rel.contains("/tests/") {
                continue;
            }
            if let Ok(s) = std::fs::read_to_string(&p) {
                out.insert(rel, s);
            }
        }
    }
}

/// The LemonLDAP::NG keys each source file names, the table's own files left out.
fn named_keys() -> BTreeMap<String, BTreeSet<String>> {
    let root = src_root();
    let mut files = BTreeMap::new();
    walk(&root, &root, &mut files);
    let known = llng_keys();
    let mut named: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, src) in files {
        if NOT_READERS.contains(&file.as_str()) {
            continue;
        }
        // Inline unit tests sit at the end of a file: they name keys to write configurations.
        let mut code = src
            .split("#[cfg(test)]\nmod tests {")
            .next()
            .unwrap_or("")
            .to_string();
        for list in NOT_READ_LISTS {
            if let Some(start) = code.find(list) {
                let end = code[start..].find("];").map_or(code.len(), |e| start + e);
                code.replace_range(start..end, "");
            }
        }
        for lit in literals(&code) {
            if WORDS.contains(&lit.as_str()) {
                continue;
            }
            if known.get(&lit).is_some() || IMPLEMENTED.iter().any(|k| k.key == lit) {
                named.entry(lit).or_default().insert(file.clone());
            }
        }
    }
    named
}

fn src_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// A relying-party option the options table honours (not one LemonLDAP::NG keeps at the top).
fn rp_option_honoured(key: &str) -> bool {
    !TOP_LEVEL_RP_OPTIONS.contains(&key)
        && rp_option(key).is_some_and(|k| k.support == Support::Implemented)
}

#[test]
fn every_key_the_code_reads_is_in_the_table_as_implemented() {
    let mut wrong = Vec::new();
    for (key, files) in named_keys() {
        let support = support(&key).map(|k| k.support);
        // The start-up gate reads keys to refuse values and combinations.
        let gate_only = files.iter().all(|f| f == "config/gate.rs");
        match support {
            Some(Support::Implemented) => {}
            _ if gate_only
                || rp_option_honoured(&key)
                || nested_in_implemented(&key)
                || INI_ONLY.contains(&key.as_str()) => {}
            other => wrong.push(format!("{key} ({other:?}) named in {files:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "keys the code names but the table does not call implemented:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_key_the_table_calls_implemented_is_read() {
    let named = named_keys();
    let root = src_root();
    for (key, file) in READ_BY_NAME {
        assert!(root.join(file).exists(), "{key}: {file}");
    }
    let unread: Vec<&str> = IMPLEMENTED
        .iter()
        .map(|k| k.key)
        .filter(|k| !named.contains_key(*k) && !READ_BY_NAME.iter().any(|(r, _)| r == k))
        .collect();
    assert!(
        unread.is_empty(),
        "keys the table calls implemented that no code names: {unread:?}"
    );
}
