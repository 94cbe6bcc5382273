//! The console's notifications page: pending and accepted notifications listed by user and
//! reference; one created from the spec's fields (uid or the wildcard, date, reference,
//! title, subtitle, text, check boxes one a line, the optional condition, which the rules
//! parser must accept before anything is saved), as the notification server's JSON would
//! carry it (`notificationDefaultCond` added); one deleted; one marked done. Each action's
//! next page says what it did (`web::flash`); a refusal is said in the page's language.
use super::{done, Ctx};
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::notifications::store::Record;
use crate::util::url_encode;
use crate::web::flash::Said;
use crate::web::messages::translate;
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
            Ok(()) => Ok(done(
                ctx,
                &format!("/manager/notifications?uid={}", url_encode(&uid)),
                Said::new("mgrNotifCreated")
                    .with("reference", &reference)
                    .with("uid", &uid),
            )),
            Err(refused) => Ok(list(ctx, Some(&refused))),
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
            let said = match n {
                0 => Said::new("mgrNotifNone"),
                _ => Said::new("mgrNotifDeleted"),
            };
            let said = said.with("reference", &reference).with("uid", &uid);
            Ok(done(ctx, "/manager/notifications", said))
        }
        "done" => {
            let marked = store.mark_done(&uid, &reference, crate::util::now())?;
            if marked {
                ctx.audit(
                    "manager_notification_done",
                    &[("uid", &uid), ("reference", &reference)],
                );
            }
            let said = match marked {
                true => Said::new("mgrNotifMarked"),
                false => Said::new("mgrNotifNone"),
            };
            let said = said.with("reference", &reference).with("uid", &uid);
            Ok(done(ctx, "/manager/notifications", said))
        }
        _ => Err(Error::bad("Unknown action")),
    }
}

/// Why the creation form was refused: the field at fault (`None`: the form as a whole) and
/// the message, in the page's language.
struct Refused {
    field: Option<&'static str>,
    message: String,
}

/// The creation form's fields: name, label, input type, required.
pub(super) const FIELDS: [(&str, &str, &str, bool); 8] = [
    ("uid", "mgrUid", "text", true),
    ("date", "mgrDate", "date", true),
    ("reference", "mgrReference", "text", true),
    ("title", "mgrTitle", "text", true),
    ("subtitle", "mgrSubtitle", "text", true),
    ("text", "mgrText", "textarea", true),
    ("check", "mgrChecks", "textarea", true),
    ("condition", "mgrCondition", "text", false),
];

/// Validates the creation form and stores the notification; why not otherwise.
fn create(ctx: &Ctx) -> Result<(), Refused> {
    let page = ctx.page();
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default().trim().to_string();
    for (name, label, _, required) in FIELDS {
        if required && form(name).is_empty() {
            let message = page
                .say_fill("mgrFieldMissing", &[("field", &page.say(label).0)])
                .0;
            return Err(Refused {
                field: Some(name),
                message,
            });
        }
    }
    let condition = form("condition");
    if !condition.is_empty() {
        crate::rules::Rule::parse(&condition).map_err(|e| Refused {
            field: Some("condition"),
            message: page
                .say_fill(
                    "mgrBadCondition",
                    &[("detail", &translate(page.lang, &e.to_string()))],
                )
                .0,
        })?;
    }
    let whole = |message: String| Refused {
        field: None,
        message,
    };
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
    doc.insert("check".into(), json!(checks));
    if !condition.is_empty() {
        doc.insert("condition".into(), json!(condition));
    }
    let settings = ctx.conf.area::<crate::notifications::Settings>();
    let body = Value::Object(doc).to_string();
    let list = crate::notifications::model::parse_json(body.as_bytes(), &settings.default_cond)
        .map_err(|e| whole(translate(page.lang, &e.0)))?;
    let n = crate::notifications::server::insert_all(ctx.app.notifications.as_ref(), &list)
        .map_err(|e| whole(translate(page.lang, &e.to_string())))?;
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

fn list(ctx: &Ctx, refused: Option<&Refused>) -> Response {
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
        @if let Some(r) = refused {
            div class="error" id="msg" role="alert" {
                p {
                    @match r.field {
                        Some(f) => a href={ "#n-" (f) } { (r.message) },
                        None => (r.message),
                    }
                }
            } "\n"
        }
        form method="get" action="/manager/notifications" id="search" {
            "\n"
            p { label for="q-uid" { (page.say("mgrUid")) } " " input id="q-uid" name="uid" value=(uid); } "\n"
            p { label for="q-reference" { (page.say("mgrReference")) } " " input id="q-reference" name="reference" value=(reference); } "\n"
            p { button type="submit" { (page.say("mgrSearch")) } } "\n"
        } "\n"
        table id="notifications" {
            thead { tr {
                th scope="col" { (page.say("mgrUid")) }
                th scope="col" { (page.say("mgrTitle")) }
                th scope="col" { (page.say("mgrDate")) }
                th scope="col" { (page.say("mgrState")) }
                th scope="col" { (page.say("mgrActions")) }
            } }
            tbody { "\n" @for r in shown { (row(ctx, &page, r)) "\n" } }
        } "\n"
        (create_form(ctx, refused))
    };
    ctx.render("mgrNotifications", body)
}

