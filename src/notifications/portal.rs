//! Notifications at login: after a successful login and before the SSO cookie is released,
//! the user's due notifications are shown in one form; the login waits as a pending record
//! (see `sso::pending`) named by its own cookie until every box is checked. Also serves
//! `/notifback` (the form's answer, `?cancel=1`) and hands `/mynotifications` to `explorer`.
use super::accept;
use super::form::frame;
use super::model::Notification;
use super::store::{readable, trace};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use crate::sso::pending;
use crate::storage::{Kind, Session};
use crate::web::cookies;
use serde_json::json;

/// Called after a successful login: when notifications are due, stores the login as pending
/// and answers with the form (HTML) or portal error 36 (JSON); no SSO cookie either way.
pub fn intercept(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &Session,
    url: Option<&str>,
) -> Result<Option<Response>> {
    if !conf.area::<crate::notifications::Settings>().enabled {
        return Ok(None);
    }
    let list = due_for(app, conf, s)?;
    if list.is_empty() {
        return Ok(None);
    }
    let p = pending::create(app, conf, s.clone(), url)?;
    let cookie = cookies::portal_cookie(conf, pending::COOKIE, &p.id, false);
    let resp = if req.wants_json() {
        Response::json(
            400,
            &json!({"result": 0, "error": "36", "ciphered_id": p.id}),
        )
    } else {
        let frame = frame(conf, req, s);
        let html = super::form::page(&frame, &list, &pending::token(conf, &p.id), None);
        with_target(Response::html(200, html), url)
    };
    Ok(Some(resp.with_cookie(&cookie)))
}

/// The portal's release of a held login once every notification is accepted: stores the SSO
/// session and answers with its cookie (`portal::login::release`, given by the router).
pub type Release = fn(&App, &Conf, &Request, &Session, Option<&str>) -> Result<Response>;

/// Serves `/notifback` and `/mynotifications...`; `release` lets an accepted login through.
pub fn handle(app: &App, req: &Request, conf: &Conf, release: Release) -> Result<Response> {
    if req.path.starts_with("/mynotifications") {
        return super::explorer::handle(app, req, conf);
    }
    if req.path != "/notifback" || !conf.area::<crate::notifications::Settings>().enabled {
        return Err(Error::not_found("Not found"));
    }
    if req.has_query("cancel") || req.form_param("cancel").is_some() {
        return Ok(cancel(app, req, conf));
    }
    if req.method != Method::Post {
        return Err(Error::MethodNotAllowed);
    }
    let Some(p) = req
        .cookie(pending::COOKIE)
        .map(|id| pending::get(app, &id))
        .transpose()?
        .flatten()
    else {
        return Err(Error::Unauthenticated(
            "No pending login: please log in again".into(),
        ));
    };
    if !pending::check_token(conf, &p.id, &req.form_param("token").unwrap_or_default()) {
        return Err(Error::bad("Invalid form token"));
    }
    accept_form(app, conf, req, p, release)
}

/// Checks the posted form against what is due now; stores the acceptance and releases the
/// login when complete, else shows the form again.
fn accept_form(
    app: &App,
    conf: &Conf,
    req: &Request,
    p: pending::Pending,
    release: Release,
) -> Result<Response> {
    let list = due_for(app, conf, &p.session)?;
    let form = req.form();
    if !accept::all_accepted(&list, &form) {
        let ticks = accept::ticked(&list, &form);
        let frame = frame(conf, req, &p.session);
        let html = super::form::page(&frame, &list, &pending::token(conf, &p.id), Some(&ticks));
        return Ok(with_target(Response::html(200, html), p.url.as_deref()));
    }
    record_acceptance(app, conf, &p.session, &list)?;
    if !pending::finish(app, &p.id)? {
        // Accepted twice (double submit): the first one released the login.
        return Ok(Response::redirect(&conf.portal));
    }
    let clear = cookies::portal_cookie(conf, pending::COOKIE, "0", true);
    Ok(release(app, conf, req, &p.session, p.url.as_deref())?.with_cookie(&clear))
}

/// Stores reference and acceptance epoch in the persistent session (only those), and marks
/// the user's own notifications done. Idempotent.
fn record_acceptance(app: &App, conf: &Conf, s: &Session, list: &[Notification]) -> Result<()> {
    let uid = trace(s);
    let (pid, mut ps) = crate::sso::persistent(app, &uid)?;
    let now = crate::util::now();
    for n in list {
        ps.insert(accept::accepted_key(&n.reference), json!(now));
    }
    app.sessions(Kind::Persistent)
        .put(Kind::Persistent, &pid, &ps)?;
    for n in list
        .iter()
        .filter(|n| n.uid != conf.area::<crate::notifications::Settings>().wildcard)
    {
        app.notifications.mark_done(&n.uid, &n.reference, now)?;
    }
    Ok(())
}

/// The notifications due for a session: own and wildcard ones, filtered by `accept::due`.
pub fn due_for(app: &App, conf: &Conf, s: &Session) -> Result<Vec<Notification>> {
    let uid = trace(s);
    let records = app.notifications.pending_for(
        &uid,
        &conf.area::<crate::notifications::Settings>().wildcard,
        None,
    )?;
    let candidates = records.iter().filter_map(readable).collect();
    let (_, persistent) = crate::sso::persistent(app, &uid)?;
    Ok(accept::due(
        candidates,
        s,
        &persistent,
        &crate::util::date10(crate::util::now()),
    ))
}

fn cancel(app: &App, req: &Request, conf: &Conf) -> Response {
    if let Some(id) = req.cookie(pending::COOKIE) {
        let _ = pending::finish(app, &id);
    }
    // The login form says why the visitor is back on it.
    Response::redirect(&format!("{}?notifcancelled=1", conf.portal))
        .with_cookie(&cookies::portal_cookie(conf, pending::COOKIE, "0", true))
        .with_cookies(&cookies::clear_sso(conf))
}

/// The form's page allows the URL the released login goes to (`form-action`).
fn with_target(page: Response, url: Option<&str>) -> Response {
    match url {
        Some(u) => page.with_form_target(u),
        None => page,
    }
}
