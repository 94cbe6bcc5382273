//! What every XML document must pass before a parser sees it. The parser builds a tree
//! recursively, so nesting is bounded first (a 100,000-level document would overflow a worker's
//! stack and end the process); no document type is declared, so no entity is ever expanded and
//! no external reference is ever fetched. The scan is conservative: it may count a level too
//! many in odd markup, never too few.
use super::Invalid;

/// Deepest element nesting accepted: a SOAP envelope with a notification list needs six.
pub const MAX_DEPTH: usize = 32;

/// Refuses document type and entity declarations, and nesting deeper than [`MAX_DEPTH`].
pub fn check_xml(doc: &str) -> Result<(), Invalid> {
    let upper = doc.to_ascii_uppercase();
    if upper.contains("<!DOCTYPE") || upper.contains("<!ENTITY") {
        return Err(Invalid(
            "DOCTYPE and entity declarations are not allowed".into(),
        ));
    }
    if depth(doc.as_bytes(), MAX_DEPTH).is_none() {
        return Err(Invalid(format!(
            "XML nested deeper than {MAX_DEPTH} elements is not accepted"
        )));
    }
    Ok(())
}

/// The deepest element nesting of `doc`, or `None` as soon as it passes `max`.
fn depth(doc: &[u8], max: usize) -> Option<usize> {
    let (mut level, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while let Some(off) = doc.get(i..).and_then(|r| r.iter().position(|&b| b == b'<')) {
        let at = i + off;
        let rest = &doc[at..];
        i = if rest.starts_with(b"<!--") {
            skip_past(doc, at + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_past(doc, at + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_past(doc, at + 2, b"?>")
        } else if rest.starts_with(b"</") {
            level = level.saturating_sub(1);
            skip_past(doc, at + 2, b">")
        } else {
            let end = tag_end(doc, at + 1);
            // `end` is one past the tag's `>`; a `/` just before it closes the element.
            let self_closing = end >= 2 && doc.get(end - 2) == Some(&b'/');
            if !self_closing {
                level += 1;
                deepest = deepest.max(level);
                if deepest > max {
                    return None;
                }
            }
            end
        };
    }
    Some(deepest)
}

/// The index just past the next `needle` from `from`, or the end of the document.
fn skip_past(doc: &[u8], from: usize, needle: &[u8]) -> usize {
    doc.get(from..)
        .and_then(|r| r.windows(needle.len()).position(|w| w == needle))
        .map_or(doc.len(), |p| from + p + needle.len())
}

/// The index just past the `>` ending a start tag, skipping quoted attribute values.
fn tag_end(doc: &[u8], from: usize) -> usize {
    let mut quote = None;
    for (k, &b) in doc.iter().enumerate().skip(from) {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'>') => return k + 1,
            _ => {}
        }
    }
    doc.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{}{}", "<a>".repeat(n), "</a>".repeat(n))
    }

    #[test]
    fn nesting_is_counted_to_the_limit() {
        assert_eq!(
            depth(nested(MAX_DEPTH).as_bytes(), MAX_DEPTH),
            Some(MAX_DEPTH)
        );
        assert!(check_xml(&nested(MAX_DEPTH)).is_ok());
        assert!(check_xml(&nested(MAX_DEPTH + 1))
            .unwrap_err()
            .0
            .contains("deeper"));
        assert!(check_xml(&nested(100_000)).is_err());
        // Never closed: still refused, not scanned for ever.
        assert!(check_xml(&"<a>".repeat(1000)).is_err());
    }

    #[test]
    fn siblings_self_closing_tags_and_comments_do_not_count_as_depth() {
        let wide = format!("<r>{}</r>", "<n a='1'/><m></m>".repeat(1000));
        assert_eq!(depth(wide.as_bytes(), 5), Some(2));
        let hidden = format!(
            "<r><!-- {} --><![CDATA[{}]]><?pi <x> ?></r>",
            "<a>".repeat(50),
            "<b>".repeat(50)
        );
        assert_eq!(depth(hidden.as_bytes(), 5), Some(1));
        let quoted = r#"<r><n title="a > b" other='/>'>text</n></r>"#;
        assert_eq!(depth(quoted.as_bytes(), 5), Some(2));
    }

    #[test]
    fn declarations_are_refused_in_any_case() {
        for doc in [
            "<!DOCTYPE r><r/>",
            "<!doctype r><r/>",
            "<r><!ENTITY x 'y'></r>",
        ] {
            assert!(check_xml(doc).unwrap_err().0.contains("DOCTYPE"));
        }
    }
}
