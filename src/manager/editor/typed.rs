//! The editor's values, typed: what a field holds as the person sees it (a `Draft`: the text
//! of an input, or the rows of a key/value table), drawn from the stored document or from a
//! posted form, and the JSON value it stands for, checked per the catalogue's `Input` (a rule
//! parsed as the access rules parse it, a number within its bounds, an absolute http(s) URL,
//! JSON that parses, a PEM block). Pure: no request, no page; the page says `Bad` in words.
use crate::config::catalogue::{Entry, Input};
use crate::config::redact::{redacted, redacted_map, HIDDEN};
use crate::config::support::{is_secret, llng_keys};
use crate::config::{truthy, value_string};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The most rows a key/value table takes from a form.
const MAX_ROWS: usize = 500;

/// What a field holds, as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Draft {
    /// The text of an input (`1` or empty for a check box).
    One(String),
    /// The (name, value) rows of a key/value table.
    Rows(Vec<(String, String)>),
}

/// Why a field's value is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bad {
    /// Not a whole number within the bounds.
    Int { min: i64, max: i64 },
    /// Not an absolute http(s) URL.
    Url,
    /// The rule does not parse: the parser's reason.
    Rule(String),
    /// Not one of the choices.
    Select,
    /// The JSON does not parse: the parser's reason.
    Json(String),
    /// Not a PEM block.
    Pem,
    /// A row (counted from 1) with a value and no name.
    Row(usize),
}

/// The field's name in the form (and, prefixed, its element's id).
pub fn field(key: &str) -> String {
    format!("k.{key}")
}

/// The stored value of `key`, else LemonLDAP::NG's default.
fn effective(e: &Entry, doc: &Map<String, Value>) -> Option<Value> {
    doc.get(e.key)
        .cloned()
        .or_else(|| llng_keys().get(e.key).and_then(|k| k.default()))
}

/// Whether a key's value is a secret: never drawn, and an empty field keeps it (a flag, a
/// number or a choice named like a secret, `totp2fEncryptSecret`, is none; secrets inside a
/// table or a structured value are hidden one by one).
pub fn secret(e: &Entry) -> bool {
    match e.input {
        Input::Password => true,
        Input::Text | Input::Url | Input::Pem | Input::Lines | Input::Rule => is_secret(e.key),
        _ => false,
    }
}

/// The draft of the stored document: what the field shows before anybody types. A secret
/// shows nothing; a secret inside a table or a structured value shows as `redact::HIDDEN`.
pub fn from_doc(e: &Entry, doc: &Map<String, Value>) -> Draft {
    let stored = doc.get(e.key);
    if secret(e) {
        return match e.input {
            Input::Map => Draft::Rows(Vec::new()),
            _ => Draft::One(String::new()),
        };
    }
    let text = match e.input {
        Input::Map | Input::Json => String::new(),
        Input::Bool => flag(truthy(effective(e, doc).as_ref())),
        Input::Int { .. } | Input::Select(_) => effective(e, doc)
            .map(|v| value_string(&v))
            .unwrap_or_default(),
        _ => stored.map(value_string).unwrap_or_default(),
    };
    match e.input {
        Input::Map => Draft::Rows(rows_of(stored)),
        Input::Json => Draft::One(json_text(stored)),
        _ => Draft::One(text),
    }
}

/// A structured value as the page shows it: indented JSON, secrets inside hidden.
fn json_text(stored: Option<&Value>) -> String {
    match stored {
        Some(v @ (Value::Object(_) | Value::Array(_))) => {
            serde_json::to_string_pretty(&redacted(v)).unwrap_or_default()
        }
        Some(v) => value_string(v),
        None => String::new(),
    }
}

/// The draft a form posted (`form`: its fields by name).
pub fn from_form(e: &Entry, form: &HashMap<String, String>) -> Draft {
    let name = field(e.key);
    if e.input == Input::Map {
        let mut rows = Vec::new();
        for i in 0..MAX_ROWS {
            let n = form.get(&format!("{name}.n.{i}"));
            let v = form.get(&format!("{name}.v.{i}"));
            if n.is_none() && v.is_none() {
                break;
            }
            rows.push((
                n.cloned().unwrap_or_default(),
                v.cloned().unwrap_or_default(),
            ));
        }
        return Draft::Rows(rows);
    }
    let raw = form.get(&name).cloned().unwrap_or_default();
    match e.input {
        Input::Bool => Draft::One(flag(raw == "1")),
        Input::Lines | Input::Pem | Input::Json => Draft::One(raw.replace("\r\n", "\n")),
        _ => Draft::One(raw),
    }
}

