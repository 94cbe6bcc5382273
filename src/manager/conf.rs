//! The console's configuration pages (LemonLDAP::NG's manager serves them under `/confs`):
//! the latest version's metadata, the numbers available, one version's keys (secrets hidden
//! by the one redaction, `config::redact`), the difference between two
//! versions (`config::diff`), one relying party's page, and the forms that save a new number,
//! whose posts `conf_edit` answers (it draws these pages again with its message; the
//! console's `conf_routes` routes both).
use super::conf_forms::{base_field, diff_form, log_field, main_form, rp_form, saved_notice};
use super::Ctx;
use crate::config::diff::{self, Change};
use crate::config::redact;
use crate::config::support::is_secret;
use crate::config::{as_i64, value_string};
use crate::error::{Error, Result};
use crate::http::Response;
use crate::oidc::rp_edit;
use crate::storage::save::META_KEYS;
use crate::util::{html_escape, url_encode};
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
pub fn index(ctx: &Ctx, top: &str) -> Result<Response> {
    let page = ctx.page();
    let (num, doc) = latest(ctx)?;
    let mut nums = ctx.app.confs.numbers()?;
    nums.reverse();
    let mut body = top.to_string();
    body.push_str(&saved_notice(ctx));
    body.push_str(&format!("<h2>{}</h2>\n", page.word("mgrLatest")));
    body.push_str(&metadata(ctx, num, &doc));
    body.push_str(&format!(
        "<h2>{}</h2>\n<ul id=\"versions\">",
        page.word("mgrVersions")
    ));
    for n in &nums {
        body.push_str(&format!("<li><a href=\"/manager/conf/{n}\">{n}</a></li>"));
    }
    body.push_str("</ul>\n");
    body.push_str(&diff_form(ctx, &nums));
    body.push_str(&format!(
        "<h2>{}</h2>\n<table id=\"rps\"><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>\n",
        page.word("mgrRps"),
        page.word("mgrRpName"),
        page.word("mgrClientId"),
        page.word("mgrDisplayName"),
    ));
    for (name, o) in rp_edit::rps(&doc) {
        let opt = |s: &str| {
            o.get(&format!("oidcRPMetaDataOptions{s}"))
                .map(value_string)
                .unwrap_or_default()
        };
        body.push_str(&format!(
            "<tr><td><a href=\"/manager/conf/rp/{}\">{}</a></td><td>{}</td><td>{}</td></tr>\n",
            url_encode(&name),
            html_escape(&name),
            html_escape(&opt("ClientID")),
            html_escape(&opt("DisplayName")),
        ));
    }
    body.push_str("</tbody></table>\n");
    body.push_str(&format!("<h2>{}</h2>\n", page.word("mgrAddRp")));
    body.push_str(&rp_form(ctx, num, None, &Map::new()));
    body.push_str(&main_form(ctx, num, &doc));
    body.push_str(&format!(
        "<h2>{}</h2>\n<form method=\"post\" action=\"/manager/conf\" id=\"rotate\">{}{}\
         <input type=\"hidden\" name=\"action\" value=\"rotate\">{}\
         <p><button type=\"submit\">{}</button></p></form>\n",
        page.word("mgrRotateKeys"),
        ctx.token_field(),
        base_field(num),
        log_field(ctx, "rotate"),
        page.word("mgrRotateKeys"),
    ));
    Ok(ctx.render("mgrConf", &body))
}

/// One relying party's page: its options form, one option, a new secret, deletion.
pub fn rp_page(ctx: &Ctx, name: &str, top: &str) -> Result<Response> {
    let page = ctx.page();
    let (num, doc) = latest(ctx)?;
    let Some((_, o)) = rp_edit::rps(&doc).into_iter().find(|(n, _)| n == name) else {
        return Err(Error::not_found("No such relying party"));
    };
    let action = format!("/manager/conf/rp/{}", url_encode(name));
    let form = |id: &str, act: &str, inner: &str, button: &str| {
        format!(
            "<form method=\"post\" action=\"{action}\" id=\"{id}\">{}{}\
             <input type=\"hidden\" name=\"action\" value=\"{act}\">{inner}{}\
             <p><button type=\"submit\">{}</button></p></form>\n",
            ctx.token_field(),
            base_field(num),
            log_field(ctx, id),
            page.word(button)
        )
    };
    let mut body = top.to_string();
    body.push_str(&saved_notice(ctx));
    body.push_str(&format!("<h2>{}</h2>\n", html_escape(name)));
    body.push_str(&rp_form(ctx, num, Some(name), &o));
    let mut select = String::new();
    for short in rp_edit::editable_options() {
        select.push_str(&format!("<option>{short}</option>"));
    }
    let inner = format!(
        "<p><label for=\"o-key\">{}</label> <select id=\"o-key\" name=\"key\">{select}</select></p>\
         <p><label for=\"o-value\">{}</label> <input id=\"o-value\" name=\"value\"></p>",
        page.word("mgrOption"),
        page.word("mgrValue"),
    );
    body.push_str(&format!("<h2>{}</h2>\n", page.word("mgrSetOption")));
    body.push_str(&form("option", "option", &inner, "mgrSetOption"));
    body.push_str(&format!("<h2>{}</h2>\n", page.word("mgrNewSecret")));
    body.push_str(&form("secret", "secret", "", "mgrNewSecret"));
    body.push_str(&format!("<h2>{}</h2>\n", page.word("mgrDeleteRp")));
    body.push_str(&form("delete", "delete", "", "mgrDeleteRp"));
    Ok(ctx.render("mgrConf", &body))
}

