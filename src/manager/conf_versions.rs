//! The console's list of configuration versions: each number with its date, author, author's
//! address and log message (`cfgDate`, `cfgAuthor`, `cfgAuthorIP`, `cfgLog`), newest first,
//! `PER_PAGE` a page (`?versions=<page>`, from 1). Only the `cfg*` fields of the versions shown
//! are read (`ConfStore::load_cfg_fields`, which a store may answer without the whole
//! document). A version that cannot be read shows its number alone.
use super::Ctx;
use crate::config::{as_i64, value_string};
use crate::error::Result;
use maud::{html, Markup};

/// The versions a page of the list shows.
pub const PER_PAGE: usize = 20;

/// The table of the versions of `nums` (newest first) on the page the query asks.
pub fn table(ctx: &Ctx, nums: &[u64]) -> Result<Markup> {
    let page = ctx.page();
    let pages = nums.len().div_ceil(PER_PAGE).max(1);
    let at = ctx
        .req
        .query_param("versions")
        .and_then(|p| p.parse::<usize>().ok())
        .map_or(1, |p| p.clamp(1, pages));
    let shown = nums.iter().skip((at - 1) * PER_PAGE).take(PER_PAGE);
    let store = ctx.app.confs.as_ref();
    let mut rows = Vec::new();
    for &n in shown {
        let meta = store.load_cfg_fields(n).unwrap_or_default();
        let text = |k: &str| meta.get(k).map(value_string).unwrap_or_default();
        let date = meta.get("cfgDate").and_then(as_i64);
        rows.push(html! {
            tr {
                th scope="row" { a href={ "/manager/conf/" (n) } { (n) } }
                td { @if let Some(d) = date { (page.time_markup(d)) } }
                td.cfgAuthor { (text("cfgAuthor")) }
                td.cfgAuthorIP { (text("cfgAuthorIP")) }
                td.cfgLog { (text("cfgLog")) }
            }
        });
    }
    let link = |p: usize, key: &str| {
        html! { a href={ "/manager/conf?versions=" (p) "#versions" } { (page.say(key)) } }
    };
    Ok(html! {
        table id="versions" {
            thead { tr {
                th scope="col" { (page.say("mgrConfNum")) }
                th scope="col" { (page.say("mgrDate")) }
                th scope="col" { (page.say("mgrAuthor")) }
                th scope="col" { (page.say("mgrAuthorIP")) }
                th scope="col" { (page.say("mgrLogMsg")) }
            } }
            tbody { "\n" @for r in rows { (r) "\n" } }
        } "\n"
        @if pages > 1 {
            nav.pages aria-label=(page.say("mgrVersions")) {
                @if at > 1 { (link(at - 1, "mgrNewerVersions")) " " }
                (page.say_fill("mgrPageOf", &[("page", &at.to_string()), ("pages", &pages.to_string())]))
                @if at < pages { " " (link(at + 1, "mgrOlderVersions")) }
            } "\n"
        }
    })
}
