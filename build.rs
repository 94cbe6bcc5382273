//! Build script: records what `limette --version` reports of the build itself, which only
//! Cargo knows at compile time: the target triple, the profile and the enabled Cargo features
//! (every `CARGO_FEATURE_*` variable, so a feature added to `Cargo.toml` is listed without
//! touching the code). It generates no code and links nothing.

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
}
