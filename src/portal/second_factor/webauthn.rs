//! WebAuthn's pages, LemonLDAP::NG 2.16's `webauthn2fcheck` and `webauthn2fregister`: the
//! check form's fields (the request options for the browser, the `credential` field the
//! script fills; `/static/webauthn.js` does the ceremony and submits the form), and
//! `/2fregisters/webauthn` with its actions: `registrationchallenge` and `registration` as
//! LemonLDAP::NG's JSON paths (`X-CSRF-Check` header, `{"request":..,"state_id":..}`, then
//! `{"result":1}` or `{"error":KEY}`), and the same registration as a plain form: the page
//! carries its options and `state_id`, the script fills `credential`, the form posts to
//! `registration`, which answers with a page. Nothing but the ceremony needs script.
use super::register::{registered, Registering};
use super::FactorPages;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::portal::pages;
use crate::second_factor::webauthn::register::{self, Refused, Started};
use crate::second_factor::webauthn::WebAuthn;
use crate::web::Page;
use maud::{html, Markup};
use serde_json::{json, Value};

/// WebAuthn's pages.
pub struct WebAuthnPages;

impl FactorPages for WebAuthnPages {
    fn prefix(&self) -> &'static str {
        "webauthn"
    }

    fn check_fields(&self, page: &Page, data: Option<&Value>) -> Markup {
        let request = data.map(|d| d["request"].to_string()).unwrap_or_default();
        html! {
            div.message role="status" #webauthn-status { (page.say("webAuthnRequired")) } "\n"
            div #webauthn-check data-webauthn="get" data-request=(request)
                data-msg-progress=(page.say("webAuthnBrowserInProgress"))
                data-msg-failed=(page.say("webAuthnBrowserFailed"))
                data-msg-unsupported=(page.say("webAuthnUnsupported")) {
                input type="hidden" name="credential" value="";
            } "\n"
            noscript { p { (page.say("webAuthnNoScript")) } } "\n"
            script src="/static/webauthn.js" defer {} "\n"
        }
    }

    fn register(&self, ctx: &Ctx, reg: &Registering, action: &str) -> Result<Response> {
        match (ctx.req.method, action) {
            (Method::Get | Method::Head, "") => {
                let started = start(ctx, reg)?;
                Ok(page(ctx, reg, &started, None, 200))
            }
            (Method::Post, "registrationchallenge") => challenge_json(ctx, reg),
            (Method::Post, "" | "registration") => registration(ctx, reg),
            (Method::Post, _) => Err(Error::bad("unknownAction")),
            _ => Err(Error::MethodNotAllowed),
        }
    }
}

/// `registrationchallenge`: the creation options and `state_id`, for a script client.
fn challenge_json(ctx: &Ctx, reg: &Registering) -> Result<Response> {
    if !reg.checked(ctx.conf.as_ref(), ctx.req) {
        return Err(Error::bad("csrfError"));
    }
    let started = start(ctx, reg)?;
    Ok(Response::json(
        200,
        &json!({"request": started.request, "state_id": started.state_id}),
    ))
}

/// `registration` (or the form's post): `state_id`, `credential`, `keyName`; the device
/// added, or the refusal (JSON clients: LemonLDAP::NG's `{"error": KEY}`).
fn registration(ctx: &Ctx, reg: &Registering) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if !reg.checked(conf, req) {
        return Err(Error::bad("csrfError"));
    }
    let field = |k: &str| req.form_param(k).unwrap_or_default();
    let (state_id, credential) = (field("state_id"), field("credential"));
    let done = register::confirm(
        app,
        conf,
        &reg.trace,
        &state_id,
        &credential,
        &field("keyName"),
    )?;
    let refused = match done {
        Ok(_) => {
            crate::log::notice(&format!(
                "webauthn2f: a key registered for {}",
                crate::second_factor::webauthn::shown(&reg.trace)
            ));
            return registered(ctx, reg, &WebAuthn);
        }
        Err(r) => r,
    };
    if let Refused::Failed(why) = &refused {
        crate::log::notice(&format!(
            "webauthn2f: registration refused for {}: {why}",
            crate::second_factor::webauthn::shown(&reg.trace)
        ));
    }
    let status = match refused {
        Refused::Expired | Refused::Failed(_) | Refused::Exists => 400,
        Refused::BadName | Refused::TooMany => 200,
    };
    if req.wants_json() {
        return Ok(Response::json(status, &json!({"error": refused.key()})));
    }
    let started = start(ctx, reg)?;
    Ok(page(ctx, reg, &started, Some(refused.key()), status))
}

/// A registration started for the user registering.
fn start(ctx: &Ctx, reg: &Registering) -> Result<Started> {
    let (app, conf) = (ctx.app.as_ref(), ctx.conf.as_ref());
    let ttl = conf
        .area::<crate::second_factor::Settings>()
        .register_timeout;
    register::start(app, conf, &reg.trace, &reg.session, ttl)
}

/// The registration page: the key's name, the options for the browser, the button.
fn page(
    ctx: &Ctx,
    reg: &Registering,
    started: &Started,
    error: Option<&str>,
    status: u16,
) -> Response {
    let (req, conf) = (ctx.req, ctx.conf.as_ref());
    let page = pages::frame(conf, req, Some(&reg.session)).with_header(Some(
        crate::account::header(ctx.app, conf, req, &reg.session),
    ));
    let body = register_body(&page, started, &reg.token(conf), error);
    Response::html(
        status,
        page.render_markup(&page.raw("webAuthnRegisterTitle"), body),
    )
}

fn register_body(page: &Page, started: &Started, csrf: &str, error: Option<&str>) -> Markup {
    html! {
        h1 { (page.say("webAuthnRegisterTitle")) } "\n"
        @if let Some(key) = error {
            div.error role="alert" #msg trspan=(key) { p { (page.say(key)) } } "\n"
        }
        div.message role="status" #webauthn-status { (page.say("webAuthnRegisterHelp")) } "\n"
        form method="post" action="/2fregisters/webauthn/registration" class="login" #webauthn-register {
            "\n"
            input type="hidden" name="csrf" value=(csrf); "\n"
            input type="hidden" name="state_id" value=(started.state_id); "\n"
            div data-webauthn="create" data-request=(started.request.to_string())
                data-msg-progress=(page.say("webAuthnRegisterInProgress"))
                data-msg-failed=(page.say("webAuthnBrowserFailed"))
                data-msg-unsupported=(page.say("webAuthnUnsupported")) {
                input type="hidden" name="credential" value="";
            } "\n"
            label for="keyName" { (page.say("webAuthnKeyName")) }
            input type="text" #keyName name="keyName" value="MyWebAuthn" maxlength="64" required; "\n"
            p.actions { button type="submit" #register { (page.say("webAuthnRegister")) } } "\n"
        }
        noscript { p { (page.say("webAuthnNoScript")) } } "\n"
        p { a.button.secondary href="/2fregisters" { (page.say("sfaManager")) } }
        script src="/static/webauthn.js" defer {} "\n"
    }
}
