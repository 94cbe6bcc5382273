//! `limette users import FILE|-`: users from a CSV file (a header line naming the table's
//! columns, the login and password columns among them; RFC 4180 quoting) or an LDIF export
//! of a directory (`dn:` entries; `uid` or the login column's name is the login,
//! `userPassword` the hash, attributes named as a column of the user table are kept, several
//! values joined with `; `, others dropped; entries without a login, such as `ou=` entries,
//! skipped). Passwords are hashes (`{SSHA}...`, `$6$...`) the configuration checks. The
//! whole file is read and checked first, then written in one transaction: a malformed line
//! names its number and nothing is imported.
use crate::cli::out;
use crate::directory::dbi::{Secret, Users};
use base64::Engine;
use serde_json::{json, Map, Value};

/// The largest file read.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// One user read from the file, with the line it starts on.
#[derive(Debug)]
struct Entry {
    line: usize,
    login: String,
    hash: String,
    attrs: Map<String, Value>,
}

/// Reads, checks and imports `file` (`-`: standard input).
pub fn run(users: &Users, file: &str) -> Result<(), String> {
    let text = read(file)?;
    let columns = users.columns().map_err(|e| e.to_string())?;
    let layout = &users.store().layout;
    let entries = if looks_like_ldif(&text) {
        ldif(&text, &layout.login_col, &columns)?
    } else {
        csv(&text, &layout.login_col, &layout.password_col, &columns)?
    };
    let mut seen = std::collections::HashMap::new();
    for e in &entries {
        super::check_login(&e.login).map_err(|m| format!("line {}: {m}", e.line))?;
        if let Some(first) = seen.insert(e.login.clone(), e.line) {
            return Err(format!(
                "line {}: user {} is also on line {first}",
                e.line, e.login
            ));
        }
        users
            .store()
            .hashing
            .accepts(&e.hash)
            .map_err(|m| format!("line {}: {m}", e.line))?;
    }
    let n = entries.len();
    let lines: Vec<(String, usize)> = entries.iter().map(|e| (e.login.clone(), e.line)).collect();
    let batch = entries
        .into_iter()
        .map(|e| (e.login, Secret::Hash(e.hash), e.attrs))
        .collect();
    users.add_all(batch).map_err(|e| match e {
        crate::error::Error::Conflict(m) => {
            let line = lines
                .iter()
                .find(|(l, _)| m.contains(&format!("user {l} ")));
            match line {
                Some((_, n)) => format!("line {n}: {m}; nothing imported"),
                None => format!("{m}; nothing imported"),
            }
        }
        other => format!("{other}; nothing imported"),
    })?;
    crate::log::audit(
        "users_imported",
        &[("count", &n.to_string()), ("by", "command line")],
    );
    out::line(&format!("{n} users imported"));
    Ok(())
}

fn read(file: &str) -> Result<String, String> {
    use std::io::Read;
    let mut buf = Vec::new();
    let res = if file == "-" {
        std::io::stdin().take(MAX_BYTES + 1).read_to_end(&mut buf)
    } else {
        std::fs::File::open(file).and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut buf))
    };
    res.map_err(|e| format!("{file}: {e}"))?;
    if buf.len() as u64 > MAX_BYTES {
        return Err(format!("{file}: larger than {MAX_BYTES} bytes"));
    }
    String::from_utf8(buf).map_err(|e| format!("{file}: not UTF-8 text ({e})"))
}

/// LDIF starts (after comments and blank lines) with `dn:` or `version:`.
fn looks_like_ldif(text: &str) -> bool {
    text.lines()
        .map(str::trim_end)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| {
            let low = l.to_ascii_lowercase();
            low.starts_with("dn:") || low.starts_with("version:")
        })
}

/// The column of `columns` named `name`, as the table spells it.
fn column<'a>(columns: &'a [String], name: &str) -> Option<&'a str> {
    columns
        .iter()
        .find(|c| c.eq_ignore_ascii_case(name))
        .map(String::as_str)
}

fn csv(
    text: &str,
    login_col: &str,
    password_col: &str,
    columns: &[String],
) -> Result<Vec<Entry>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let Some((_, head)) = lines.next() else {
        return Err("line 1: empty file (a CSV header line is required)".into());
    };
    let header = fields(head).map_err(|m| format!("line 1: {m}"))?;
    let find = |name: &str| header.iter().position(|h| h.eq_ignore_ascii_case(name));
    let login_at = find(login_col)
        .ok_or_else(|| format!("line 1: the header lacks the login column {login_col}"))?;
    let pw_at = find(password_col)
        .ok_or_else(|| format!("line 1: the header lacks the password column {password_col}"))?;
    for h in &header {
        if column(columns, h).is_none() {
            return Err(format!("line 1: the user table has no column {h}"));
        }
    }
    let mut out = Vec::new();
    for (n, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let f = fields(l).map_err(|m| format!("line {n}: {m}"))?;
        if f.len() != header.len() {
            return Err(format!(
                "line {n}: {} fields where the header has {}",
                f.len(),
                header.len()
            ));
        }
        if f[pw_at].is_empty() {
            return Err(format!("line {n}: no password hash"));
        }
        let mut attrs = Map::new();
        for (i, v) in f.iter().enumerate() {
            if i != login_at && i != pw_at && !v.is_empty() {
                attrs.insert(header[i].clone(), json!(v));
            }
        }
        out.push(Entry {
            line: n,
            login: f[login_at].clone(),
            hash: f[pw_at].clone(),
            attrs,
        });
    }
    Ok(out)
}

