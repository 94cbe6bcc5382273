//! Text helpers of the model: what is shown (markup stripped, HTML-escaped) and what is written
//! into XML documents (escaped).

/// Removes anything that looks like a tag (`<...>`), keeping the words between: the text the
/// pages put into their templates, which escape it.
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
/// numeric `&#39;` is valid XML). XML documents are not pages: this is one of the two uses of
/// `util::html_escape` left (the other is the SOAP Fault), both outside the templates.
pub fn xml_escape(s: &str) -> String {
    crate::util::html_escape(s)
}
