//! The console's notifications page: pending and accepted notifications listed by user and
//! reference; one created from the spec's fields (uid or the wildcard, date, reference,
//! title, subtitle, text, check boxes one a line, the optional condition, which the rules
//! parser must accept before anything is saved), as the notification server's JSON would
//! carry it (`notificationDefaultCond` added); one deleted; one marked done.
use super::{done, Ctx};
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::notifications::store::Record;
use crate::util::{html_escape, url_encode};
use serde_json::{json, Map, Value};

/// Serves `/manager/notifications`.
pub fn handle(ctx: &Ctx, rest: &[String]) -> Result<Response> {
    if !rest.is_empty() {
        return Err(Error::not_found("Not found"));
    }
    if ctx.req.method != Method::Post {
        return Ok(list(ctx, None));
    }
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default();
    let store = ctx.app.notifications.as_ref();
    let (uid, reference) = (form("uid"), form("reference"));
    match form("action").as_str() {
        "create" => match create(ctx) {
            Ok(()) => Ok(done(&format!(
                "/manager/notifications?uid={}",
                url_encode(&uid)
            ))),
            Err(msg) => Ok(list(ctx, Some(&msg))),
        },
        "delete" => {
            let n = store.delete(&uid, &reference)?;
            ctx.audit(
                "manager_notification_delete",
                &[
                    ("uid", &uid),
                    ("reference", &reference),
                    ("count", &n.to_string()),
                ],
            );
            Ok(done("/manager/notifications"))
        }
        "done" => {
            let marked = store.mark_done(&uid, &reference, crate::util::now())?;
            if marked {
                ctx.audit(
                    "manager_notification_done",
                    &[("uid", &uid), ("reference", &reference)],
                );
            }
            Ok(done("/manager/notifications"))
        }
        _ => Err(Error::bad("Unknown action")),
    }
}

/// Validates the creation form and stores the notification; the message to show otherwise.
fn create(ctx: &Ctx) -> Result<(), String> {
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default().trim().to_string();
    let condition = form("condition");
    if !condition.is_empty() {
        crate::rules::Rule::parse(&condition).map_err(|e| format!("condition: {e}"))?;
    }
    let mut doc = Map::new();
    for k in ["uid", "date", "reference", "title", "subtitle", "text"] {
        doc.insert(k.into(), json!(form(k)));
    }
    let checks: Vec<String> = form("check")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    if !checks.is_empty() {
        doc.insert("check".into(), json!(checks));
    }
    if !condition.is_empty() {
        doc.insert("condition".into(), json!(condition));
    }
    for k in ["title", "subtitle", "text", "check"] {
        if form(k).is_empty() {
            return Err(format!("Attribute {k} is missing"));
        }
    }
    let settings = ctx.conf.area::<crate::notifications::Settings>();
    let body = Value::Object(doc).to_string();
    let list = crate::notifications::model::parse_json(body.as_bytes(), &settings.default_cond)
        .map_err(|e| e.0)?;
    let n = crate::notifications::server::insert_all(ctx.app.notifications.as_ref(), &list)
        .map_err(|e| e.to_string())?;
    ctx.audit(
        "manager_notification_insert",
        &[
            ("uid", &form("uid")),
            ("reference", &form("reference")),
            ("count", &n.to_string()),
        ],
    );
    Ok(())
}