/// The fields of one CSV line: `,` separated, `"` quoted with `""` for a quote.
fn fields(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cur.push(c),
            (false, '"') if cur.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            (false, '"') => return Err("a quote inside an unquoted field".into()),
            (false, ',') => {
                out.push(std::mem::take(&mut cur));
                was_quoted = false;
            }
            (false, _) if was_quoted => return Err("text after a closing quote".into()),
            (false, c) => cur.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    out.push(cur);
    Ok(out)
}

fn ldif(text: &str, login_col: &str, columns: &[String]) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    let mut entry: Vec<(usize, String, String)> = Vec::new();
    let mut logical: Option<(usize, String)> = None;
    let all: Vec<&str> = text.lines().chain(std::iter::once("")).collect();
    for (i, raw) in all.iter().enumerate() {
        let raw = raw.trim_end_matches('\r');
        if let Some(cont) = raw.strip_prefix(' ') {
            match &mut logical {
                Some((_, l)) => l.push_str(cont),
                None => {
                    return Err(format!(
                        "line {}: a continuation line without a line before it",
                        i + 1
                    ))
                }
            }
            continue;
        }
        if let Some((n, l)) = logical.take() {
            entry.push(attribute(n, &l)?);
        }
        if raw.is_empty() {
            if !entry.is_empty() {
                if let Some(e) = to_entry(std::mem::take(&mut entry), login_col, columns)? {
                    out.push(e);
                }
            }
        } else if !raw.starts_with('#') {
            logical = Some((i + 1, raw.to_string()));
        }
    }
    Ok(out)
}

/// `name: value`, `name:: base64` (and `name:< url`, refused).
fn attribute(n: usize, l: &str) -> Result<(usize, String, String), String> {
    let (name, rest) = l
        .split_once(':')
        .ok_or_else(|| format!("line {n}: not an attribute line (no colon)"))?;
    let name = name.trim().to_string();
    if name.is_empty() {
        return Err(format!("line {n}: an attribute without a name"));
    }
    let value = if let Some(b) = rest.strip_prefix(':') {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b.trim())
            .map_err(|_| format!("line {n}: {name}:: is not base64"))?;
        String::from_utf8(bytes).map_err(|_| format!("line {n}: {name} is not UTF-8 text"))?
    } else if rest.starts_with('<') {
        return Err(format!(
            "line {n}: {name}:< (a value from a URL) is not supported"
        ));
    } else {
        rest.trim_start().to_string()
    };
    Ok((n, name, value))
}

fn to_entry(
    attrs: Vec<(usize, String, String)>,
    login_col: &str,
    columns: &[String],
) -> Result<Option<Entry>, String> {
    let first = attrs.first().map(|a| a.0).unwrap_or(0);
    if !attrs
        .first()
        .is_some_and(|a| a.1.eq_ignore_ascii_case("dn") || a.1.eq_ignore_ascii_case("version"))
    {
        return Err(format!(
            "line {first}: an entry that does not start with dn:"
        ));
    }
    let get = |name: &str| attrs.iter().find(|a| a.1.eq_ignore_ascii_case(name));
    let Some((_, _, login)) = get(login_col).or_else(|| get("uid")) else {
        return Ok(None);
    };
    let Some((_, _, hash)) = get("userPassword") else {
        return Err(format!("line {first}: entry {login} has no userPassword"));
    };
    let mut values: Vec<(String, Vec<String>)> = Vec::new();
    for (_, name, v) in &attrs {
        let skip = ["dn", "userpassword", "uid"].contains(&name.to_ascii_lowercase().as_str())
            || name.eq_ignore_ascii_case(login_col);
        let Some(col) = column(columns, name).filter(|_| !skip) else {
            continue;
        };
        match values.iter_mut().find(|(c, _)| c == col) {
            Some((_, vs)) => vs.push(v.clone()),
            None => values.push((col.to_string(), vec![v.clone()])),
        }
    }
    let attrs = values
        .into_iter()
        .map(|(c, vs)| (c, json!(vs.join("; "))))
        .collect();
    Ok(Some(Entry {
        line: first,
        login: login.clone(),
        hash: hash.clone(),
        attrs,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields() {
        assert_eq!(
            fields("a,\"b,c\",\"d\"\"e\",").unwrap(),
            ["a", "b,c", "d\"e", ""]
        );
        assert!(fields("a,\"b").is_err());
        assert!(fields("a,b\"c").is_err());
        assert!(fields("\"a\"b").is_err());
    }

    #[test]
    fn ldif_entries() {
        let cols: Vec<String> = ["user", "password", "cn", "mail"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let text = "version: 1\n\ndn: ou=users,dc=x\nobjectClass: organizationalUnit\n\n\
                    dn: uid=alice,ou=users,dc=x\nuid: alice\ncn: Alice\n  Liddell\nmail: a@x\nmail: b@x\n\
                    userPassword:: e1NTSEF9YWJj\n";
        let e = ldif(text, "user", &cols).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].login, "alice");
        assert_eq!(e[0].hash, "{SSHA}abc");
        assert_eq!(e[0].attrs["cn"], "Alice Liddell");
        assert_eq!(e[0].attrs["mail"], "a@x; b@x");
        assert_eq!(e[0].line, 6);
        let bad = ldif("dn: uid=a\nuid a\n", "user", &cols).unwrap_err();
        assert_eq!(bad, "line 2: not an attribute line (no colon)");
    }
}
