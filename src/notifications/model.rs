//! The notification model: one type read from JSON (the default format) and from the old XML
//! format (`oldNotifFormat`), validated once at the edge (`date`, `uid`, reference, in
//! LemonLDAP::NG's order), and written back as the document a store keeps. Display helpers
//! strip inline markup (the spec: anything else is removed) and HTML-escape. No HTTP here.
pub use crate::storage::notifications::Format;
pub use crate::util::parse_date;
use serde_json::{Map, Value};
use std::fmt;

/// Longest `uid` and reference (the spec's `varchar(255)` columns).
pub const MAX_KEY_LEN: usize = 255;
/// Namespace given to the un-namespaced old XML documents so that minidom accepts them.
const XML_NS: &str = "urn:limette:notification";

/// Why a notification was refused; the text is shown to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub String);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Invalid> for crate::error::Error {
    fn from(e: Invalid) -> Self {
        crate::error::Error::BadRequest(e.0)
    }
}

/// One validated notification.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The user (the `whatToTrace` value) or the wildcard.
    pub uid: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// The reference (`_` replaced by `-`, as LemonLDAP::NG).
    pub reference: String,
    /// Display condition (may be empty).
    pub condition: String,
    /// Titles (JSON has at most one; XML may repeat).
    pub title: Vec<String>,
    /// Subtitles.
    pub subtitle: Vec<String>,
    /// Texts.
    pub text: Vec<String>,
    /// Check-box labels.
    pub check: Vec<String>,
    /// Unknown JSON keys, kept in the stored document as LemonLDAP::NG does.
    pub extra: Map<String, Value>,
    /// The format it came in and is stored in.
    pub format: Format,
}

/// Parses a JSON body: one object or a non-empty array of objects. `default_cond` (the
/// server's `notificationDefaultCond`) is combined with each notification's own condition.
pub fn parse_json(body: &[u8], default_cond: &str) -> Result<Vec<Notification>, Invalid> {
    let bad = || Invalid("Bad request".into());
    let v: Value = serde_json::from_slice(body).map_err(|_| bad())?;
    let items = match v {
        Value::Array(a) if a.is_empty() => return Err(bad()),
        Value::Array(a) => a,
        obj @ Value::Object(_) => vec![obj],
        _ => return Err(bad()),
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::Object(m) => from_json_object(m, default_cond),
            _ => Err(bad()),
        })
        .collect()
}

/// Reads a stored JSON document (no default condition is added again).
pub fn from_json_document(doc: &str) -> Result<Notification, Invalid> {
    match serde_json::from_str(doc) {
        Ok(Value::Object(m)) => from_json_object(m, ""),
        _ => Err(Invalid("stored notification is not a JSON object".into())),
    }
}

fn from_json_object(
    mut m: Map<String, Value>,
    default_cond: &str,
) -> Result<Notification, Invalid> {
    let mut take = |k: &str| m.remove(k);
    let date = take("date").and_then(|v| scalar(&v));
    let uid = take("uid").and_then(|v| scalar(&v));
    let reference = take("reference")
        .or_else(|| take("ref"))
        .and_then(|v| scalar(&v));
    let (uid, date, reference) = check_keys(uid, date, reference)?;
    let own = take("condition")
        .and_then(|v| scalar(&v))
        .unwrap_or_default();
    let list = |v: Option<Value>| -> Vec<String> {
        match v {
            Some(Value::Array(a)) => a.iter().filter_map(scalar).collect(),
            Some(v) => scalar(&v).into_iter().collect(),
            None => Vec::new(),
        }
    };
    let title = list(take("title"));
    let subtitle = list(take("subtitle"));
    let text = list(take("text"));
    let check = list(take("check"));
    Ok(Notification {
        uid,
        date,
        reference,
        condition: combine_cond(&own, default_cond),
        title,
        subtitle,
        text,
        check,
        extra: m,
        format: Format::Json,
    })
}

/// A string or number as text; anything else is ignored.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `own` and `default` both apply: `(own) and (default)`.
pub fn combine_cond(own: &str, default: &str) -> String {
    match (own.trim(), default.trim()) {
        ("", d) => d.to_string(),
        (o, "") => o.to_string(),
        (o, d) => format!("({o}) and ({d})"),
    }
}

/// Checks the required keys in LemonLDAP::NG's order: date, uid, reference.
fn check_keys(
    uid: Option<String>,
    date: Option<String>,
    reference: Option<String>,
) -> Result<(String, String, String), Invalid> {
    let missing = |k: &str| Invalid(format!("Attribute {k} is missing"));
    let date = date
        .filter(|s| !s.is_empty())
        .ok_or_else(|| missing("date"))?;
    let uid = uid
        .filter(|s| !s.is_empty())
        .ok_or_else(|| missing("uid"))?;
    let reference = reference
        .filter(|s| !s.is_empty())
        .ok_or_else(|| missing("reference"))?;
    let date = parse_date(&date).ok_or_else(|| Invalid(format!("Bad date {}", clip(&date))))?;
    check_key("uid", &uid)?;
    check_key("reference", &reference)?;
    Ok((uid, date, reference.replace('_', "-")))
}