fn list(ctx: &Ctx, error: Option<&str>) -> Response {
    let page = ctx.page();
    let q = |k: &str| ctx.req.query_param(k).unwrap_or_default();
    let (uid, reference) = (q("uid"), q("reference"));
    let mut body = String::new();
    if let Some(msg) = error {
        body.push_str(&format!(
            "<div class=\"error\" id=\"msg\" role=\"alert\"><p>{}</p></div>\n",
            html_escape(msg)
        ));
    }
    body.push_str(&format!(
        "<form method=\"get\" action=\"/manager/notifications\" id=\"search\">\n\
         <p><label for=\"q-uid\">{}</label> <input id=\"q-uid\" name=\"uid\" value=\"{}\"></p>\n\
         <p><label for=\"q-reference\">{}</label> <input id=\"q-reference\" name=\"reference\" value=\"{}\"></p>\n\
         <p><button type=\"submit\">{}</button></p>\n</form>\n",
        page.word("mgrUid"),
        html_escape(&uid),
        page.word("mgrReference"),
        html_escape(&reference),
        page.word("mgrSearch"),
    ));
    let records = match ctx.app.notifications.all() {
        Ok(all) => all,
        Err(e) => {
            crate::log::error(&format!("console: notifications: {e}"));
            Vec::new()
        }
    };
    let shown: Vec<&Record> = records
        .iter()
        .filter(|r| r.uid.contains(uid.trim()) && r.reference.contains(reference.trim()))
        .collect();
    body.push_str(&format!(
        "<table id=\"notifications\"><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>\n",
        page.word("mgrUid"),
        page.word("mgrReference"),
        page.word("mgrDate"),
        page.word("mgrState"),
        page.word("mgrActions"),
    ));
    for r in shown {
        let state = match r.done {
            Some(t) => format!("{} {}", page.word("mgrAccepted"), page.time(t)),
            None => page.word("mgrPending"),
        };
        let action = |what: &str, word: &str| {
            format!(
                "<form method=\"post\" action=\"/manager/notifications\" class=\"inline\">{}\
                 <input type=\"hidden\" name=\"action\" value=\"{what}\">\
                 <input type=\"hidden\" name=\"uid\" value=\"{}\">\
                 <input type=\"hidden\" name=\"reference\" value=\"{}\">\
                 <button type=\"submit\" aria-label=\"{} {}\">{}</button></form>",
                ctx.token_field(),
                html_escape(&r.uid),
                html_escape(&r.reference),
                page.word(word),
                html_escape(&r.reference),
                page.word(word),
            )
        };
        let mut actions = action("delete", "mgrDelete");
        if r.done.is_none() {
            actions.push_str(&action("done", "mgrMarkDone"));
        }
        body.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{state}</td><td>{actions}</td></tr>\n",
            html_escape(&r.uid),
            html_escape(&r.reference),
            html_escape(&r.date),
        ));
    }
    body.push_str("</tbody></table>\n");
    body.push_str(&create_form(ctx));
    ctx.render("mgrNotifications", &body)
}

fn create_form(ctx: &Ctx) -> String {
    let page = ctx.page();
    let settings = ctx.conf.area::<crate::notifications::Settings>();
    let field = |name: &str, word: &str, kind: &str, required: bool| {
        let req = if required { " required" } else { "" };
        let input = match kind {
            "textarea" => format!("<textarea id=\"n-{name}\" name=\"{name}\"{req}></textarea>"),
            _ => format!("<input id=\"n-{name}\" name=\"{name}\" type=\"{kind}\"{req}>"),
        };
        format!(
            "<p><label for=\"n-{name}\">{}</label> {input}</p>\n",
            page.word(word)
        )
    };
    let mut form = format!(
        "<h2>{}</h2>\n<form method=\"post\" action=\"/manager/notifications\" id=\"create\">{}\
         <input type=\"hidden\" name=\"action\" value=\"create\">\n<p>{}</p>\n",
        page.word("mgrCreate"),
        ctx.token_field(),
        page.fill(
            "mgrWildcard",
            &[("wildcard", &html_escape(&settings.wildcard))]
        ),
    );
    for (name, word, kind, required) in [
        ("uid", "mgrUid", "text", true),
        ("date", "mgrDate", "date", true),
        ("reference", "mgrReference", "text", true),
        ("title", "mgrTitle", "text", true),
        ("subtitle", "mgrSubtitle", "text", true),
        ("text", "mgrText", "textarea", true),
        ("check", "mgrChecks", "textarea", true),
        ("condition", "mgrCondition", "text", false),
    ] {
        form.push_str(&field(name, word, kind, required));
    }
    form.push_str(&format!(
        "<p><button type=\"submit\">{}</button></p>\n</form>\n",
        page.word("mgrCreate")
    ));
    form
}
