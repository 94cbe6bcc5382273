//! The forms of the configuration pages: the relying-party form (to add one or edit its
//! options), the main keys, the comparison of two versions, and the hidden and log fields
//! every saving form carries. HTML only; `conf_edit` reads what they post.
use super::Ctx;
use crate::config::value_string;
use crate::oidc::rp_edit;
use crate::util::{html_escape, url_encode};
use serde_json::{Map, Value};

/// The main keys the console's form edits: an empty field removes the key.
pub const MAIN_KEYS: [&str; 3] = ["portal", "domain", "timeout"];

/// The comparison form (a GET: it changes nothing).
pub fn diff_form(ctx: &Ctx, nums: &[u64]) -> String {
    let page = ctx.page();
    let select = |name: &str, word: &str, pick: Option<u64>| {
        let mut s = format!(
            "<label for=\"d-{name}\">{}</label> <select id=\"d-{name}\" name=\"{name}\">",
            page.word(word)
        );
        for n in nums {
            let sel = if Some(*n) == pick { " selected" } else { "" };
            s.push_str(&format!("<option{sel}>{n}</option>"));
        }
        s.push_str("</select>");
        s
    };
    format!(
        "<h2>{}</h2>\n<form method=\"get\" action=\"/manager/conf/diff\" id=\"compare\"><p>{} {}</p>\
         <p><button type=\"submit\">{}</button></p></form>\n",
        page.word("mgrDiff"),
        select("from", "mgrFrom", nums.get(1).copied()),
        select("to", "mgrTo", nums.first().copied()),
        page.word("mgrCompare"),
    )
}

/// The relying-party form: `name` is `None` to add one.
pub fn rp_form(ctx: &Ctx, base: u64, name: Option<&str>, o: &Map<String, Value>) -> String {
    let page = ctx.page();
    let id = if name.is_some() { "edit" } else { "add" };
    let opt = |s: &str| {
        html_escape(
            &o.get(&format!("oidcRPMetaDataOptions{s}"))
                .map(value_string)
                .unwrap_or_default(),
        )
    };
    let text = |field: &str, word: &str, value: String, required: bool| {
        format!(
            "<p><label for=\"{id}-{field}\">{}</label> <input id=\"{id}-{field}\" name=\"{field}\" value=\"{value}\"{}></p>\n",
            page.word(word),
            if required { " required" } else { "" }
        )
    };
    let (action, mut form) = match name {
        None => (
            "/manager/conf".to_string(),
            text("name", "mgrRpName", String::new(), true),
        ),
        Some(n) => (format!("/manager/conf/rp/{}", url_encode(n)), String::new()),
    };
    form.push_str(&text("client_id", "mgrClientId", opt("ClientID"), true));
    form.push_str(&text(
        "display_name",
        "mgrDisplayName",
        opt("DisplayName"),
        false,
    ));
    form.push_str(&text(
        "redirect_uris",
        "mgrRedirectUris",
        opt("RedirectUris"),
        true,
    ));
    form.push_str(&text(
        "post_logout_uris",
        "mgrPostLogoutUris",
        opt("PostLogoutRedirectUris"),
        false,
    ));
    let current = o
        .get("oidcRPMetaDataOptionsIDTokenSignAlg")
        .map(value_string)
        .unwrap_or_else(|| "RS256".into());
    let mut algs = String::new();
    for a in rp_edit::ID_ALGS {
        let sel = if a == current { " selected" } else { "" };
        algs.push_str(&format!("<option{sel}>{a}</option>"));
    }
    form.push_str(&format!(
        "<p><label for=\"{id}-alg\">{}</label> <select id=\"{id}-alg\" name=\"id_alg\">{algs}</select></p>\n<fieldset><legend>{}</legend>\n",
        page.word("mgrIdAlg"),
        page.word("mgrFlags"),
    ));
    for flag in rp_edit::FLAGS {
        let on = crate::oidc::options::flag(o, flag).unwrap_or(false);
        form.push_str(&format!(
            "<p><input type=\"checkbox\" id=\"{id}-{flag}\" name=\"flag_{flag}\" value=\"1\"{}> <label for=\"{id}-{flag}\">{flag}</label></p>\n",
            if on { " checked" } else { "" }
        ));
    }
    form.push_str("</fieldset>\n");
    format!(
        "<form method=\"post\" action=\"{action}\" id=\"{id}\">{}{}\
         <input type=\"hidden\" name=\"action\" value=\"{id}\">\n{form}{}<p><button type=\"submit\">{}</button></p></form>\n",
        ctx.token_field(),
        base_field(base),
        log_field(ctx, id),
        page.word(if name.is_some() { "mgrSave" } else { "mgrAddRp" }),
    )
}

/// A few main keys: an empty field removes the key (its default applies).
pub fn main_form(ctx: &Ctx, base: u64, doc: &Map<String, Value>) -> String {
    let page = ctx.page();
    let mut form = format!(
        "<h2>{}</h2>\n<form method=\"post\" action=\"/manager/conf\" id=\"main\">{}{}\
         <input type=\"hidden\" name=\"action\" value=\"main\">\n<p>{}</p>\n",
        page.word("mgrMainKeys"),
        ctx.token_field(),
        base_field(base),
        page.word("mgrMainKeysHelp"),
    );
    for key in MAIN_KEYS {
        let value = doc.get(key).map(value_string).unwrap_or_default();
        form.push_str(&format!(
            "<p><label for=\"m-{key}\">{key}</label> <input id=\"m-{key}\" name=\"{key}\" value=\"{}\"></p>\n",
            html_escape(&value)
        ));
    }
    form.push_str(&log_field(ctx, "main"));
    form.push_str(&format!(
        "<p><button type=\"submit\">{}</button></p></form>\n",
        page.word("mgrSave")
    ));
    form
}

/// The number a form was drawn from: a save refuses when another one came since.
pub fn base_field(num: u64) -> String {
    format!("<input type=\"hidden\" name=\"base\" value=\"{num}\">")
}

/// The `cfgLog` field of a form (`id`: the form's, for a unique label).
pub fn log_field(ctx: &Ctx, id: &str) -> String {
    format!(
        "<p><label for=\"{id}-log\">{}</label> <input id=\"{id}-log\" name=\"log\"></p>\n",
        ctx.page().word("mgrLogMsg")
    )
}

/// "Saved as N" after a redirect (`?saved=N`).
pub fn saved_notice(ctx: &Ctx) -> String {
    match ctx
        .req
        .query_param("saved")
        .filter(|s| s.parse::<u64>().is_ok())
    {
        Some(num) => format!(
            "<p id=\"saved\" role=\"status\">{}</p>\n",
            ctx.page().fill("mgrSaved", &[("num", &num)])
        ),
        None => String::new(),
    }
}
