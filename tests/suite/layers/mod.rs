//! The house's layers, checked: every `crate::` path written under `src/` (use lines, grouped
//! uses and inline paths; comments, strings and `#[cfg(test)]` modules left out) must point to a
//! module of the same layer or a lower one. The layers, bottom first: base, storage, domain,
//! areas, top (see the README, "How it is built").
//!
//! A second check refuses any import circle between top-level modules, a third any between
//! the folders of `oidc`.
//!
//! An area does not import another area either. `UPWARD` lists the upward (and area to area)
//! imports that are still there, as (from, to) units of `LAYERS`. It may only shrink: the check
//! fails on such an import it does not list, and on an entry no longer needed.
mod scan;

use scan::{code_only, crate_paths, module_of, rust_files};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The layers, bottom first, and the module units in each. A module belongs to the unit that
/// is its longest prefix (`config::cli::args` -> `config::cli`); `crate` is the crate root.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &[
            "error",
            "log",
            "util",
            "crypto",
            "upstream",
            "pause",
            "metrics",
            "http",
            "web",
            "config",
            "config::ini",
            "config::defaults",
            "config::local",
            "config::support",
            "config::gate",
            "config::stores",
        ],
    ),
    ("storage", &["storage"]),
    (
        "domain",
        &[
            "directory",
            "rules",
            "app",
            "account",
            "sso",
            "grants",
            "ctx",
            "login",
            "password",
            "second_factor",
            "notifications",
        ],
    ),
    (
        "areas",
        &[
            "oidc",
            "sessions",
            "notifications::server",
            "notifications::soap",
            "notifications::explorer",
            "portal",
            "config_proxy",
            "status",
            "handler",
        ],
    ),
    (
        "top",
        &["crate", "router", "server", "cli", "manager", "findings"],
    ),
];

/// Upward imports, and imports from one area into another, still to remove: (from unit, to
/// unit). Only ever shrinks.
const UPWARD: &[(&str, &str)] = &[];

