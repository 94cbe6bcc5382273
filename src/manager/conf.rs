//! The console's configuration pages (LemonLDAP::NG's manager serves them under `/confs`):
//! the latest version's metadata, the numbers available, one version's keys (secrets hidden
//! by the one redaction, `config::redact`), the difference between two
//! versions (`config::diff`), one relying party's page, and the forms that save a new number,
//! whose posts `conf_edit` answers (it draws these pages again with its message; the
//! console's `conf_routes` routes both).
use super::conf_forms::{base_field, diff_form, log_field, main_form, rp_form};
use super::Ctx;
use crate::config::diff::{self, Change};
use crate::config::redact;
use crate::config::support::is_secret;
use crate::config::{as_i64, value_string};
use crate::error::{Error, Result};
use crate::http::Response;
use crate::oidc::rp_edit;
use crate::storage::save::META_KEYS;
use crate::util::url_encode;
use maud::{html, Markup};
use serde_json::{Map, Value};

/// The latest number and its document; 404 when the store holds none.
pub fn latest(ctx: &Ctx) -> Result<(u64, Map<String, Value>)> {
    let store = ctx.app.confs.as_ref();
    let num = store
        .latest()?
        .ok_or_else(|| Error::not_found("No configuration is available"))?;
    Ok((num, store.load(num)?))
}

/// The index: `top` (a message) above the latest version, the numbers, the forms.
pub fn index(ctx: &Ctx, top: Markup) -> Result<Response> {
    let page = ctx.page();
    let (num, doc) = latest(ctx)?;
    let mut nums = ctx.app.confs.numbers()?;
    nums.reverse();
    let rps = rp_edit::rps(&doc);
    let body = html! {
        (top)
        p { a id="edit-link" href="/manager/conf/edit" { (page.say("edOpen")) } } "\n"
        h2 { (page.say("mgrLatest")) } "\n"
        (metadata(ctx, num, &doc))
        h2 { (page.say("mgrVersions")) } "\n"
        (super::conf_versions::table(ctx, &nums)?)
        (diff_form(ctx, &nums))
        h2 { (page.say("mgrRps")) } "\n"
        table id="rps" {
            thead { tr {
                th scope="col" { (page.say("mgrRpName")) }
                th scope="col" { (page.say("mgrClientId")) }
                th scope="col" { (page.say("mgrDisplayName")) }
            } }
            tbody {
                "\n"
                @for (name, o) in &rps {
                    @let opt = |s: &str| o.get(&format!("oidcRPMetaDataOptions{s}")).map(value_string).unwrap_or_default();
                    tr {
                        td { a href={ "/manager/conf/rp/" (url_encode(name)) } { (name) } }
                        td { (opt("ClientID")) }
                        td { (opt("DisplayName")) }
                    } "\n"
                }
            }
        } "\n"
        h2 { (page.say("mgrAddRp")) } "\n"
        (rp_form(ctx, num, None, &Map::new()))
        (main_form(ctx, num, &doc))
        h2 { (page.say("mgrRotateKeys")) } "\n"
        form method="post" action="/manager/conf" id="rotate" {
            (ctx.token_field())
            (base_field(num))
            input type="hidden" name="action" value="rotate";
            (log_field(ctx, "rotate"))
            p { button type="submit" { (page.say("mgrRotateKeys")) } }
        } "\n"
    };
    Ok(ctx.render("mgrConf", body))
}

/// One relying party's page: its options form, one option, a new secret, deletion.
pub fn rp_page(ctx: &Ctx, name: &str, top: Markup) -> Result<Response> {
    let page = ctx.page();
    let (num, doc) = latest(ctx)?;
    let Some((_, o)) = rp_edit::rps(&doc).into_iter().find(|(n, _)| n == name) else {
        return Err(Error::not_found("No such relying party"));
    };
    let action = format!("/manager/conf/rp/{}", url_encode(name));
    let form = |id: &str, inner: Markup, button: &str| {
        html! {
            form method="post" action=(action) id=(id) {
                (ctx.token_field())
                (base_field(num))
                input type="hidden" name="action" value=(id);
                (inner)
                (log_field(ctx, id))
                p { button type="submit" class=[(id == "delete").then_some("danger")] { (page.say(button)) } }
            } "\n"
        }
    };
    let option = html! {
        p {
            label for="o-key" { (page.say("mgrOption")) } " "
            select id="o-key" name="key" { @for short in rp_edit::editable_options() { option { (short) } } }
        }
        p { label for="o-value" { (page.say("mgrValue")) } " " input id="o-value" name="value"; }
    };
    let body = html! {
        (top)
        h2 { (name) } "\n"
        p { a id="edit-rp-link" href={ "/manager/conf/edit?group=relyingparties&rp=" (url_encode(name)) } { (page.say("edOpenRp")) } } "\n"
        (rp_form(ctx, num, Some(name), &o))
        h2 { (page.say("mgrSetOption")) } "\n"
        (form("option", option, "mgrSetOption"))
        h2 { (page.say("mgrNewSecret")) } "\n"
        (form("secret", html! {}, "mgrNewSecret"))
        h2 { (page.say("mgrDeleteRp")) } "\n"
        (form("delete", html! {}, "mgrDeleteRp"))
    };
    Ok(ctx.render("mgrConf", body))
}

