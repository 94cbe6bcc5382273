//! The configuration editor, `/manager/conf/edit`: every key of the catalogue
//! (`config::catalogue`), one group a page in LemonLDAP::NG's manager's order, or the keys a
//! search finds (by key, label or help, a GET that works without script); each with its label,
//! its one-line help, its LemonLDAP::NG default and a typed input prefilled with the latest
//! version's value (a secret is never shown: an empty password field keeps it). Keys Limette
//! refuses that the document sets are listed read-only with the reason. The page is drawn from
//! drafts (`typed::Draft`), so that a refused or to-be-confirmed save draws the same page with
//! everything typed; `save` answers its posts. The metadata a save writes (`cfgLog`, ...) is
//! not edited here: the form's log message is `cfgLog`.
mod fields;
mod refused;
mod said;
mod save;
mod typed;

use super::conf::latest;
use super::conf_forms::{base_field, log_field};
use super::Ctx;
use crate::config::catalogue::{self, Entry, Group};
use crate::error::{Error, Result};
use crate::http::Response;
use crate::storage::save::META_KEYS;
use maud::{html, Markup};
use serde_json::{Map, Value};
use std::collections::HashMap;
use typed::Draft;

pub use save::post;
pub(super) use typed::secret;

/// The editor's path.
const PATH: &str = "/manager/conf/edit";

/// The relying parties' options, by relying party: edited one relying party a page.
const RP_OPTIONS: &str = "oidcRPMetaDataOptions";

/// What a page shows: a group, or the keys a search finds; for the relying parties' group, one
/// relying party's options and tables (`rp`).
#[derive(Debug, Clone)]
struct View {
    group: Group,
    q: String,
    rp: Option<String>,
}

/// A key whose value is one relying party's (an option, or a table keyed by relying party).
fn rp_scoped(e: &Entry) -> bool {
    e.group == Group::RelyingParties && e.key != RP_OPTIONS
}

impl View {
    /// From the query (a GET) or the form (a post): `group` and `q`.
    fn of(ctx: &Ctx) -> View {
        let q: String = ctx
            .req
            .param("q")
            .unwrap_or_default()
            .trim()
            .chars()
            .take(100)
            .collect();
        let group = ctx
            .req
            .param("group")
            .and_then(|g| Group::ALL.into_iter().find(|x| slug(*x) == g))
            .unwrap_or(Group::General);
        let rp = ctx
            .req
            .param("rp")
            .filter(|r| !r.is_empty() && group == Group::RelyingParties);
        View { group, q, rp }
    }

    /// The entries shown, in the catalogue's order.
    fn entries(&self, lang: &str) -> Vec<&'static Entry> {
        catalogue::all()
            .filter(|e| e.key != RP_OPTIONS && !META_KEYS.contains(&e.key))
            .filter(|e| rp_scoped(e) == self.rp.is_some())
            .filter(|e| match self.q.as_str() {
                "" => e.group == self.group,
                q => matches(e, lang, q),
            })
            .collect()
    }

    /// The values the page's keys are read from: the document, or one relying party's options
    /// and its rows of the tables keyed by relying party. `None`: no such relying party.
    fn scope(&self, doc: &Map<String, Value>) -> Option<Map<String, Value>> {
        let Some(rp) = &self.rp else {
            return Some(doc.clone());
        };
        let mut out = doc.get(RP_OPTIONS)?.get(rp)?.as_object()?.clone();
        for e in catalogue::all().filter(|e| rp_scoped(e) && !e.key.starts_with(RP_OPTIONS)) {
            if let Some(v) = doc.get(e.key).and_then(|t| t.get(rp)) {
                out.insert(e.key.to_string(), v.clone());
            }
        }
        Some(out)
    }

    /// Puts a scope's values back where `scope` read them.
    fn unscope(&self, doc: &mut Map<String, Value>, scoped: Map<String, Value>) {
        let Some(rp) = &self.rp else {
            *doc = scoped;
            return;
        };
        for e in catalogue::all().filter(|e| rp_scoped(e)) {
            let value = scoped.get(e.key).cloned();
            if e.key.starts_with(RP_OPTIONS) {
                if let Some(Value::Object(o)) = doc.get_mut(RP_OPTIONS).and_then(|t| t.get_mut(rp))
                {
                    set(o, e.key, value);
                }
            } else if value.is_some() || doc.contains_key(e.key) {
                let t = doc
                    .entry(e.key.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(t) = t {
                    set(t, rp, value);
                }
            }
        }
    }

    /// This view's address (with `extra` query pairs, already encoded).
    fn href(&self, extra: &str) -> String {
        let mut out = format!("{PATH}?group={}", slug(self.group));
        if let Some(rp) = &self.rp {
            out.push_str(&format!("&rp={}", crate::util::url_encode(rp)));
        }
        if !self.q.is_empty() {
            out.push_str(&format!("&q={}", crate::util::url_encode(&self.q)));
        }
        out + extra
    }
}

