//! The check of a login held by its second factor: the factor's form (posting to
//! `/<prefix>2fcheck` with the pending login's `token`), the choice between factors
//! (`/2fchoice`), and the answers to both. A passed factor resumes the login
//! (`crate::login::after_second_factor`), encoded as the login's own answer; a wrong one is
//! the login form with portal error 96 (the token is spent: LemonLDAP::NG starts over too).
use super::{pages_of, PAGES};
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, PortalCode, Result};
use crate::http::{Method, Request, Response};
use crate::portal::{login, login_page, pages};
use crate::second_factor::pending::Pending;
use crate::second_factor::step::{self, Checked};
use crate::second_factor::Factor;
use crate::web::Page;
use maud::html;
use serde_json::Value;

/// `POST /<prefix>2fcheck`: the answer to a factor's form (`GET` goes to the portal, as
/// LemonLDAP::NG's `_redirect`).
pub fn answer(ctx: &Ctx, prefix: &str) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if let Some(r) = not_posted(conf, req) {
        return r;
    }
    let Some(token) = req.form_param("token").filter(|t| !t.is_empty()) else {
        return Ok(login_page(conf, req, PortalCode::NoToken, 400));
    };
    Ok(match step::check(app, conf, prefix, &token, &req.form())? {
        Checked::Passed(p) => {
            let outcome =
                crate::login::after_second_factor(app, conf, req, &p.session, p.url.as_deref())?;
            login::answer(conf, req, outcome)
        }
        Checked::Refused(code, status) => login_page(conf, req, code, status),
        Checked::Locked(seconds) => {
            login::answer(conf, req, crate::login::Outcome::Locked(seconds))
        }
    })
}

/// `POST /2fchoice` with `token` and `sf`: the chosen factor's form.
pub fn choice(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if let Some(r) = not_posted(conf, req) {
        return r;
    }
    let token = req.form_param("token").unwrap_or_default();
    let sf = req.form_param("sf").unwrap_or_default();
    match step::choose(app, conf, &token, &sf)? {
        Some((p, f, data)) if req.wants_json() => {
            let check = format!("/{}2fcheck", f.prefix());
            let mut r = super::asked_json(&p, &[f], &check, None);
            if let Some(d) = data {
                r = Response::json(401, &with_data(r.json_body(), d));
            }
            Ok(r)
        }
        Some((p, f, data)) => Ok(form_page(conf, req, &p, f, data.as_ref())),
        None => Ok(login_page(conf, req, PortalCode::TokenExpired, 401)),
    }
}

/// The refusal of a request that is not a POST from this site, if it is one.
fn not_posted(conf: &Conf, req: &Request) -> Option<Result<Response>> {
    if matches!(req.method, Method::Get | Method::Head) {
        return Some(Ok(Response::redirect(&conf.portal)));
    }
    if req.method != Method::Post {
        return Some(Err(Error::MethodNotAllowed));
    }
    if crate::portal::cross_site::refused(conf, req) {
        return Some(Ok(crate::portal::cross_site_refusal(conf, req)));
    }
    None
}

/// The factor's data in a JSON answer (`"data"`).
fn with_data(mut body: Value, data: Value) -> Value {
    body["data"] = data;
    body
}

/// The page of a factor's check form.
pub fn form_page(
    conf: &Conf,
    req: &Request,
    p: &Pending,
    f: &dyn Factor,
    data: Option<&Value>,
) -> Response {
    let page = pages::frame(conf, req, Some(&p.session));
    let Some(fp) = pages_of(f.prefix()) else {
        return login_page(conf, req, PortalCode::Error, 500);
    };
    let action = format!("/{}2fcheck", f.prefix());
    let body = html! {
        h1 { (page.say("signInTitle")) } "\n"
        form method="post" action=(action) class="login" #sf-check {
            "\n"
            input type="hidden" name="token" value=(p.id); "\n"
            (fp.check_fields(&page, data))
            p.actions { button type="submit" #verify { (page.say("verify")) } } "\n"
        }
        p { a.button.secondary href="/" { (page.say("cancel")) } }
    };
    targeted(
        Response::html(200, page.render_markup(&page.raw("signInTitle"), body)),
        p,
    )
}

/// The choice between the factors offered.
pub fn choice_page(conf: &Conf, req: &Request, p: &Pending, list: &[&dyn Factor]) -> Response {
    let page = pages::frame(conf, req, Some(&p.session));
    let body = html! {
        h1 { (page.say("choose2f")) } "\n"
        form method="post" action="/2fchoice" class="login" #sf-choice {
            "\n"
            input type="hidden" name="token" value=(p.id); "\n"
            @for f in list {
                @if PAGES.iter().any(|x| x.prefix() == f.prefix()) {
                    p.actions { button type="submit" name="sf" value=(f.prefix()) {
                        @if let Some(logo) = logo(conf, f.prefix()) { img src=(logo) alt="" width="32" height="32"; " " }
                        (label(&page, conf, f.prefix()))
                    } } "\n"
                }
            }
        }
        p { a.button.secondary href="/" { (page.say("cancel")) } }
    };
    targeted(
        Response::html(200, page.render_markup(&page.raw("choose2f"), body)),
        p,
    )
}

/// A page whose form leads to the login's URL in the end (`form-action`).
fn targeted(resp: Response, p: &Pending) -> Response {
    match p.url.as_deref() {
        Some(u) => resp.with_form_target(u),
        None => resp,
    }
}

/// The logo of a factor (`<prefix>2fLogo`, a file of `/static/common/modules/`), when set.
fn logo(conf: &Conf, prefix: &str) -> Option<String> {
    let settings = conf.area::<crate::second_factor::Settings>();
    let file = settings.module(prefix)?.logo.clone()?;
    let safe = file
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    safe.then(|| format!("/static/common/modules/{file}"))
}

/// The label of a factor on a page: `<prefix>2fLabel`, else its translated name.
pub fn label(page: &Page, conf: &Conf, prefix: &str) -> String {
    let settings = conf.area::<crate::second_factor::Settings>();
    let custom = settings.module(prefix).and_then(|m| m.label.clone());
    custom.unwrap_or_else(|| page.raw(&format!("{prefix}2f")))
}