/// `/manager/conf/<num>`: the metadata, every key by path, and the form that rolls back to it.
pub fn version(ctx: &Ctx, num: &str) -> Result<Response> {
    let page = ctx.page();
    let num: u64 = num.parse().map_err(|_| Error::not_found("Not found"))?;
    let doc = crate::config_proxy::view::load(ctx.app.confs.as_ref(), num, false)?;
    let latest = ctx.app.confs.latest()?.unwrap_or(num);
    let mut rows = Vec::new();
    flatten(&doc, "", false, &mut rows);
    let body = html! {
        (metadata(ctx, num, &doc))
        @if num != latest {
            form method="post" action="/manager/conf" id="rollback" {
                (ctx.token_field())
                (base_field(latest))
                input type="hidden" name="action" value="rollback";
                input type="hidden" name="num" value=(num);
                (log_field(ctx, "rollback"))
                p { button type="submit" { (page.say_fill("mgrRollback", &[("num", &num.to_string())])) } }
            } "\n"
        }
        table id="keys" {
            thead { tr { th scope="col" { (page.say("mgrKey")) } th scope="col" { (page.say("mgrValue")) } } }
            tbody {
                "\n"
                @for (path, value) in rows {
                    tr {
                        td { (path) }
                        td.value { @match value { Some(v) => (v), None => (page.say("mgrSecretHidden")) } }
                    } "\n"
                }
            }
        } "\n"
    };
    Ok(ctx.render("mgrConf", body))
}

/// `/manager/conf/diff?from=A&to=B`.
pub fn compare(ctx: &Ctx) -> Result<Response> {
    let page = ctx.page();
    let store = ctx.app.confs.as_ref();
    let num = |k: &str| {
        ctx.req
            .query_param(k)
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| Error::bad(format!("{k}: a configuration number")))
    };
    let (from, to) = (num("from")?, num("to")?);
    let old = crate::config_proxy::view::load(store, from, false)?;
    let new = crate::config_proxy::view::load(store, to, false)?;
    let lines = diff::diff(&old, &new, &META_KEYS);
    let mut nums = store.numbers()?;
    nums.reverse();
    let (from_s, to_s) = (from.to_string(), to.to_string());
    let body = html! {
        (diff_form(ctx, &nums))
        h2 { (page.say_fill("mgrDiffOf", &[("from", &from_s), ("to", &to_s)])) } "\n"
        @if lines.is_empty() { p id="nodiff" { (page.say("mgrNoDiff")) } "\n" }
        table id="diff" {
            thead { tr {
                th scope="col" { (page.say("mgrKey")) }
                th scope="col" { (page.say("mgrChange")) }
                th scope="col" { (page.say_fill("mgrIn", &[("num", &from_s)])) }
                th scope="col" { (page.say_fill("mgrIn", &[("num", &to_s)])) }
            } }
            tbody { "\n" @for l in lines { (diff_row(ctx, l)) "\n" } }
        } "\n"
    };
    Ok(ctx.render("mgrConf", body))
}

/// One line of a comparison.
fn diff_row(ctx: &Ctx, l: diff::Line) -> Markup {
    let page = ctx.page();
    let (class, word) = match l.change {
        Change::Added => ("added", "mgrAdded"),
        Change::Removed => ("removed", "mgrRemoved"),
        Change::Changed => ("changed", "mgrChanged"),
    };
    let secret = l.old.is_none() && l.new.is_none();
    let cell = |v: Option<String>| {
        html! {
            td.value { @match v { Some(v) => (v), None => { @if secret { (page.say("mgrSecretHidden")) } } } }
        }
    };
    html! {
        tr class=(class) { td.value { (l.path) } td { (page.say(word)) } (cell(l.old)) (cell(l.new)) }
    }
}

/// The six `cfg*` fields of a version.
fn metadata(ctx: &Ctx, num: u64, doc: &Map<String, Value>) -> Markup {
    let page = ctx.page();
    let text = |k: &str| html! { (doc.get(k).map(value_string).unwrap_or_default()) };
    let date =
        html! { @if let Some(d) = doc.get("cfgDate").and_then(as_i64) { (page.time_markup(d)) } };
    let rows = [
        ("cfgNum", "mgrConfNum", html! { (num) }),
        ("cfgAuthor", "mgrAuthor", text("cfgAuthor")),
        ("cfgAuthorIP", "mgrAuthorIP", text("cfgAuthorIP")),
        ("cfgDate", "mgrDate", date),
        ("cfgLog", "mgrLogMsg", text("cfgLog")),
        ("cfgVersion", "mgrVersion", text("cfgVersion")),
    ];
    html! {
        table class="meta" { tbody {
            "\n"
            @for (id, word, value) in rows {
                tr { th scope="row" { (page.say(word)) } td class=(id) { (value) } } "\n"
            }
        } } "\n"
    }
}

/// Every leaf of `doc` by path; `None` for a secret's value.
fn flatten(
    doc: &Map<String, Value>,
    at: &str,
    hidden: bool,
    out: &mut Vec<(String, Option<String>)>,
) {
    let mut entries: Vec<(&String, &Value)> = doc.iter().collect();
    crate::util::sort::sort_by(&mut entries, |a, b| a.0.cmp(b.0));
    for (k, v) in entries {
        let path = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}/{k}")
        };
        let secret = hidden || is_secret(k);
        match v {
            Value::Object(m) if !m.is_empty() => flatten(m, &path, secret, out),
            _ => out.push((path, redact::shown(secret, k, v))),
        }
    }
}