#[test]
fn imports_point_down() {
    let units = units();
    let mut found: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 50,
        "too few files under src/: {}",
        files.len()
    );
    for file in &files {
        let module = module_of(&src, file);
        let from = unit_of(&units, &module)
            .unwrap_or_else(|| panic!("{module} is in no layer: add it to LAYERS"));
        let text = code_only(&fs::read_to_string(file).expect("read a source file"));
        for path in crate_paths(&text) {
            let Some(to) = unit_of(&units, &path) else {
                continue; // an item of the crate root (`crate::Foo`) or a macro
            };
            let sideways = units[to] == units[from] && LAYERS[units[to]].0 == "areas";
            if units[to] > units[from] || (sideways && top_of(to) != top_of(from)) {
                let rel = file
                    .strip_prefix(&src)
                    .unwrap_or(file)
                    .display()
                    .to_string();
                found
                    .entry((from.to_string(), to.to_string()))
                    .or_default()
                    .insert(format!("{rel}: crate::{path}"));
            }
        }
    }
    let allowed: BTreeSet<(String, String)> = UPWARD
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut problems = Vec::new();
    for (pair, wheres) in &found {
        if !allowed.contains(pair) {
            problems.push(format!(
                "{} ({}) imports {} ({}), a layer above or another area:\n    {}",
                pair.0,
                layer_name(&units, &pair.0),
                pair.1,
                layer_name(&units, &pair.1),
                wheres.iter().cloned().collect::<Vec<_>>().join("\n    ")
            ));
        }
    }
    for pair in &allowed {
        if !found.contains_key(pair) {
            problems.push(format!(
                "(\"{}\", \"{}\") is no longer needed: remove it from UPWARD",
                pair.0, pair.1
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// No import circle between top-level modules (`oidc`, `portal`, ...), sideways ones included:
/// a module that reaches another which reaches back is one thing in two files.
#[test]
fn no_circle_between_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let tops: BTreeSet<String> = files.iter().map(|f| top_of(&module_of(&src, f))).collect();
    for file in &files {
        let from = top_of(&module_of(&src, file));
        let text = code_only(&fs::read_to_string(file).expect("read a source file"));
        for path in crate_paths(&text) {
            let to = top_of(&path);
            if to != from && tops.contains(&to) && from != "crate" {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// No import circle between the folders of `oidc` (`oidc::authorize`, `oidc::token`,
/// `oidc::base`, ...): each imports only the ones below it, and `oidc` itself, which
/// dispatches to all of them, is imported by none.
#[test]
fn no_circle_between_the_folders_of_oidc() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join("oidc"), &mut files);
    let folder = |m: &str| m.split("::").take(2).collect::<Vec<_>>().join("::");
    let folders: BTreeSet<String> = files.iter().map(|f| folder(&module_of(&src, f))).collect();
    assert!(
        folders.len() > 5,
        "too few folders under src/oidc: {folders:?}"
    );
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // The dispatcher reaches every folder.
    let below: BTreeSet<String> = folders.iter().filter(|f| *f != "oidc").cloned().collect();
    edges.insert("oidc".into(), below);
    for file in &files {
        let from = folder(&module_of(&src, file));
        let text = code_only(&fs::read_to_string(file).expect("read a source file"));
        for path in crate_paths(&text) {
            if !path.starts_with("oidc") {
                continue;
            }
            let to = match folders.contains(&folder(&path)) {
                true => folder(&path),
                false => "oidc".to_string(), // an item `oidc/mod.rs` holds or re-exports
            };
            if to != from && from != "oidc" {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "import circles between the folders of oidc:\n{}",
        circles.join("\n")
    );
}

/// Each edge `a -> b` of `edges` whose end reaches its start again, said in words.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let reaches = |a: &str, b: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![a.to_string()];
        while let Some(m) = todo.pop() {
            if m == b {
                return true;
            }
            if seen.insert(m.clone()) {
                todo.extend(edges.get(&m).into_iter().flatten().cloned());
            }
        }
        false
    };
    edges
        .iter()
        .flat_map(|(a, bs)| bs.iter().map(move |b| (a.clone(), b.clone())))
        .filter(|(a, b)| reaches(b, a))
        .map(|(a, b)| format!("{a} -> {b}, and {b} reaches {a}"))
        .collect()
}

fn top_of(module: &str) -> String {
    module.split("::").next().unwrap_or(module).to_string()
}

#[test]
fn the_table_is_consistent() {
    let units = units();
    for (a, b) in UPWARD {
        assert!(units.contains_key(a), "{a} in UPWARD is no unit of LAYERS");
        assert!(units.contains_key(b), "{b} in UPWARD is no unit of LAYERS");
        let sideways = units[b] == units[a] && LAYERS[units[a]].0 == "areas";
        assert!(
            units[b] > units[a] || sideways,
            "({a}, {b}) in UPWARD points neither up nor into another area"
        );
    }
    let text = code_only(
        "use crate::{a::{b, c::D}, e}; // crate::x\nlet s = \"crate::y\"; crate::f::g();",
    );
    let got: BTreeSet<_> = crate_paths(&text).into_iter().collect();
    let want: BTreeSet<_> = ["a::b", "a::c::D", "e", "f::g"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(got, want);
}

/// Unit -> layer rank.
fn units() -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for (rank, (_, us)) in LAYERS.iter().enumerate() {
        for u in *us {
            assert!(m.insert(*u, rank).is_none(), "{u} twice in LAYERS");
        }
    }
    m
}

fn layer_name(units: &BTreeMap<&str, usize>, unit: &str) -> &'static str {
    LAYERS[units[unit]].0
}

/// The unit a module path (`a::b::c`, or `crate`) belongs to: its longest prefix in the table.
fn unit_of<'a>(units: &BTreeMap<&'a str, usize>, path: &str) -> Option<&'a str> {
    let segs: Vec<&str> = path.split("::").collect();
    (1..=segs.len())
        .rev()
        .find_map(|k| units.get_key_value(segs[..k].join("::").as_str()))
        .map(|(u, _)| *u)
}