/// One notification of the table (by its title, the reference below), with its actions.
fn row(ctx: &Ctx, page: &Page, r: &Record) -> Markup {
    let action = |what: &str, word: &str| {
        html! {
            form method="post" action="/manager/notifications" class="inline" {
                (ctx.token_field())
                input type="hidden" name="action" value=(what);
                input type="hidden" name="uid" value=(r.uid);
                input type="hidden" name="reference" value=(r.reference);
                button type="submit" class=[(what == "delete").then_some("danger")] aria-label={ (page.say(word)) " " (r.reference) } { (page.say(word)) }
            }
        }
    };
    html! {
        tr {
            td { (r.uid) }
            td.notif-title {
                @if let Some(t) = r.title() { (t) br; }
                small.reference { (r.reference) }
            }
            td { (page.day_markup(&r.date)) }
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

/// The creation form; after a refusal, with every value typed and the error beside its field.
fn create_form(ctx: &Ctx, refused: Option<&Refused>) -> Markup {
    let page = ctx.page();
    let settings = ctx.conf.area::<crate::notifications::Settings>();
    let typed = |k: &str| match refused {
        Some(_) => ctx.req.form_param(k).unwrap_or_default(),
        None => String::new(),
    };
    let at_fault = |k: &str| refused.and_then(|r| (r.field == Some(k)).then_some(&r.message));
    html! {
        h2 { (page.say("mgrCreate")) } "\n"
        form method="post" action="/manager/notifications#create" id="create" {
            (ctx.token_field())
            input type="hidden" name="action" value="create"; "\n"
            p { (page.say_fill("mgrWildcard", &[("wildcard", &settings.wildcard)])) } "\n"
            @for (name, word, kind, required) in FIELDS {
                @let id = format!("n-{name}");
                @let fault = at_fault(name);
                @let hint = format!("hint-{name}");
                p {
                    label for=(id) { (page.say(word)) } " "
                    @if kind == "textarea" {
                        textarea id=(id) name=(name) required[required] aria-invalid=[fault.map(|_| "true")] aria-describedby=[fault.map(|_| &hint)] { (typed(name)) }
                    } @else {
                        input id=(id) name=(name) type=(kind) required[required] value=(typed(name)) aria-invalid=[fault.map(|_| "true")] aria-describedby=[fault.map(|_| &hint)];
                    }
                    @if let Some(m) = fault { " " span class="hint" id=(hint) { (m) } }
                } "\n"
            }
            p { button type="submit" { (page.say("mgrCreate")) } } "\n"
        } "\n"
    }
}
