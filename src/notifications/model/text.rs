//! Text helpers of the model: what is shown (markup stripped, HTML-escaped) and what is written
//! into XML documents (escaped).
use crate::util::html_escape;

/// Text for display: inline markup removed, then HTML-escaped.
pub fn display(s: &str) -> String {
    html_escape(&strip_tags(s))
}

/// Removes anything that looks like a tag (`<...>`), keeping the words between.
pub fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Escapes text for an XML attribute or element.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}
