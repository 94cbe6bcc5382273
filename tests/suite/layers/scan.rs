//! Reading the crate's source as the layer check needs it: the `.rs` files under `src/`, the
//! module each file is, and the `crate::` paths its code writes (comments, strings and
//! `#[cfg(test)]` modules left out; grouped uses expanded; a module brought in by a use line and
//! then named in a path followed).
use std::fs;
use std::path::{Path, PathBuf};

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
pub fn module_of(src: &Path, file: &Path) -> String {
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
pub fn code_only(text: &str) -> String {
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
pub fn crate_paths(code: &str) -> Vec<String> {
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