fn check_key(name: &str, v: &str) -> Result<(), Invalid> {
    if v.chars().count() > MAX_KEY_LEN {
        return Err(Invalid(format!(
            "Attribute {name} is longer than {MAX_KEY_LEN} characters"
        )));
    }
    if v.chars().any(|c| c.is_control() || c == '/') || v == "." || v == ".." {
        return Err(Invalid(format!(
            "Attribute {name} holds a forbidden character"
        )));
    }
    Ok(())
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Parses an XML document of the old format into every `notification` element it holds.
pub fn parse_xml(doc: &str) -> Result<Vec<Notification>, Invalid> {
    check_xml(doc)?;
    let body = without_declaration(doc);
    let root =
        minidom::Element::from_reader_with_prefixes(body.as_bytes(), Some(XML_NS.to_string()))
            .map_err(|e| Invalid(format!("Notification is not well-formed XML: {e}")))?;
    let list: Vec<&minidom::Element> = root
        .children()
        .filter(|c| c.name() == "notification")
        .collect();
    if list.is_empty() {
        return Err(Invalid("No notification element in the document".into()));
    }
    list.into_iter().map(from_xml_element).collect()
}

/// The document without its `<?xml ...?>` declaration: SOAP::Lite's `standalone="no"` is
/// refused by the restricted parser, and the declaration says nothing we need (UTF-8 only).
pub fn without_declaration(doc: &str) -> &str {
    let d = doc.trim_start_matches('\u{feff}').trim_start();
    match d
        .strip_prefix("<?xml")
        .and_then(|rest| rest.find("?>").map(|i| &rest[i + 2..]))
    {
        Some(rest) => rest.trim_start(),
        None => d,
    }
}

fn from_xml_element(e: &minidom::Element) -> Result<Notification, Invalid> {
    let attr = |k: &str| e.attr(k).map(str::to_string);
    let (uid, date, reference) = check_keys(
        attr("uid"),
        attr("date"),
        attr("reference").or_else(|| attr("ref")),
    )?;
    let texts = |name: &str| -> Vec<String> {
        e.children()
            .filter(|c| c.name() == name)
            .map(deep_text)
            .collect()
    };
    Ok(Notification {
        uid,
        date,
        reference,
        condition: attr("condition").unwrap_or_default(),
        title: texts("title"),
        subtitle: texts("subtitle"),
        text: texts("text"),
        check: texts("check"),
        extra: Map::new(),
        format: Format::Xml,
    })
}

/// The text of an element and its descendants: inline markup is dropped, its words kept.
fn deep_text(e: &minidom::Element) -> String {
    let mut out = String::new();
    // Depth first with a stack of its own: no recursion, whatever the tree.
    let mut stack: Vec<std::slice::Iter<'_, minidom::Node>> = vec![e.nodes()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(minidom::Node::Text(t)) => out.push_str(t),
            Some(minidom::Node::Element(c)) => stack.push(c.nodes()),
            None => {
                stack.pop();
            }
        }
    }
    out
}

impl Notification {
    /// The document a store keeps: JSON with `condition` added and the date cut (as
    /// LemonLDAP::NG), or a one-notification XML document.
    pub fn to_document(&self) -> String {
        match self.format {
            Format::Json => self.to_json().to_string(),
            Format::Xml => self.to_xml(),
        }
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("condition".into(), self.condition.clone().into());
        m.insert("uid".into(), self.uid.clone().into());
        m.insert("date".into(), self.date.clone().into());
        m.insert("reference".into(), self.reference.clone().into());
        let one_or_many = |v: &Vec<String>| match v.as_slice() {
            [one] => Value::from(one.clone()),
            _ => Value::from(v.clone()),
        };
        for (k, v) in [
            ("title", &self.title),
            ("subtitle", &self.subtitle),
            ("text", &self.text),
        ] {
            if !v.is_empty() {
                m.insert(k.into(), one_or_many(v));
            }
        }
        if !self.check.is_empty() {
            m.insert("check".into(), one_or_many(&self.check));
        }
        for (k, v) in &self.extra {
            m.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Value::Object(m)
    }

    fn to_xml(&self) -> String {
        let a = |s: &str| xml_escape(s);
        let mut out = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root><notification uid=\"{}\" date=\"{}\" reference=\"{}\"",
            a(&self.uid),
            a(&self.date),
            a(&self.reference)
        );
        if !self.condition.is_empty() {
            out.push_str(&format!(" condition=\"{}\"", a(&self.condition)));
        }
        out.push('>');
        for (tag, list) in [
            ("title", &self.title),
            ("subtitle", &self.subtitle),
            ("text", &self.text),
            ("check", &self.check),
        ] {
            for v in list {
                out.push_str(&format!("<{tag}>{}</{tag}>", a(v)));
            }
        }
        out.push_str("</notification></root>");
        out
    }

    /// Reads a stored document of either format (the first notification of an XML one).
    pub fn from_document(doc: &str) -> Result<Notification, Invalid> {
        match Format::of(doc) {
            Format::Json => from_json_document(doc),
            Format::Xml => parse_xml(doc)?
                .into_iter()
                .next()
                .ok_or_else(|| Invalid("empty document".into())),
        }
    }

    /// The value of an attribute named as in `notificationServerSentAttributes`.
    pub fn attribute(&self, name: &str) -> Option<Value> {
        let list = |v: &Vec<String>| match v.as_slice() {
            [] => None,
            [one] => Some(Value::from(one.clone())),
            _ => Some(Value::from(v.clone())),
        };
        match name {
            "uid" => Some(self.uid.clone().into()),
            "reference" | "ref" => Some(self.reference.clone().into()),
            "date" => Some(self.date.clone().into()),
            "condition" | "cond" => Some(self.condition.clone().into()),
            "title" => list(&self.title),
            "subtitle" => list(&self.subtitle),
            "text" => list(&self.text),
            // A check list is always a list on the wire (LemonLDAP::NG echoes what was posted).
            "check" => (!self.check.is_empty()).then(|| Value::from(self.check.clone())),
            other => self.extra.get(other).cloned(),
        }
    }
}

mod guard;
mod text;
pub use guard::check_xml;
pub use text::{strip_tags, xml_escape};

#[cfg(test)]
mod tests;