/// `/manager/conf/<num>`: the metadata, every key by path, and the form that rolls back to it.
pub fn version(ctx: &Ctx, num: &str) -> Result<Response> {
    let page = ctx.page();
    let num: u64 = num.parse().map_err(|_| Error::not_found("Not found"))?;
    let doc = crate::config_proxy::view::load(ctx.app.confs.as_ref(), num, false)?;
    let latest = ctx.app.confs.latest()?.unwrap_or(num);
    let mut body = metadata(ctx, num, &doc);
    if num != latest {
        body.push_str(&format!(
            "<form method=\"post\" action=\"/manager/conf\" id=\"rollback\">{}{}\
             <input type=\"hidden\" name=\"action\" value=\"rollback\">\
             <input type=\"hidden\" name=\"num\" value=\"{num}\">{}\
             <p><button type=\"submit\">{}</button></p></form>\n",
            ctx.token_field(),
            base_field(latest),
            log_field(ctx, "rollback"),
            page.fill("mgrRollback", &[("num", &num.to_string())]),
        ));
    }
    body.push_str(&format!(
        "<table id=\"keys\"><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>\n",
        page.word("mgrKey"),
        page.word("mgrValue")
    ));
    let mut rows = Vec::new();
    flatten(&doc, "", false, &mut rows);
    for (path, value) in rows {
        let shown = value.map_or_else(|| page.word("mgrSecretHidden"), |v| html_escape(&v));
        body.push_str(&format!(
            "<tr><td>{}</td><td>{shown}</td></tr>\n",
            html_escape(&path)
        ));
    }
    body.push_str("</tbody></table>\n");
    Ok(ctx.render("mgrConf", &body))
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
    let mut body = diff_form(ctx, &nums);
    body.push_str(&format!(
        "<h2>{}</h2>\n",
        page.fill(
            "mgrDiffOf",
            &[("from", &from.to_string()), ("to", &to.to_string())]
        )
    ));
    if lines.is_empty() {
        body.push_str(&format!(
            "<p id=\"nodiff\">{}</p>\n",
            page.word("mgrNoDiff")
        ));
    }
    body.push_str(&format!(
        "<table id=\"diff\"><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>\n",
        page.word("mgrKey"),
        page.word("mgrChange"),
        page.fill("mgrIn", &[("num", &from.to_string())]),
        page.fill("mgrIn", &[("num", &to.to_string())]),
    ));
    for l in lines {
        let (class, word) = match l.change {
            Change::Added => ("added", "mgrAdded"),
            Change::Removed => ("removed", "mgrRemoved"),
            Change::Changed => ("changed", "mgrChanged"),
        };
        let secret = l.old.is_none() && l.new.is_none();
        let cell = |v: Option<String>| match v {
            Some(v) => html_escape(&v),
            None if secret => page.word("mgrSecretHidden"),
            None => String::new(),
        };
        body.push_str(&format!(
            "<tr class=\"{class}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            html_escape(&l.path),
            page.word(word),
            cell(l.old),
            cell(l.new),
        ));
    }
    body.push_str("</tbody></table>\n");
    Ok(ctx.render("mgrConf", &body))
}

/// The six `cfg*` fields of a version.
fn metadata(ctx: &Ctx, num: u64, doc: &Map<String, Value>) -> String {
    let page = ctx.page();
    let text = |k: &str| html_escape(&doc.get(k).map(value_string).unwrap_or_default());
    let date = doc
        .get("cfgDate")
        .and_then(as_i64)
        .map(|d| page.time(d))
        .unwrap_or_default();
    let rows = [
        ("cfgNum", "mgrConfNum", num.to_string()),
        ("cfgAuthor", "mgrAuthor", text("cfgAuthor")),
        ("cfgAuthorIP", "mgrAuthorIP", text("cfgAuthorIP")),
        ("cfgDate", "mgrDate", date),
        ("cfgLog", "mgrLogMsg", text("cfgLog")),
        ("cfgVersion", "mgrVersion", text("cfgVersion")),
    ];
    let mut out = String::from("<table class=\"meta\"><tbody>\n");
    for (id, word, value) in rows {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td class=\"{id}\">{value}</td></tr>\n",
            page.word(word)
        ));
    }
    out.push_str("</tbody></table>\n");
    out
}

/// Every leaf of `doc` by path; `None` for a secret's value.
fn flatten(
    doc: &Map<String, Value>,
    at: &str,
    hidden: bool,
    out: &mut Vec<(String, Option<String>)>,
) {
    let mut entries: Vec<(&String, &Value)> = doc.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
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