/// Sets or (`None`) removes `key` of `m`.
fn set(m: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(v) => m.insert(key.to_string(), v),
        None => m.remove(key),
    };
}

/// A group's name in addresses.
fn slug(g: Group) -> String {
    format!("{g:?}").to_ascii_lowercase()
}

/// Whether a search finds `e`: its key, or its label or help in the page's language.
fn matches(e: &Entry, lang: &str, q: &str) -> bool {
    let q = q.to_lowercase();
    let t = e.text(lang);
    [e.key, t.label, t.help]
        .iter()
        .any(|s| s.to_lowercase().contains(&q))
}

/// What a redrawn form carries besides the drafts: errors by key (`None`: about no field
/// shown), warnings awaiting a confirmation, a message above.
#[derive(Default)]
struct Outcome {
    errors: Vec<(Option<&'static str>, String)>,
    warnings: Vec<String>,
    top: Option<Markup>,
}

/// `GET /manager/conf/edit[?group=..][&q=..]`: the page, from the latest version.
pub fn page(ctx: &Ctx) -> Result<Response> {
    let (num, doc) = latest(ctx)?;
    let view = View::of(ctx);
    let lang = ctx.page().lang;
    let scoped = view
        .scope(&doc)
        .ok_or_else(|| Error::not_found("No such relying party"))?;
    let drafts = view
        .entries(lang)
        .into_iter()
        .map(|e| (e.key, typed::from_doc(e, &scoped)))
        .collect();
    draw(ctx, &view, num, &doc, &drafts, &Outcome::default())
}

/// The page with these drafts and what the last post found.
fn draw(
    ctx: &Ctx,
    view: &View,
    base: u64,
    doc: &Map<String, Value>,
    drafts: &HashMap<&'static str, Draft>,
    out: &Outcome,
) -> Result<Response> {
    let page = ctx.page();
    let entries = view.entries(page.lang);
    let scoped = view.scope(doc).unwrap_or_default();
    let rps = view.group == Group::RelyingParties && view.rp.is_none() && view.q.is_empty();
    let body = html! {
        @if let Some(top) = &out.top { (top) }
        (summary(ctx, out))
        (navigation(ctx, view))
        @if rps {
            (rp_list(ctx, doc))
        } @else if entries.is_empty() {
            p id="ed-none" { (page.say("edNoMatch")) } "\n"
        } @else {
            form method="post" action=(PATH) id="editor" novalidate {
                (ctx.token_field())
                (base_field(base))
                input type="hidden" name="group" value=(slug(view.group));
                input type="hidden" name="q" value=(view.q);
                input type="hidden" name="shown" value=(entries.iter().map(|e| e.key).collect::<Vec<_>>().join(","));
                @if let Some(rp) = &view.rp { input type="hidden" name="rp" value=(rp); } "\n"
                div.ed-grid {
                    @for e in &entries {
                        @let draft = drafts.get(e.key).cloned().unwrap_or_else(|| typed::from_doc(e, &scoped));
                        (fields::field(ctx, e, &scoped, Some(&draft), error_of(page.lang, out, e.key).as_deref()))
                    }
                } "\n"
                (log_field(ctx, "editor"))
                p.actions {
                    button type="submit" { (page.say("mgrSave")) }
                    @if !out.warnings.is_empty() {
                        button type="submit" name="confirm" value="1" id="ed-anyway" { (page.say("edSaveAnyway")) }
                    }
                } "\n"
            } "\n"
        }
        (refused::section(ctx, view, doc))
    };
    Ok(ctx.render("edTitle", body))
}

/// The relying parties, each a link to its options.
fn rp_list(ctx: &Ctx, doc: &Map<String, Value>) -> Markup {
    let mut names: Vec<&String> = match doc.get(RP_OPTIONS) {
        Some(Value::Object(m)) => m.keys().collect(),
        _ => Vec::new(),
    };
    crate::util::sort::sort(&mut names);
    html! {
        p { (ctx.page().say("edPickRp")) } "\n"
        ul id="ed-rps" { @for n in names {
            li { a href={ (PATH) "?group=" (slug(Group::RelyingParties)) "&rp=" (crate::util::url_encode(n)) } { (n) } }
        } } "\n"
    }
}

/// The error of the last save about `key`, in `lang`.
fn error_of(lang: &str, out: &Outcome, key: &str) -> Option<String> {
    out.errors
        .iter()
        .find(|(k, _)| *k == Some(key))
        .map(|(_, m)| said::text(lang, m))
}

/// The groups, the search box, and the way back to the configuration page.
fn navigation(ctx: &Ctx, view: &View) -> Markup {
    let page = ctx.page();
    html! {
        nav.ed-groups aria-label=(page.say("edGroups")) {
            ul {
                @for g in Group::ALL {
                    @let here = view.q.is_empty() && g == view.group;
                    li { a href={ (PATH) "?group=" (slug(g)) } aria-current=[here.then_some("page")] { (g.name(page.lang)) } }
                }
            }
        } "\n"
        form method="get" action=(PATH) id="ed-search" role="search" {
            input type="hidden" name="group" value=(slug(view.group));
            @if let Some(rp) = &view.rp { input type="hidden" name="rp" value=(rp); }
            label for="ed-q" { (page.say("edSearch")) } " "
            input type="search" id="ed-q" name="q" value=(view.q);
            " " button type="submit" { (page.say("edFind")) }
        } "\n"
        @if !view.q.is_empty() {
            h2 { (page.say_fill("edFound", &[("q", &view.q)])) } "\n"
        } @else if let Some(rp) = &view.rp {
            h2 { (view.group.name(page.lang)) (colon(page.lang)) (rp) } "\n"
        } @else {
            h2 { (view.group.name(page.lang)) } "\n"
        }
    }
}

/// The errors above the form, each a link to its field; the warnings awaiting confirmation;
/// each in the page's language (`said`).
fn summary(ctx: &Ctx, out: &Outcome) -> Markup {
    let page = ctx.page();
    html! {
        @if !out.errors.is_empty() {
            div.error id="ed-errors" role="alert" {
                p { (page.say("edErrors")) }
                ul { @for (key, msg) in &out.errors { li {
                    @match key {
                        Some(k) => { a href={ "#" (fields::id(k)) } { code { (k) } } (colon(page.lang)) (said::text(page.lang, msg)) }
                        None => (said::text(page.lang, msg)),
                    }
                } } }
            } "\n"
        }
        @if !out.warnings.is_empty() {
            div.message id="ed-warnings" role="status" {
                p { (page.say("edWarnings")) }
                ul { @for w in &out.warnings { li { (said::text(page.lang, w)) } } }
            } "\n"
        }
    }
}

/// The colon between a name and what follows, as the language writes it.
fn colon(lang: &str) -> &'static str {
    if lang == "fr" {
        "\u{a0}: "
    } else {
        ": "
    }
}

#[cfg(test)]
mod said_tests;

#[cfg(test)]
mod catalogue_tests;
