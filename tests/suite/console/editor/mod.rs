//! The console's configuration editor (`/manager/conf/edit`), as an administrator's browser
//! would post it: every field of the drawn form sent back with a few changed. A refused value
//! (a number out of bounds, a rule that does not parse, a relative URL, broken JSON) comes back
//! with every typed value and its error beside its field, linked from the summary, and nothing
//! saved; new warnings are confirmed before the save; a cookie domain that would lock everybody
//! out is refused with its reason; a form left open ten minutes still saves; a form drawn
//! before another save says so and keeps its values; a secret is never drawn.
//! The form helpers are here; the refusals in `refusals.rs`, the saves in `saves.rs`.
mod french;
mod kept;
mod refusals;
mod saves;

use super::common::Portal;
use super::manager::{get, post};

/// The named fields of the editor's form, as a browser would post them (check boxes only
/// when checked, a select's chosen option's value, a text area's text).
pub fn fields(html: &str) -> Vec<(String, String)> {
    let start = html
        .find("id=\"editor\"")
        .unwrap_or_else(|| panic!("no editor: {html}"));
    let form = &html[start..];
    let form = &form[..form.find("</form>").unwrap_or(form.len())];
    let mut out = Vec::new();
    for tag in form.split('<').skip(1) {
        let attr = |name: &str| {
            tag.split(&format!(" {name}=\""))
                .nth(1)
                .and_then(|r| r.split('"').next())
                .map(unescape)
        };
        let Some(name) = attr("name") else { continue };
        if tag.starts_with("input ") {
            let checkbox = attr("type").as_deref() == Some("checkbox");
            if !checkbox || tag.contains(" checked") {
                out.push((name, attr("value").unwrap_or_default()));
            }
        } else if tag.starts_with("textarea ") {
            out.push((
                name,
                unescape(tag.split_once('>').map(|x| x.1).unwrap_or("")),
            ));
        } else if tag.starts_with("select ") {
            let rest = &form[form.find(tag).unwrap_or(0)..];
            let chosen = rest
                .split("<option")
                .skip(1)
                .take_while(|o| !o.starts_with("</select"))
                .find(|o| o.contains(" selected"))
                .and_then(|o| o.split(" value=\"").nth(1))
                .and_then(|v| v.split('"').next())
                .unwrap_or("");
            out.push((name, unescape(chosen)));
        }
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Posts the form of `html` with `set` changed (`None`: the field left out, a check box off).
pub fn send(
    p: &Portal,
    sid: &str,
    html: &str,
    set: &[(&str, Option<&str>)],
) -> super::common::http::Resp {
    let mut all = fields(html);
    for (name, value) in set {
        all.retain(|(n, _)| n != name);
        if let Some(v) = value {
            all.push((name.to_string(), v.to_string()));
        }
    }
    let refs: Vec<(&str, &str)> = all.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    post(p, sid, "/manager/conf/edit", &refs)
}

pub fn page(p: &Portal, sid: &str, query: &str) -> String {
    let r = get(p, sid, &format!("/manager/conf/edit?{query}"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

/// The names of the empty row a page offers in the table `key` (name field, value field).
pub fn new_row(html: &str, key: &str) -> (String, String) {
    let prefix = format!("k.{key}.n.");
    let rows = fields(html)
        .iter()
        .filter(|(n, _)| n.starts_with(&prefix))
        .count();
    (
        format!("k.{key}.n.{}", rows - 1),
        format!("k.{key}.v.{}", rows - 1),
    )
}

/// The warnings box of a page, from its start to the end of the page.
pub fn warnings(html: &str) -> &str {
    html.split("id=\"ed-warnings\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no warnings: {html}"))
}

/// The block of `key` in a page: from its field to the next one.
pub fn block<'a>(html: &'a str, key: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"fld-{key}\""))
        .unwrap_or_else(|| panic!("no {key}: {html}"));
    let rest = &html[at..];
    &rest[..rest[1..]
        .find("class=\"ed-field")
        .map(|i| i + 1)
        .unwrap_or(rest.len())]
}
