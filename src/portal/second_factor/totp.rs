//! TOTP's pages: the code field of the check form, and `/2fregisters/totp` (LemonLDAP::NG's
//! `totp2fregister`): a new secret as a QR code (inline SVG, no script) and as text, with a
//! form posting a code and a name to confirm it. LemonLDAP::NG's script actions answer JSON
//! as its `2F/Register/TOTP.pm` does: `POST /2fregisters/totp/getkey` (`secret`, `token`,
//! `portal`, `user`, `newkey`, `digits`, `interval`) and `POST /2fregisters/totp/verify`
//! (`token`, `code`, `TOTPName`; `{"result":1}` or `{"error":"badCode"}`).
use super::register::{registered, Registering};
use super::FactorPages;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::portal::pages;
use crate::second_factor::totp::register::{self, Refused, Started};
use crate::second_factor::totp::{Settings as TotpSettings, Totp};
use crate::web::Page;
use maud::{html, Markup, PreEscaped};
use serde_json::{json, Value};

/// TOTP's pages.
pub struct TotpPages;

impl FactorPages for TotpPages {
    fn prefix(&self) -> &'static str {
        "totp"
    }

    fn check_fields(&self, page: &Page, _data: Option<&Value>) -> Markup {
        html! {
            label for="code" { (page.say("enterTotpCode")) }
            input type="text" #code name="code" inputmode="numeric" pattern="[0-9]*"
                autocomplete="one-time-code" autofocus required; "\n"
        }
    }

    fn register(&self, ctx: &Ctx, reg: &Registering, action: &str) -> Result<Response> {
        let (req, conf) = (ctx.req, ctx.conf.as_ref());
        let ttl = conf
            .area::<crate::second_factor::Settings>()
            .register_timeout;
        match (req.method, action) {
            (Method::Get | Method::Head, "") => {
                let started = register::start(ctx.app.as_ref(), conf, &reg.trace, ttl)?;
                Ok(page(ctx, reg, started.map_err(Refused::key), None))
            }
            (Method::Post, "getkey") => getkey(ctx, reg, ttl),
            (Method::Post, "" | "verify") => verify(ctx, reg),
            (Method::Post, _) => Err(Error::bad("unknownAction")),
            _ => Err(Error::MethodNotAllowed),
        }
    }
}

/// `getkey`: a new secret for a script client (JSON).
fn getkey(ctx: &Ctx, reg: &Registering, ttl: i64) -> Result<Response> {
    let conf = ctx.conf.as_ref();
    if !reg.checked(conf, ctx.req) {
        return Err(Error::bad("csrfError"));
    }
    let s = match register::start(ctx.app.as_ref(), conf, &reg.trace, ttl)? {
        Ok(s) => s,
        Err(r) => return Ok(Response::json(200, &json!({"error": r.key()}))),
    };
    let settings = conf.area::<TotpSettings>();
    Ok(Response::json(
        200,
        &json!({"secret": s.secret, "token": s.token, "portal": s.issuer, "user": reg.trace,
            "newkey": 1, "digits": settings.digits, "interval": settings.interval}),
    ))
}

/// `verify` (or the form's post): the code confirms the secret, the device is added.
fn verify(ctx: &Ctx, reg: &Registering) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if !reg.checked(conf, req) {
        return Err(Error::bad("csrfError"));
    }
    let token = req.form_param("token").unwrap_or_default();
    let code = req.form_param("code").unwrap_or_default();
    let name = req.form_param("TOTPName").unwrap_or_default();
    match register::confirm(app, conf, &reg.trace, &token, &code, name.trim())? {
        Ok(_) => registered(ctx, reg, &Totp),
        Err(r) if req.wants_json() => {
            let status = if r == Refused::Expired { 400 } else { 200 };
            Ok(Response::json(status, &json!({"error": r.key()})))
        }
        Err(Refused::Expired) => {
            let ttl = conf
                .area::<crate::second_factor::Settings>()
                .register_timeout;
            let started = register::start(app, conf, &reg.trace, ttl)?;
            Ok(page(ctx, reg, started.map_err(Refused::key), Some("PE82")))
        }
        Err(r) => {
            // The same registration again (its token): the app is set up already, so the
            // page shows the form only.
            let again = Started {
                token,
                secret: String::new(),
                issuer: String::new(),
                uri: String::new(),
            };
            Ok(page(ctx, reg, Ok(again), Some(r.key())))
        }
    }
}

/// The registration page: the QR code and the secret (when started), the confirmation form.
fn page(
    ctx: &Ctx,
    reg: &Registering,
    started: std::result::Result<Started, &str>,
    notice: Option<&str>,
) -> Response {
    let (req, conf) = (ctx.req, ctx.conf.as_ref());
    let page = pages::frame(conf, req, Some(&reg.session)).with_header(Some(
        crate::account::header(ctx.app, conf, req, &reg.session),
    ));
    let csrf = reg.token(conf);
    let body = html! {
        h1 { (page.say("totp2f")) } "\n"
        @if let Some(n) = notice { div.error role="alert" #msg { p { (page.say(n)) } } "\n" }
        @match &started {
            Err(key) => { div.error role="alert" #msg { p { (page.say(key)) } } "\n" }
            Ok(s) => {
                @if !s.secret.is_empty() {
                    div.message role="status" { p { (page.say("yourNewTotpKey")) } } "\n"
                    p { (page.say("totpQrCode")) } "\n"
                    div #qrcode role="img" aria-label=(page.raw("totpQrCode")) { (qr_svg(&s.uri)) } "\n"
                    p { (page.say("totpSecretKey")) " " code #secret { (spaced(&s.secret)) } } "\n"
                }
                form method="post" action="/2fregisters/totp/verify" class="login" #totp-register {
                    "\n"
                    input type="hidden" name="csrf" value=(csrf); "\n"
                    input type="hidden" name="token" value=(s.token); "\n"
                    label for="code" { (page.say("totpRegisterCode")) }
                    input type="text" #code name="code" inputmode="numeric" autocomplete="one-time-code" required; "\n"
                    label for="TOTPName" { (page.say("totpRegisterName")) }
                    input type="text" #TOTPName name="TOTPName" maxlength="64"; "\n"
                    p.actions { button type="submit" #register { (page.say("register")) } } "\n"
                }
            }
        }
        p { a.button.secondary href="/2fregisters" { (page.say("back")) } }
    };
    Response::html(200, page.render_markup(&page.raw("totp2f"), body))
        .with_header("Cache-Control", "no-store")
}

/// The secret in groups of four, upper case, as authenticator apps show it.
fn spaced(secret: &str) -> String {
    let up = secret.to_ascii_uppercase();
    up.as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The QR code of `text` as an inline SVG (no image library, no script).
fn qr_svg(text: &str) -> Markup {
    match qrcode::QrCode::new(text.as_bytes()) {
        Ok(code) => {
            let svg = code
                .render::<qrcode::render::svg::Color>()
                .min_dimensions(200, 200)
                .quiet_zone(true)
                .build();
            // The renderer writes its own markup from the code's modules only: no user text.
            PreEscaped(svg.trim_start_matches(|c| c != '<').replacen(
                "<?xml version=\"1.0\" standalone=\"yes\"?>",
                "",
                1,
            ))
        }
        Err(_) => html! {},
    }
}