/// The value a draft stands for: `None` for an empty field (the key left unset).
pub fn typed(e: &Entry, draft: &Draft) -> Result<Option<Value>, Bad> {
    let text = match draft {
        Draft::Rows(rows) => return table(rows),
        Draft::One(t) => t,
    };
    let t = text.trim();
    if t.is_empty() && e.input != Input::Bool {
        return Ok(None);
    }
    let value = match e.input {
        Input::Map | Input::Json | Input::Pem => typed_value(e, t, text)?,
        _ if secret(e) => Value::from(text.to_string()),
        _ => typed_value(e, t, text)?,
    };
    Ok(Some(value))
}

/// The value of a non-empty field (`t`: its text trimmed).
fn typed_value(e: &Entry, t: &str, text: &str) -> Result<Value, Bad> {
    Ok(match e.input {
        Input::Bool => Value::from(i64::from(t == "1")),
        Input::Int { min, max } => match t.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Value::from(n),
            _ => return Err(Bad::Int { min, max }),
        },
        Input::Url if !is_url(t) => return Err(Bad::Url),
        Input::Rule => {
            crate::rules::Rule::parse(t).map_err(Bad::Rule)?;
            Value::from(t)
        }
        Input::Select(choices) if !choices.contains(&t) => return Err(Bad::Select),
        Input::Json => serde_json::from_str(t).map_err(|e| Bad::Json(e.to_string()))?,
        Input::Pem if !is_pem(t) => return Err(Bad::Pem),
        Input::Pem | Input::Lines => Value::from(text.trim_end().to_string()),
        _ => Value::from(t),
    })
}

/// What a field asks of its key in `doc`: `Ok(None)` to leave it as it is (the field as
/// drawn, the same value, or an empty secret: a stored value the editor would not take stays
/// as it is), else its new value (`None`: unset).
pub fn wanted(
    e: &Entry,
    draft: &Draft,
    doc: &Map<String, Value>,
) -> Result<Option<Option<Value>>, Bad> {
    let drawn = from_doc(e, doc);
    if *draft == drawn && !secret(e) {
        return Ok(None);
    }
    let stored = doc.get(e.key);
    let restored = |v: Option<Value>| {
        v.map(|mut v| {
            restore(&mut v, stored);
            v
        })
    };
    let new = restored(typed(e, draft)?);
    if secret(e) {
        return Ok(new.map(Some));
    }
    let old = restored(typed(e, &drawn).ok().flatten());
    Ok((old != new).then_some(new))
}

/// Puts back, in a value typed from a drawn one, each secret the page showed as
/// `redact::HIDDEN` (found at the same place in `stored`; none there: the secret is dropped).
pub fn restore(new: &mut Value, stored: Option<&Value>) {
    match new {
        Value::Object(m) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                let old = stored.and_then(|s| s.get(&k));
                let hidden = is_secret(&k) && m.get(&k) == Some(&Value::from(HIDDEN));
                match (hidden, old) {
                    (true, Some(v)) => {
                        m.insert(k, v.clone());
                    }
                    (true, None) => {
                        m.remove(&k);
                    }
                    (false, _) => m.get_mut(&k).into_iter().for_each(|v| restore(v, old)),
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                restore(v, stored.and_then(|s| s.get(i)));
            }
        }
        _ => {}
    }
}

fn flag(on: bool) -> String {
    if on { "1" } else { "" }.to_string()
}

fn rows_of(stored: Option<&Value>) -> Vec<(String, String)> {
    match stored {
        Some(Value::Object(m)) => redacted_map(m)
            .iter()
            .map(|(k, v)| (k.clone(), value_string(v)))
            .collect(),
        _ => Vec::new(),
    }
}

/// A key/value table as an object of strings; empty rows dropped, none: unset.
fn table(rows: &[(String, String)]) -> Result<Option<Value>, Bad> {
    let mut out = Map::new();
    for (i, (name, value)) in rows.iter().enumerate() {
        match (name.trim(), value.trim()) {
            ("", "") => continue,
            ("", _) => return Err(Bad::Row(i + 1)),
            (n, _) => out.insert(n.to_string(), Value::from(value.trim().to_string())),
        };
    }
    Ok((!out.is_empty()).then_some(Value::Object(out)))
}

