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

/// Escapes text for an XML attribute or element: the same five characters as for HTML (the
/// numeric `&#39;` is valid XML).
pub fn xml_escape(s: &str) -> String {
    crate::util::html_escape(s)
}
