//! The forms of the configuration pages: the relying-party form (to add one or edit its
//! options), the main keys, the comparison of two versions, and the hidden and log fields
//! every saving form carries. Templates only; `conf_edit` reads what they post.
use super::Ctx;
use crate::config::value_string;
use crate::oidc::rp_edit;
use crate::util::url_encode;
use maud::{html, Markup};
use serde_json::{Map, Value};

/// The main keys the console's form edits: an empty field removes the key.
pub const MAIN_KEYS: [&str; 3] = ["portal", "domain", "timeout"];

/// The comparison form (a GET: it changes nothing).
pub fn diff_form(ctx: &Ctx, nums: &[u64]) -> Markup {
    let page = ctx.page();
    let select = |name: &str, word: &str, pick: Option<u64>| {
        html! {
            label for={ "d-" (name) } { (page.say(word)) } " "
            select id={ "d-" (name) } name=(name) {
                @for n in nums { option selected[Some(*n) == pick] { (n) } }
            }
        }
    };
    html! {
        h2 { (page.say("mgrDiff")) } "\n"
        form method="get" action="/manager/conf/diff" id="compare" {
            p {
                (select("from", "mgrFrom", nums.get(1).copied())) " "
                (select("to", "mgrTo", nums.first().copied()))
            }
            p { button type="submit" { (page.say("mgrCompare")) } }
        } "\n"
    }
}

/// The relying-party form: `name` is `None` to add one.
pub fn rp_form(ctx: &Ctx, base: u64, name: Option<&str>, o: &Map<String, Value>) -> Markup {
    let page = ctx.page();
    let id = if name.is_some() { "edit" } else { "add" };
    let opt = |s: &str| {
        o.get(&format!("oidcRPMetaDataOptions{s}"))
            .map(value_string)
            .unwrap_or_default()
    };
    let text = |field: &str, word: &str, value: String, required: bool| {
        html! {
            p {
                label for={ (id) "-" (field) } { (page.say(word)) } " "
                input id={ (id) "-" (field) } name=(field) value=(value) required[required];
            } "\n"
        }
    };
    let action = match name {
        None => "/manager/conf".to_string(),
        Some(n) => format!("/manager/conf/rp/{}", url_encode(n)),
    };
    let current = o
        .get("oidcRPMetaDataOptionsIDTokenSignAlg")
        .map(value_string)
        .unwrap_or_else(|| "RS256".into());
    html! {
        form method="post" action=(action) id=(id) {
            (ctx.token_field())
            (base_field(base))
            input type="hidden" name="action" value=(id); "\n"
            @if name.is_none() { (text("name", "mgrRpName", String::new(), true)) }
            (text("client_id", "mgrClientId", opt("ClientID"), true))
            (text("display_name", "mgrDisplayName", opt("DisplayName"), false))
            (text("redirect_uris", "mgrRedirectUris", opt("RedirectUris"), true))
            (text("post_logout_uris", "mgrPostLogoutUris", opt("PostLogoutRedirectUris"), false))
            p {
                label for={ (id) "-alg" } { (page.say("mgrIdAlg")) } " "
                select id={ (id) "-alg" } name="id_alg" {
                    @for a in rp_edit::ID_ALGS { option selected[a == current] { (a) } }
                }
            } "\n"
            fieldset {
                legend { (page.say("mgrFlags")) } "\n"
                @for flag in rp_edit::FLAGS {
                    p.check {
                        input type="checkbox" id={ (id) "-" (flag) } name={ "flag_" (flag) } value="1"
                            checked[crate::oidc::options::flag(o, flag).unwrap_or(false)];
                        " " label for={ (id) "-" (flag) } { (flag) }
                    } "\n"
                }
            } "\n"
            (log_field(ctx, id))
            p { button type="submit" { (page.say(if name.is_some() { "mgrSave" } else { "mgrAddRp" })) } }
        } "\n"
    }
}

/// A few main keys: an empty field removes the key (its default applies).
pub fn main_form(ctx: &Ctx, base: u64, doc: &Map<String, Value>) -> Markup {
    let page = ctx.page();
    html! {
        h2 { (page.say("mgrMainKeys")) } "\n"
        form method="post" action="/manager/conf" id="main" {
            (ctx.token_field())
            (base_field(base))
            input type="hidden" name="action" value="main"; "\n"
            p { (page.say("mgrMainKeysHelp")) } "\n"
            @for key in MAIN_KEYS {
                p {
                    label for={ "m-" (key) } { (main_label(page.lang, key)) " " code { (key) } } " "
                    input id={ "m-" (key) } name=(key) value=(doc.get(key).map(value_string).unwrap_or_default());
                } "\n"
            }
            (log_field(ctx, "main"))
            p { button type="submit" { (page.say("mgrSave")) } }
        } "\n"
    }
}

/// A main key's label: the editor's catalogue's, in the page's language.
fn main_label(lang: &str, key: &str) -> &'static str {
    crate::config::catalogue::get(key).map_or("", |e| e.text(lang).label)
}

/// The number a form was drawn from: a save refuses when another one came since.
pub fn base_field(num: u64) -> Markup {
    html! { input type="hidden" name="base" value=(num); }
}

/// The `cfgLog` field of a form (`id`: the form's, for a unique label).
pub fn log_field(ctx: &Ctx, id: &str) -> Markup {
    html! {
        p {
            label for={ (id) "-log" } { (ctx.page().say("mgrLogMsg")) } " "
            input id={ (id) "-log" } name="log";
        } "\n"
    }
}