/// An absolute `http(s)` URL with a host and no spaces.
fn is_url(t: &str) -> bool {
    let lower = t.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    !host.is_empty() && !t.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// One or more PEM blocks: `-----BEGIN X-----`, base64, `-----END X-----`, nothing else.
fn is_pem(t: &str) -> bool {
    use base64::Engine;
    let mut lines = t.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut blocks = 0;
    while let Some(begin) = lines.next() {
        let Some(label) = begin
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            return false;
        };
        let end = format!("-----END {label}-----");
        let body: String = lines.by_ref().take_while(|l| *l != end).collect();
        let decoded = base64::engine::general_purpose::STANDARD.decode(body.as_bytes());
        if !matches!(decoded, Ok(ref d) if !d.is_empty()) {
            return false;
        }
        blocks += 1;
    }
    blocks > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::catalogue::{entry, Group};

    fn e(input: Input) -> Entry {
        entry("x", Group::Advanced, input, ("X", "x."), ("X", "x."))
    }

    fn one(input: Input, t: &str) -> Result<Option<Value>, Bad> {
        typed(&e(input), &Draft::One(t.into()))
    }

    #[test]
    fn each_input_checks_its_values() {
        let int = Input::Int { min: 1, max: 10 };
        assert_eq!(one(int, "7"), Ok(Some(Value::from(7))));
        assert_eq!(one(int, "11"), Err(Bad::Int { min: 1, max: 10 }));
        assert_eq!(one(int, "x"), Err(Bad::Int { min: 1, max: 10 }));
        assert_eq!(one(int, ""), Ok(None));
        assert_eq!(one(Input::Url, "ftp://a/"), Err(Bad::Url));
        assert_eq!(one(Input::Url, "https:///x"), Err(Bad::Url));
        assert!(one(Input::Url, "https://auth.example.com/").is_ok());
        assert!(matches!(one(Input::Rule, "$uid eq"), Err(Bad::Rule(_))));
        assert!(one(Input::Rule, "$uid eq \"dwho\"").is_ok());
        assert!(matches!(one(Input::Json, "{"), Err(Bad::Json(_))));
        assert_eq!(one(Input::Select(&["a", "b"]), "c"), Err(Bad::Select));
        assert_eq!(one(Input::Bool, ""), Ok(Some(Value::from(0))));
        assert_eq!(one(Input::Pem, "hello"), Err(Bad::Pem));
        let pem = "-----BEGIN CERTIFICATE-----\nAAEC\n-----END CERTIFICATE-----";
        assert!(one(Input::Pem, pem).is_ok());
        assert_eq!(one(Input::Pem, &pem.replace("END", "FIN")), Err(Bad::Pem));
    }

    #[test]
    fn a_table_drops_empty_rows_and_refuses_a_value_without_a_name() {
        let rows = |r: &[(&str, &str)]| {
            Draft::Rows(
                r.iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect(),
            )
        };
        let m = e(Input::Map);
        let ok = typed(&m, &rows(&[("a", "1"), ("", "")])).unwrap();
        assert_eq!(ok, Some(serde_json::json!({"a": "1"})));
        assert_eq!(typed(&m, &rows(&[("", "")])), Ok(None));
        assert_eq!(typed(&m, &rows(&[("a", "1"), ("", "v")])), Err(Bad::Row(2)));
    }

    #[test]
    fn a_secret_is_never_drawn_from_the_document_and_comes_back_on_save() {
        let doc: Map<String, Value> = serde_json::from_str(
            r#"{"x":"s3cret","j":{"a":{"clientSecret":"s3cret","n":1}},"dbiAuthPassword":"pw"}"#,
        )
        .unwrap();
        assert_eq!(
            from_doc(&e(Input::Password), &doc),
            Draft::One(String::new())
        );
        let pw = entry(
            "dbiAuthPassword",
            Group::Advanced,
            Input::Text,
            ("P", "p."),
            ("P", "p."),
        );
        assert_eq!(from_doc(&pw, &doc), Draft::One(String::new()));
        let j = entry("j", Group::Advanced, Input::Json, ("J", "j."), ("J", "j."));
        let Draft::One(text) = from_doc(&j, &doc) else {
            panic!("one text")
        };
        assert!(!text.contains("s3cret") && text.contains(HIDDEN), "{text}");
        let mut back = typed(&j, &Draft::One(text)).unwrap().unwrap();
        restore(&mut back, doc.get("j"));
        assert_eq!(Some(&back), doc.get("j"));
    }
}
