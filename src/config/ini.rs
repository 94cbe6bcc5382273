//! A reader for LemonLDAP::NG's `lemonldap-ng.ini` layout: `[section]` headers, `key = value`
//! lines, `;` or `#` comments, and a trailing backslash continuing a value on the next line.
use std::collections::BTreeMap;

/// Sections of key/value pairs, in file order within each section.
pub type Ini = BTreeMap<String, Vec<(String, String)>>;

/// The line (from 1) where `key` is set in `section`, for messages about its value.
pub fn line_of(text: &str, section: &str, key: &str) -> Option<usize> {
    let mut current = String::from("all");
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.trim().to_string();
        } else if current == section && line.split_once('=').is_some_and(|(k, _)| k.trim() == key) {
            return Some(n + 1);
        }
    }
    None
}

/// Parses INI text; errors name the line.
pub fn parse(text: &str) -> Result<Ini, String> {
    let mut ini = Ini::new();
    let mut section = String::from("all");
    let mut pending: Option<(String, String, usize)> = None;
    for (n, raw) in text.lines().enumerate() {
        let lineno = n + 1;
        if let Some((key, mut value, start)) = pending.take() {
            let part = raw.trim();
            if let Some(stripped) = part.strip_suffix('\\') {
                value.push_str(stripped.trim_end());
                value.push(' ');
                pending = Some((key, value, start));
            } else {
                value.push_str(part);
                ini.entry(section.clone())
                    .or_default()
                    .push((key, value.trim().to_string()));
            }
            continue;
        }
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            let name = name
                .strip_suffix(']')
                .ok_or_else(|| format!("line {lineno}: unterminated section header"))?;
            section = name.trim().to_string();
            ini.entry(section.clone()).or_default();
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {lineno}: expected key = value"))?;
        let key = key.trim().to_string();
        if key.is_empty() {
            return Err(format!("line {lineno}: empty key"));
        }
        let value = value.trim();
        if let Some(stripped) = value.strip_suffix('\\') {
            pending = Some((key, format!("{} ", stripped.trim_end()), lineno));
        } else {
            ini.entry(section.clone())
                .or_default()
                .push((key, value.to_string()));
        }
    }
    if let Some((key, _, start)) = pending {
        return Err(format!(
            "line {start}: value of {key} continues past the end of the file"
        ));
    }
    Ok(ini)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_comments_continuations() {
        let ini = parse(
            "; c\n[configuration]\ntype = File\ndirName=/x \n[portal]\nopts = {\"a\": \\\n  1}\n# c\n",
        )
        .unwrap();
        assert_eq!(
            ini["configuration"],
            vec![
                ("type".into(), "File".into()),
                ("dirName".into(), "/x".into())
            ]
        );
        assert_eq!(ini["portal"], vec![("opts".into(), "{\"a\": 1}".into())]);
    }

    #[test]
    fn errors_name_the_line() {
        assert!(parse("[x\n").unwrap_err().contains("line 1"));
        assert!(parse("a\n").unwrap_err().contains("line 1"));
        assert!(parse("ok = 1\n = 2\n").unwrap_err().contains("line 2"));
        assert!(parse("a = b \\\n").unwrap_err().contains("line 1"));
    }
}
