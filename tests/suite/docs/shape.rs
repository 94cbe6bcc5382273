//! The shape of an answer: the lines a document shows under a command against the lines the
//! command printed. `<NAME>` captures a value (non-empty), `…` elides text (non-empty; a line of
//! its own: any number of lines), JSON compares the keys and every value shown, in any order;
//! a `…` member (`{"uid":"dwho",…}`) stands for the keys the page leaves out.
use serde_json::Value;
use std::collections::BTreeMap;

/// Values captured by `<NAME>` placeholders, by NAME.
pub type Captures = BTreeMap<String, String>;

/// Matches the shown answer against the output lines: each shown line matches one output line
/// in order, a line `…` any number of output lines. Returns the captured placeholders.
pub fn lines_match(shown: &[String], actual: &[&str]) -> Result<Captures, String> {
    let mut caps = Captures::new();
    match shown.split_first() {
        None if actual.is_empty() => Ok(caps),
        None => Err(format!(
            "output lines the document does not show: {actual:?}"
        )),
        Some((first, rest)) if first == "…" => (0..=actual.len())
            .find_map(|skip| lines_match(rest, &actual[skip..]).ok())
            .ok_or_else(|| format!("no output lines match the ones after `…`: {rest:?}")),
        Some((first, rest)) => {
            let (line, others) = actual
                .split_first()
                .ok_or_else(|| format!("the output ends before `{first}`"))?;
            line_match(first, line, &mut caps)?;
            caps.extend(lines_match(rest, others)?);
            Ok(caps)
        }
    }
}

/// One line: a JSON object against JSON (keys and shown values), anything else (a `{` alone
/// included) as text.
fn line_match(shown: &str, line: &str, caps: &mut Captures) -> Result<(), String> {
    let members = shown
        .replace(",…}", r#","…":"…"}"#)
        .replace(":…,", r#":"…","#)
        .replace(":…}", r#":"…"}"#);
    if let Ok(want @ Value::Object(_)) = serde_json::from_str::<Value>(&members) {
        let got: Value =
            serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
        return json_match(&want, &got, caps);
    }
    text_match(shown, line, caps).ok_or_else(|| format!("`{line}` is not `{shown}`"))
}

/// Same keys, and each value as shown (strings as text patterns).
fn json_match(want: &Value, got: &Value, caps: &mut Captures) -> Result<(), String> {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            let (wk, gk): (Vec<_>, Vec<_>) = (w.keys().collect(), g.keys().collect());
            let (mut ws, mut gs) = (wk.clone(), gk.clone());
            ws.sort();
            gs.sort();
            let more = w.contains_key("…");
            let missing = ws.iter().any(|k| *k != "…" && !g.contains_key(k.as_str()));
            if missing || !more && ws != gs {
                return Err(format!("keys {gk:?}, the page shows {wk:?}"));
            }
            w.iter()
                .filter(|(k, _)| *k != "…")
                .try_for_each(|(k, v)| json_match(v, &g[k.as_str()], caps))
        }
        (Value::String(w), Value::String(g)) => {
            text_match(w, g, caps).ok_or_else(|| format!("\"{g}\" is not \"{w}\""))
        }
        (Value::String(w), g) if !g.is_object() && !g.is_array() => {
            text_match(w, &g.to_string(), caps).ok_or_else(|| format!("{g} is not {w}"))
        }
        _ if want == got => Ok(()),
        _ => Err(format!("{got} where the page shows {want}")),
    }
}

/// A pattern piece: literal text, a `<NAME>` capture (non-empty) or `…` (non-empty, elided).
#[derive(Debug, PartialEq)]
enum Piece {
    Lit(String),
    Capture(String),
    Elided,
}

fn pieces(pattern: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = pattern;
    while let Some(i) = rest.find(['<', '…']) {
        if i > 0 {
            out.push(Piece::Lit(rest[..i].to_string()));
        }
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix('…') {
            out.push(Piece::Elided);
            rest = after;
        } else if let Some((name, after)) = tail[1..].split_once('>') {
            out.push(Piece::Capture(name.to_string()));
            rest = after;
        } else {
            out.push(Piece::Lit(tail.to_string()));
            rest = "";
        }
    }
    if !rest.is_empty() {
        out.push(Piece::Lit(rest.to_string()));
    }
    out
}

/// Matches `text` against a pattern; a capture or `…` takes the shortest run of characters
/// up to the next literal. Records the captures (`<AT>` records AT).
fn text_match(pattern: &str, text: &str, caps: &mut Captures) -> Option<()> {
    let pieces = pieces(pattern);
    let mut rest = text;
    let mut found = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Lit(lit) => rest = rest.strip_prefix(lit.as_str())?,
            Piece::Capture(_) | Piece::Elided => {
                let first = rest.chars().next()?.len_utf8(); // never empty
                let end = match pieces.get(i + 1) {
                    Some(Piece::Lit(next)) => rest[first..].find(next.as_str())? + first,
                    _ => rest.len(),
                };
                if let Piece::Capture(name) = piece {
                    found.push((name.clone(), rest[..end].to_string()));
                }
                rest = &rest[end..];
            }
        }
    }
    if !rest.is_empty() {
        return None;
    }
    caps.extend(found);
    Some(())
}

#[test]
fn patterns_capture_and_elide() {
    let mut caps = Captures::new();
    let shown = "Location: http://h/cb?code=<CODE>&session_state=…&state=xyz";
    let line = "Location: http://h/cb?code=abc&session_state=q%3D.1&state=xyz";
    assert_eq!(text_match(shown, line, &mut caps), Some(()));
    assert_eq!(caps["CODE"], "abc");
    assert_eq!(
        text_match(shown, "Location: http://h/cb?code=abc", &mut caps),
        None
    );
    assert_eq!(text_match("eyJhbG…", "eyJhbGciOi", &mut caps), Some(()));
    assert_eq!(
        text_match("eyJhbG…", "eyJhbG", &mut caps),
        None,
        "… is not empty"
    );
    assert_eq!(text_match("eyJhbG…", "xyJhbGciOi", &mut caps), None);
    let want = [r#"{"result":1,"id":"<id>"}"#.to_string()];
    assert!(lines_match(&want, &[r#"{"id":"f00","result":1}"#]).is_ok_and(|c| c["id"] == "f00"));
    assert!(lines_match(&want, &[r#"{"result":1,"id":"f00","x":2}"#]).is_err());
    let some = [r#"{"info":{"uid":"a",…},…}"#.to_string()];
    assert!(lines_match(&some, &[r#"{"info":{"uid":"a","cn":"A"},"result":true}"#]).is_ok());
    assert!(lines_match(&some, &[r#"{"info":{"cn":"A"},"result":true}"#]).is_err());
    let date = [r#"{"cfgDate":…,"n":<N>}"#.to_string()];
    assert!(lines_match(&date, &[r#"{"cfgDate":1795320000,"n":2}"#]).is_ok_and(|c| c["N"] == "2"));
    assert!(lines_match(&want, &[r#"{"result":0,"id":"f00"}"#]).is_err());
    assert!(lines_match(&want, &[r#"{"result":1,"id":"f00"}"#, "more"]).is_err());
    let shown = [
        "HTTP/1.1 401 Unauthorized".to_string(),
        "…".into(),
        "{}".into(),
    ];
    assert!(lines_match(&shown, &["HTTP/1.1 401 Unauthorized", "A: b", "C: d", "{}"]).is_ok());
    assert!(lines_match(&shown, &["HTTP/1.1 200 OK", "{}"]).is_err());
}
