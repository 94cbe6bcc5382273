//! Build script: records what `limette --version` reports of the build itself, which only
//! Cargo knows at compile time: the target triple, the profile and the enabled Cargo features
//! (every `CARGO_FEATURE_*` variable, so a feature added to `Cargo.toml` is listed without
//! touching the code); and the list of the portal's languages, one `static/languages/<code>.json`
//! each (`OUT_DIR/languages.rs`, read by `web::messages`), so that adding a language is adding
//! its file, with each file's words as a table sorted by key (`WORDS`), so that the portal
//! looks a word up without parsing or allocating at run time; and LemonLDAP::NG's key table
//! the same way (`OUT_DIR/llng_keys.rs`, read by `config::support`). It links nothing; a
//! release build also reruns it when the linker's start-up order changes (conf/link-gcc).

fn main() {
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    // Cargo spells a feature `CARGO_FEATURE_<NAME>`, upper case with `-` as `_`; the lower-case
    // form is the feature's name in the usual spelling. `default` only names others.
    let mut features: Vec<String> = std::env::vars()
        .filter_map(|(k, _)| k.strip_prefix("CARGO_FEATURE_").map(str::to_lowercase))
        .filter(|f| f != "default")
        .collect();
    features.sort();
    println!("cargo:rustc-env=LIMETTE_BUILD_TARGET={target}");
    println!("cargo:rustc-env=LIMETTE_BUILD_PROFILE={profile}");
    println!(
        "cargo:rustc-env=LIMETTE_BUILD_FEATURES={}",
        features.join(",")
    );
    // Target, profile and features are part of Cargo's fingerprint already: a change to any of
    // them reruns this script; source edits need not.
    println!("cargo:rerun-if-changed=build.rs");
    // The release builds link through conf/link-gcc, which places the functions of
    // conf/startup-order.txt first; Cargo does not know the linker reads a file, so a new list
    // (or linker script) reruns this script, and the program is linked again.
    if profile == "release" {
        println!("cargo:rerun-if-changed=conf/startup-order.txt");
        println!("cargo:rerun-if-changed=conf/link-gcc");
    }
    languages();
    llng_keys();
}

/// `LLNG_KEY_TABLE: &[(&str, &str, Option<&str>)]`: LemonLDAP::NG 2.16's keys
/// (`src/config/llng-2.16-keys.json`), sorted by name, each with its manager type (`text` when
/// the file gives none) and its default as JSON text. `config::support` looks keys up in it
/// without parsing the file or keeping a map of it at run time.
fn llng_keys() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config/llng-2.16-keys.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let keys = read_object(&path);
    let mut out = String::from(
        "/// LemonLDAP::NG 2.16's keys, sorted: name, manager type, default (JSON text).\n\
         pub const LLNG_KEY_TABLE: &[(&str, &str, Option<&str>)] = &[\n",
    );
    for (name, info) in &keys {
        let kind = info.get("type").and_then(|t| t.as_str()).unwrap_or("text");
        let default = info.get("default").map(|d| d.to_string());
        out.push_str(&format!("    ({name:?}, {kind:?}, {default:?}),\n"));
    }
    out.push_str("];\n");
    write_out("llng_keys.rs", &out);
}

/// The JSON object in the file at `path`, sorted by key; a file that cannot be read or is not
/// a JSON object stops the build.
fn read_object(path: &std::path::Path) -> std::collections::BTreeMap<String, serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a JSON object: {e}", path.display()))
}

/// Writes the generated source `name` into `OUT_DIR`.
fn write_out(name: &str, text: &str) {
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join(name);
    if let Err(e) = std::fs::write(&dest, text) {
        panic!("cannot write {}: {e}", dest.display());
    }
}

/// `LANGUAGES: &[(&str, &str)]`: each language file's code (its name without `.json`) and its
/// text, English first, the others in order of their codes.
fn languages() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("static/languages");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut codes: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
                .filter(|c| {
                    !c.is_empty() && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                })
                .collect()
        })
        .unwrap_or_default();
    codes.sort_by_key(|c| (c != "en", c.clone()));
    let mut out =
        String::from("/// The shipped languages: code and language file, English first.\n");
    out.push_str("pub const LANGUAGES: &[(&str, &str)] = &[\n");
    for c in &codes {
        let path = dir.join(format!("{c}.json"));
        println!("cargo:rerun-if-changed={}", path.display());
        // Named from the crate's own directory when it is compiled, not as an absolute path
        // of this run: a target directory copied from another checkout keeps this script's
        // output, and must still read this checkout's files.
        out.push_str(&format!(
            "    ({c:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/static/languages/{c}.json\"))),\n"
        ));
    }
    out.push_str("];\n");
    // Each file's words, sorted by key for a binary search. A shipped file that is not a flat
    // JSON object of strings stops the build: the portal would otherwise show keys for words.
    out.push_str("/// Each shipped language's words (key, text), sorted by key; in the order of `LANGUAGES`.\n");
    out.push_str("pub const WORDS: &[&[(&str, &str)]] = &[\n");
    for c in &codes {
        let path = dir.join(format!("{c}.json"));
        out.push_str("    &[\n");
        for (key, word) in &read_object(&path) {
            let word = word
                .as_str()
                .unwrap_or_else(|| panic!("{}: {key} is not a string", path.display()));
            out.push_str(&format!("        ({key:?}, {word:?}),\n"));
        }
        out.push_str("    ],\n");
    }
    out.push_str("];\n");
    write_out("languages.rs", &out);
}
