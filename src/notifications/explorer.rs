//! The notification explorer (`notificationsExplorer`): `/mynotifications` lists the connected
//! user's accepted notifications (persistent-session keys `notification_<ref>`) by title with
//! the reference below, most recent first, at most `notificationsMaxRetrieve`;
//! `/mynotifications/<ref>?epoch=<epoch>` shows one with its boxes checked and disabled.
//! Without a session: to the login page, then back.
use super::form::frame;
use super::store::{readable, trace};
use crate::app::App;
use crate::config::{as_i64, Conf};
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Request, Response};
use crate::sso::CookieState;
use crate::web::page::Word;
use base64::Engine;
use maud::html;
use serde_json::{json, Map, Value};

/// Serves `/mynotifications` and `/mynotifications/<ref>`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if !conf.area::<crate::notifications::Settings>().explorer {
        return Err(Error::not_found("Not found"));
    }
    if !req.method.is_read() && req.method != crate::http::Method::Post {
        return Err(Error::MethodNotAllowed);
    }
    let CookieState::Valid(s) =
        crate::sso::from_cookie(app, conf, crate::web::cookies::sso_id(conf, req).as_deref())?
    else {
        let back = format!("{}mynotifications", conf.portal);
        let b64 = base64::engine::general_purpose::STANDARD.encode(back);
        return Ok(Response::redirect(&format!(
            "{}?url={}",
            conf.portal,
            crate::util::url_encode(&b64)
        )));
    };
    let (_, persistent) = crate::sso::persistent(app, &trace(&s))?;
    let segs = req.segments_after("/mynotifications");
    match segs.as_slice() {
        [] => {
            let max = conf.area::<crate::notifications::Settings>().max_retrieve;
            let items = titled(app, conf, &s, accepted(&persistent, max));
            let frame = frame(conf, req, &s).with_header(ctx.account_bar(&s));
            Ok(list(&frame, req, &items))
        }
        [reference] => one(
            app,
            conf,
            req,
            &s,
            &persistent,
            reference,
            ctx.account_bar(&s),
        ),
        _ => Err(Error::not_found("Not found")),
    }
}

/// Accepted references with their epochs, most recent first, then by reference; at most `max`.
pub fn accepted(persistent: &Map<String, Value>, max: usize) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = persistent
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("notification_")?.to_string(), as_i64(v)?)))
        .collect();
    crate::util::sort::sort_by(&mut out, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.truncate(max);
    out
}

/// An accepted notification of the list: reference, epoch and the stored notification's title.
type Item = (String, i64, Option<String>);

/// The accepted references with the titles of their notifications (the user's own, else the
/// all-users one); no title when neither is stored any more.
fn titled(
    app: &App,
    conf: &Conf,
    s: &crate::storage::Session,
    items: Vec<(String, i64)>,
) -> Vec<Item> {
    let uid = trace(s);
    let wildcard = &conf.area::<crate::notifications::Settings>().wildcard;
    let title = |r: &str| -> Option<String> {
        let own = app.notifications.get(&uid, r).ok().flatten();
        let record = own.or_else(|| app.notifications.get(wildcard, r).ok().flatten())?;
        record.title()
    };
    items
        .into_iter()
        .map(|(r, e)| {
            let t = title(&r);
            (r, e, t)
        })
        .collect()
}

fn list(page: &crate::web::Page, req: &Request, items: &[Item]) -> Response {
    let msg = match items.len() {
        0 => "noNotification",
        1 => "myNotification",
        _ => "myNotifications",
    };
    if req.wants_json() {
        let list: Vec<Value> = items
            .iter()
            .map(|(r, e, _)| json!({"reference": r, "epoch": e}))
            .collect();
        let result = if items.is_empty() { 0 } else { 1 };
        return Response::json(
            200,
            &json!({"result": result, "MSG": msg, "NOTIFICATIONS": list}),
        );
    }
    let body = html! {
        h1 id="msg" trspan=(msg) { (page.say(msg)) } "\n"
        @if !items.is_empty() {
            table class="table" {
                thead { tr {
                    th scope="col" { (page.say("date")) }
                    th scope="col" { (page.say("notificationTitle")) }
                    th scope="col" { (page.say("actions")) }
                } } "\n"
                tbody {
                    "\n"
                    @for (r, e, title) in items {
                        tr {
                            td class="data-epoch" data-epoch=(e) { (page.date_text(*e)) }
                            td.notif-title {
                                @if let Some(t) = title { (t) br; }
                                small.reference { (r) }
                            }
                            td { a class="button" href={ "/mynotifications/" (crate::util::url_encode(r)) "?epoch=" (e) } {
                                (page.say_fill("verifyRef", &[("ref", r)]))
                            } }
                        } "\n"
                    }
                }
            } "\n"
        }
        p { a class="button secondary" href="/" { (page.say("goToPortal")) } }
    };
    Response::html(200, page.render_markup(&page.raw(msg), body))
}

fn one(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &crate::storage::Session,
    persistent: &Map<String, Value>,
    reference: &str,
    bar: Option<crate::web::page::Header>,
) -> Result<Response> {
    let Some(epoch) = req.query_param("epoch") else {
        return Err(Error::bad("Missing epoch parameter"));
    };
    let found = accepted_notification(app, conf, s, persistent, reference, epoch.trim())?;
    let fragment = found.map(|n| super::form::fragment(1, &n, super::form::Boxes::Done));
    if req.wants_json() {
        return Ok(Response::json(
            200,
            &match fragment {
                Some(f) => json!({"result": 1, "notification": f.0}),
                None => json!({"result": 0, "notification": "0"}),
            },
        ));
    }
    let Some(f) = fragment else {
        return Err(Error::not_found("Unknown notification"));
    };
    let page = frame(conf, req, s).with_header(bar);
    let title = crate::web::messages::fill(&page.raw("notificationRef"), &[("ref", reference)]);
    let when = epoch
        .trim()
        .parse()
        .map(|e| page.date_text(e).0)
        .unwrap_or_default();
    let body = html! {
        h1 { (Word(title.clone())) } "\n"
        p class="accepted" { (page.say_fill("acceptedOn", &[("date", &when)])) } "\n"
        div class="notif-detail" { (f) }
        p { a class="button secondary" href="/mynotifications" { (page.say("back")) } }
    };
    Ok(Response::html(200, page.render_markup(&title, body)))
}

/// The notification `reference` the user accepted at `epoch`, when the persistent session
/// records that acceptance and the notification is still stored (own or all-users).
fn accepted_notification(
    app: &App,
    conf: &Conf,
    s: &crate::storage::Session,
    persistent: &Map<String, Value>,
    reference: &str,
    epoch: &str,
) -> Result<Option<super::model::Notification>> {
    let stored = persistent
        .get(&super::accept::accepted_key(reference))
        .and_then(as_i64);
    if stored.is_none() || stored != epoch.parse().ok() {
        return Ok(None);
    }
    let uid = trace(s);
    let record = match app.notifications.get(&uid, reference)? {
        Some(r) => Some(r),
        None => app.notifications.get(
            &conf.area::<crate::notifications::Settings>().wildcard,
            reference,
        )?,
    };
    Ok(record.as_ref().and_then(readable))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_recent_first_and_capped() {
        let p = json!({"notification_A": 10, "notification_B": 30, "notification_C": 20, "notification_D": 30, "other": 99});
        let got = accepted(p.as_object().unwrap(), 3);
        assert_eq!(
            got,
            vec![
                ("B".to_string(), 30),
                ("D".to_string(), 30),
                ("C".to_string(), 20)
            ]
        );
    }
}
