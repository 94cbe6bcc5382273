//! The console's notifications page: pending and accepted notifications listed by user and
//! reference; one created from the spec's fields (uid or the wildcard, date, reference,
//! title, subtitle, text, check boxes one a line, the optional condition, which the rules
//! parser must accept before anything is saved), as the notification server's JSON would
//! carry it (`notificationDefaultCond` added); one deleted; one marked done.
use super::{alert, done, Ctx};
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::notifications::store::Record;
use crate::util::url_encode;
use crate::web::Page;
use maud::{html, Markup};
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
    let body = html! {
        @if let Some(msg) = error { (alert(msg)) }
        form method="get" action="/manager/notifications" id="search" {
            "\n"
            p { label for="q-uid" { (page.say("mgrUid")) } " " input id="q-uid" name="uid" value=(uid); } "\n"
            p { label for="q-reference" { (page.say("mgrReference")) } " " input id="q-reference" name="reference" value=(reference); } "\n"
            p { button type="submit" { (page.say("mgrSearch")) } } "\n"
        } "\n"
        table id="notifications" {
            thead { tr {
                th scope="col" { (page.say("mgrUid")) }
                th scope="col" { (page.say("mgrReference")) }
                th scope="col" { (page.say("mgrDate")) }
                th scope="col" { (page.say("mgrState")) }
                th scope="col" { (page.say("mgrActions")) }
            } }
            tbody { "\n" @for r in shown { (row(ctx, &page, r)) "\n" } }
        } "\n"
        (create_form(ctx))
    };
    ctx.render("mgrNotifications", body)
}

/// One notification of the table, with its actions.
fn row(ctx: &Ctx, page: &Page, r: &Record) -> Markup {
    let action = |what: &str, word: &str| {
        html! {
            form method="post" action="/manager/notifications" class="inline" {
                (ctx.token_field())
                input type="hidden" name="action" value=(what);
                input type="hidden" name="uid" value=(r.uid);
                input type="hidden" name="reference" value=(r.reference);
                button type="submit" aria-label={ (page.say(word)) " " (r.reference) } { (page.say(word)) }
            }
        }
    };
    html! {
        tr {
            td { (r.uid) }
            td { (r.reference) }
            td { (r.date) }
            td {
                @match r.done {
                    Some(t) => { (page.say("mgrAccepted")) " " (page.time_markup(t)) },
                    None => (page.say("mgrPending")),
                }
            }
            td {
                (action("delete", "mgrDelete"))
                @if r.done.is_none() { (action("done", "mgrMarkDone")) }
            }
        }
    }
}

fn create_form(ctx: &Ctx) -> Markup {
    let page = ctx.page();
    let settings = ctx.conf.area::<crate::notifications::Settings>();
    let fields = [
        ("uid", "mgrUid", "text", true),
        ("date", "mgrDate", "date", true),
        ("reference", "mgrReference", "text", true),
        ("title", "mgrTitle", "text", true),
        ("subtitle", "mgrSubtitle", "text", true),
        ("text", "mgrText", "textarea", true),
        ("check", "mgrChecks", "textarea", true),
        ("condition", "mgrCondition", "text", false),
    ];
    html! {
        h2 { (page.say("mgrCreate")) } "\n"
        form method="post" action="/manager/notifications" id="create" {
            (ctx.token_field())
            input type="hidden" name="action" value="create"; "\n"
            p { (page.say_fill("mgrWildcard", &[("wildcard", &settings.wildcard)])) } "\n"
            @for (name, word, kind, required) in fields {
                p {
                    label for={ "n-" (name) } { (page.say(word)) } " "
                    @if kind == "textarea" {
                        textarea id={ "n-" (name) } name=(name) required[required] {}
                    } @else {
                        input id={ "n-" (name) } name=(name) type=(kind) required[required];
                    }
                } "\n"
            }
            p { button type="submit" { (page.say("mgrCreate")) } } "\n"
        } "\n"
    }
}
