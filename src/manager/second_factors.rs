//! The console's second-factor page (LemonLDAP::NG's 2ndFA manager), `/manager/2f`: an
//! administrator whose session satisfies `sfManagerRule` finds a user's devices by the
//! user's `whatToTrace` value (type, name, registration date; never a secret) and removes
//! one, audited with the administrator's name. Under the `locationRules` path `/2ndfa`, as
//! LemonLDAP::NG's manager serves it.
use super::{alert, done, Ctx};
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::second_factor::devices::{self, Device};
use crate::util::url_encode;
use crate::web::flash::Said;
use crate::web::Page;
use maud::{html, Markup};

/// Serves `/manager/2f`.
pub fn handle(ctx: &Ctx, rest: &[String]) -> Result<Response> {
    if !rest.is_empty() {
        return Err(Error::not_found("Not found"));
    }
    let settings = ctx.conf.area::<crate::second_factor::Settings>();
    if !settings
        .manager_rule
        .as_ref()
        .is_some_and(|r| r.eval(&ctx.admin))
    {
        return Err(Error::Forbidden(
            "sfManagerRule does not allow you this page".into(),
        ));
    }
    if ctx.req.method != Method::Post {
        let user = ctx.req.query_param("user").unwrap_or_default();
        return Ok(list(ctx, user.trim(), None));
    }
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default();
    let (user, kind, epoch) = (form("user"), form("type"), form("epoch"));
    if form("action") != "remove" || user.is_empty() {
        return Err(Error::bad("Unknown action"));
    }
    match devices::remove(ctx.app, &user, &kind, &epoch)? {
        Some(d) => {
            let by = format!("admin:{}", ctx.admin.trace());
            crate::second_factor::audit_removal(&user, &d, &by);
            let fields = [
                ("user", user.as_str()),
                ("type", kind.as_str()),
                ("epoch", epoch.as_str()),
            ];
            ctx.audit("manager_2f_remove", &fields);
            let said = Said::new("mgrDeviceRemoved")
                .with("name", &d.name())
                .with("user", &user);
            Ok(done(
                ctx,
                &format!("/manager/2f?user={}", url_encode(&user)),
                said,
            ))
        }
        None => Ok(list(ctx, &user, Some("2FDeviceNotFound"))),
    }
}

fn list(ctx: &Ctx, user: &str, error: Option<&str>) -> Response {
    let page = ctx.page();
    let held = if user.is_empty() {
        Vec::new()
    } else {
        devices::load(ctx.app, user).unwrap_or_else(|e| {
            crate::log::error(&format!("console: second factors: {e}"));
            Vec::new()
        })
    };
    let body = html! {
        @if let Some(key) = error { (alert(&page, &page.raw(key))) }
        form method="get" action="/manager/2f" id="search" {
            "\n"
            p { label for="q-user" { (page.say("mgrUser")) } " " input id="q-user" name="user" value=(user) required; } "\n"
            p { button type="submit" { (page.say("mgrSearch")) } } "\n"
        } "\n"
        @if !user.is_empty() {
            @if held.is_empty() { p id="sf-nodevice" { (page.say("sfNoDevice")) } } @else {
                table id="sf-devices" {
                    thead { tr {
                        th scope="col" { (page.say("type")) }
                        th scope="col" { (page.say("name")) }
                        th scope="col" { (page.say("date")) }
                        th scope="col" { (page.say("mgrActions")) }
                    } }
                    tbody { "\n" @for d in &held { (row(ctx, &page, user, d)) "\n" } }
                } "\n"
            }
        }
    };
    ctx.render("sfaManager", body)
}

fn row(ctx: &Ctx, page: &Page, user: &str, d: &Device) -> Markup {
    html! {
        tr {
            td { (d.kind()) } td { (d.name()) } td { (page.time_markup(d.epoch())) }
            td {
                form method="post" action="/manager/2f" {
                    (ctx.token_field())
                    input type="hidden" name="action" value="remove";
                    input type="hidden" name="user" value=(user);
                    input type="hidden" name="type" value=(d.kind());
                    input type="hidden" name="epoch" value=(d.epoch());
                    button type="submit" { (page.say("sfRemove")) }
                }
            }
        }
    }
}
