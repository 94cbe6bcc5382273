//! The applications of the menu, from `applicationList` as LemonLDAP::NG's `Main/Menu.pm`
//! reads it: a tree of categories (`type: "category"`, `catname`) holding applications
//! (`type: "application"`, `options` {name, uri, description, logo, tooltip, display}),
//! siblings ordered by `order` then by key. An application shows by its `display`: `off`/`no`
//! never, `on`/`yes` always, `auto` (the default) when the user's `locationRules` let them
//! reach its URI (its virtual host without the port, as `Menu.pm` takes it), any other value
//! is a rule over the user's session that decides alone. `sp:<partner>` (a SAML, CAS or OIDC
//! partner's rule) is not read here: such an application is hidden. Categories left empty are
//! dropped, and only categories show at the top (as `appslist` returns them). Pure: the caller
//! gives the access check.
use crate::rules::{Env, Rule};
use serde_json::{Map, Value};

/// A category of the menu, with what the user may see in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    /// Its key in `applicationList`.
    pub id: String,
    /// `catname`, else the key.
    pub name: String,
    /// Applications shown, in order.
    pub apps: Vec<App>,
    /// Sub-categories shown, in order.
    pub categories: Vec<Category>,
}

/// An application of the menu.
#[derive(Debug, Clone, PartialEq)]
pub struct App {
    /// Its key.
    pub id: String,
    /// `options/name`, else the key.
    pub name: String,
    /// `options/uri`.
    pub uri: String,
    /// `options/description`.
    pub description: Option<String>,
    /// `options/logo` when it is an absolute http(s) URL.
    pub logo: Option<String>,
    /// `options/logo` when it is one of LemonLDAP::NG's logo file names (`demo.png`, which
    /// LemonLDAP::NG serves from `static/common/apps/`): the menu shows it when the skin folder
    /// has that file, a letter otherwise.
    pub logo_file: Option<String>,
    /// `options/tooltip`, else the name.
    pub tooltip: String,
}

/// How many applications the categories hold, sub-categories included.
pub fn count(cats: &[Category]) -> usize {
    cats.iter()
        .map(|c| c.apps.len() + count(&c.categories))
        .sum()
}

/// The categories with only the applications whose name or description holds `query`
/// (ignoring case; blanks around it dropped), categories left empty dropped.
pub fn matching(cats: Vec<Category>, query: &str) -> Vec<Category> {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return cats;
    }
    let hit = |a: &App| {
        a.name.to_lowercase().contains(&q)
            || a.description
                .as_deref()
                .is_some_and(|d| d.to_lowercase().contains(&q))
    };
    cats.into_iter()
        .filter_map(|mut c| {
            c.apps.retain(hit);
            c.categories = matching(std::mem::take(&mut c.categories), &q);
            (!c.apps.is_empty() || !c.categories.is_empty()).then_some(c)
        })
        .collect()
}

/// The keys of a node that are not children.
const OWN_KEYS: [&str; 4] = ["type", "options", "catname", "order"];

/// The categories the user sees; `reach` says whether the user may reach a URL.
pub fn visible(
    list: &Value,
    attrs: &Map<String, Value>,
    env: &Env,
    reach: &dyn Fn(&str) -> bool,
) -> Vec<Category> {
    let Some(root) = list.as_object() else {
        return Vec::new();
    };
    let ctx = Ctx { attrs, env, reach };
    children(root, "category")
        .into_iter()
        .filter_map(|(id, node)| ctx.category(id, node))
        .collect()
}

struct Ctx<'a> {
    attrs: &'a Map<String, Value>,
    env: &'a Env,
    reach: &'a dyn Fn(&str) -> bool,
}

impl Ctx<'_> {
    /// A category with what shows in it; `None` when nothing does.
    fn category(&self, id: &str, node: &Map<String, Value>) -> Option<Category> {
        let apps: Vec<App> = children(node, "application")
            .into_iter()
            .filter(|(_, app)| self.shows(app))
            .map(|(id, app)| application(id, app))
            .collect();
        let categories: Vec<Category> = children(node, "category")
            .into_iter()
            .filter_map(|(id, sub)| self.category(id, sub))
            .collect();
        if apps.is_empty() && categories.is_empty() {
            return None;
        }
        Some(Category {
            id: id.to_string(),
            name: text(node.get("catname")).unwrap_or_else(|| id.to_string()),
            apps,
            categories,
        })
    }

    /// `_filterHash` for one application.
    fn shows(&self, app: &Map<String, Value>) -> bool {
        let options = app.get("options").and_then(Value::as_object);
        let opt = |k: &str| options.and_then(|o| text(o.get(k)));
        let display = opt("display").unwrap_or_else(|| "auto".into());
        let display = display.trim();
        match display {
            "off" | "no" => false,
            "on" | "yes" => true,
            d if d.eq_ignore_ascii_case("auto") => opt("uri")
                .and_then(|u| without_port(&u))
                .is_some_and(|u| (self.reach)(&u)),
            d if d.starts_with("sp:") => false,
            rule => Rule::parse(rule).is_ok_and(|r| r.eval_with(self.attrs, self.env)),
        }
    }
}

fn application(id: &str, app: &Map<String, Value>) -> App {
    let options = app.get("options").and_then(Value::as_object);
    let opt = |k: &str| options.and_then(|o| text(o.get(k)));
    let name = opt("name").unwrap_or_else(|| id.to_string());
    App {
        id: id.to_string(),
        uri: opt("uri").unwrap_or_default(),
        description: opt("description"),
        logo: opt("logo").filter(|l| is_absolute(l)),
        logo_file: opt("logo")
            .filter(|l| !is_absolute(l))
            .and_then(|l| crate::web::skin::static_path(&l)),
        tooltip: opt("tooltip").unwrap_or_else(|| name.clone()),
        name,
    }
}

/// The children of `node` of that `type`, by `order` (a missing one is 0) then key.
fn children<'a>(
    node: &'a Map<String, Value>,
    kind: &str,
) -> Vec<(&'a str, &'a Map<String, Value>)> {
    let mut out: Vec<(&str, &Map<String, Value>, f64)> = node
        .iter()
        .filter(|(k, _)| !OWN_KEYS.contains(&k.as_str()))
        .filter_map(|(k, v)| Some((k.as_str(), v.as_object()?)))
        .filter(|(_, v)| v.get("type").and_then(Value::as_str) == Some(kind))
        .map(|(k, v)| {
            let order = text(v.get("order")).map_or(0.0, |o| crate::rules::perl_number(&o));
            (k, v, order)
        })
        .collect();
    crate::util::sort::sort_by(&mut out, |a, b| {
        a.2.total_cmp(&b.2).then_with(|| a.0.cmp(b.0))
    });
    out.into_iter().map(|(k, v, _)| (k, v)).collect()
}

/// A non-empty text value.
fn text(v: Option<&Value>) -> Option<String> {
    v.map(crate::config::value_string)
        .filter(|s| !s.trim().is_empty())
}

fn is_absolute(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://")) && url.len() > 8
}

/// The URL with its port dropped: `Menu.pm` asks the rules of the virtual host named by the
/// host alone. `None` for anything but an absolute http(s) URL.
fn without_port(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host = authority.split(':').next().unwrap_or("");
    (!host.is_empty()).then(|| format!("{scheme}://{host}{tail}"))
}

#[cfg(test)]
mod tests;
