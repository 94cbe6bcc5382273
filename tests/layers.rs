//! The house's layers, checked: every `crate::` path written under `src/` (use lines, grouped
//! uses and inline paths; comments, strings and `#[cfg(test)]` modules left out) must point to a
//! module of the same layer or a lower one. The layers, bottom first: base, storage, domain,
//! areas, top (see the README, "How it is built").
//!
//! A second check refuses any import circle between top-level modules.
//!
//! An area does not import another area either. `UPWARD` lists the upward (and area to area)
//! imports that are still there, as (from, to) units of `LAYERS`. It may only shrink: the check
//! fails on such an import it does not list, and on an entry no longer needed.
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
    ("domain", &["directory", "rules", "app", "sso", "grants"]),
    (
        "areas",
        &[
            "oidc",
            "sessions",
            "notifications",
            "portal",
            "config_proxy",
        ],
    ),
    ("top", &["crate", "router", "server", "cli"]),
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
    let circles: Vec<String> = edges
        .iter()
        .flat_map(|(a, bs)| bs.iter().map(move |b| (a.clone(), b.clone())))
        .filter(|(a, b)| reaches(b, a))
        .map(|(a, b)| format!("{a} -> {b}, and {b} reaches {a}"))
        .collect();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
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

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read a source folder")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src/oidc/token.rs` -> `oidc::token`, `src/oidc/mod.rs` -> `oidc`, `src/lib.rs` -> `crate`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("a file under src/");
    let mut segs: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if segs.last().is_some_and(|s| s == "mod") {
        segs.pop();
    }
    match segs.as_slice() {
        [one] if one == "lib" || one == "main" => "crate".into(),
        _ => segs.join("::"),
    }
}

/// The code without comments, string and char literals, and without what follows a
/// `#[cfg(test)]` module (tests may reach anywhere).
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&b, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('\\') {
            // an escaped char literal: '\n', '\'', '\u{..}'
            i += 2;
            while i < b.len() && b[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c == '\'' && b.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    let cut = out
        .match_indices("#[cfg(test)]")
        .map(|(at, _)| at)
        .find(|&at| {
            out[at..]
                .trim_start_matches("#[cfg(test)]")
                .trim_start()
                .starts_with("mod ")
        });
    if let Some(at) = cut {
        out.truncate(at);
    }
    out
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// Every `crate::` path of the code, grouped uses expanded (`crate::{a::{b, c}}` -> `a::b`,
/// `a::c`), without `self` segments.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let (paths, used) = use_tree(rest);
        rest = &rest[used..];
        out.extend(paths.into_iter().filter(|p| !p.is_empty()));
    }
    // A module brought in by `use crate::a::b;` is then written `b::c::d`: that reaches a::b::c::d.
    let mut seen: Vec<String> = Vec::new();
    for p in &out {
        let name = p.rsplit("::").next().unwrap_or(p);
        let pat = format!("{name}::");
        let mut at = 0;
        while let Some(i) = code[at..].find(&pat) {
            let start = at + i;
            at = start + pat.len();
            let before = code[..start].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let (rest, _) = use_tree(&code[at..]);
            seen.extend(
                rest.into_iter()
                    .filter(|r| !r.is_empty())
                    .map(|r| format!("{p}::{r}")),
            );
        }
    }
    out.extend(seen);
    out
}

/// Parses a use tree at the start of `s`: `a::b`, `a::{b, c::d}`, `a::b as c`, `a::*`.
/// Returns the expanded paths and the bytes read.
fn use_tree(s: &str) -> (Vec<String>, usize) {
    let mut segs: Vec<String> = Vec::new();
    let mut i = 0;
    let bytes = s.as_bytes();
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            i += 1;
            let mut out = Vec::new();
            loop {
                while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    i += 1;
                    break;
                }
                let (sub, used) = use_tree(&s[i..]);
                i += used.max(1);
                for p in sub {
                    out.push(join(&segs, &p));
                }
            }
            return (out, i);
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let seg = &s[start..i];
        if !seg.is_empty() && seg != "self" {
            segs.push(seg.to_string());
        }
        if s[i..].starts_with("::") {
            i += 2;
            continue;
        }
        // skip an `as name` alias
        let after = s[i..].trim_start();
        if let Some(alias) = after.strip_prefix("as ") {
            let skipped = s[i..].len() - alias.len();
            i += skipped;
            let alias = alias.trim_start();
            i += s[i..].len() - alias.len();
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        }
        return (vec![segs.join("::")], i);
    }
}

fn join(prefix: &[String], p: &str) -> String {
    match (prefix.is_empty(), p.is_empty()) {
        (true, _) => p.to_string(),
        (false, true) => prefix.join("::"),
        (false, false) => format!("{}::{p}", prefix.join("::")),
    }
}
