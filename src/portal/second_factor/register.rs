//! `/2fregisters`, LemonLDAP::NG's second-factor manager page (`2F/Engines/Default.pm`'s
//! `_displayRegister`, `register`, `restoreSession`): the factors the user may register
//! (`<prefix>2fSelfRegistration`), the devices held (type, name, date) with a button to
//! remove those `<prefix>2fUserCanRemoveKey` allows; `/2fregisters/<prefix>[/<action>]` goes
//! to the factor's pages, `/2fregisters/<prefix>/delete` (with `epoch`) removes a device,
//! audited, and the list says so once (`web::flash`). The user is the connected one, or a login `sfRequired` sent here (its pending
//! login named by a cookie): once that login registers a device, it is released
//! ([`registered`]). Forms carry a token bound to the user; LemonLDAP::NG's script clients
//! send `X-CSRF-Check` instead, which a cross-site browser cannot.
use super::{pages_of, REGISTER_COOKIE};
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, PortalCode, Result};
use crate::http::{Method, Request, Response};
use crate::portal::session::{self, CookieState};
use crate::portal::{login, pages};
use crate::second_factor::devices::{self, Device};
use crate::second_factor::pending::{self, Pending, Purpose};
use crate::second_factor::{by_prefix, step, Factor, Settings};
use crate::storage::Session;
use crate::web::Page;
use crate::web::{cookies, csrf};
use maud::{html, Markup};
use serde_json::json;

/// Who registers: the user, the session whose attributes the rules see, and the held login
/// when `sfRequired` sent it here.
pub struct Registering {
    /// The user's `whatToTrace` value (the persistent session's name).
    pub trace: String,
    /// The SSO session, or the pending login's session.
    pub session: Session,
    /// The login held until a device is registered.
    pub pending: Option<Pending>,
    binding: String,
}

impl Registering {
    /// A token for this user's forms.
    pub fn token(&self, conf: &Conf) -> String {
        csrf::issue_for(conf, &self.binding)
    }

    /// Whether a posted form or script request is this user's own (its token, or
    /// LemonLDAP::NG's `X-CSRF-Check` header, which only a same-origin script can send).
    pub fn checked(&self, conf: &Conf, req: &Request) -> bool {
        if req.header("x-csrf-check").is_some() && !crate::portal::cross_site::refused(conf, req) {
            return true;
        }
        let token = req.form_param("csrf");
        csrf::check_for(conf, token.as_deref(), &self.binding).is_ok()
    }
}

/// The registering user of a request: the connected user, else the login `sfRequired` held.
pub fn who_registers(
    app: &crate::app::App,
    conf: &Conf,
    req: &Request,
) -> Result<Option<Registering>> {
    if let CookieState::Valid(s) = session::from_request(app, conf, req)? {
        let sid = s.id().to_string();
        return Ok(Some(Registering {
            trace: step::trace(&s),
            session: (*s).clone(),
            pending: None,
            binding: format!("2fregisters:{sid}"),
        }));
    }
    let Some(id) = req.cookie(REGISTER_COOKIE) else {
        return Ok(None);
    };
    Ok(
        pending::get(app, &id, Purpose::Register)?.map(|p| Registering {
            trace: step::trace(&p.session),
            session: p.session.clone(),
            binding: format!("2fregisters-pending:{}", p.id),
            pending: Some(p),
        }),
    )
}

/// `/2fregisters...`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let Some(reg) = who_registers(app, conf, req)? else {
        return Ok(Response::redirect(&conf.portal));
    };
    let rest = req
        .path
        .trim_start_matches("/2fregisters")
        .trim_matches('/');
    if rest.is_empty() {
        return match req.method {
            Method::Get | Method::Head => Ok(list_page(ctx, &reg)),
            _ => Err(Error::MethodNotAllowed),
        };
    }
    let (prefix, action) = rest.split_once('/').unwrap_or((rest, ""));
    let settings = conf.area::<Settings>();
    let (Some(f), Some(fp)) = (by_prefix(prefix), pages_of(prefix)) else {
        return Err(Error::not_found("Unknown register module"));
    };
    if !may_register(&settings, f, &reg) {
        return Err(Error::Forbidden(format!(
            "{prefix}2F registration not allowed"
        )));
    }
    if action == "delete" {
        return delete(ctx, &reg, f);
    }
    fp.register(ctx, &reg, action)
}

/// Whether the user may register (and so remove) devices of the factor.
fn may_register(settings: &Settings, f: &dyn Factor, reg: &Registering) -> bool {
    let Some(m) = settings.module(f.prefix()) else {
        return false;
    };
    m.self_registration
        .as_ref()
        .is_some_and(|r| r.eval(&reg.session))
}

/// The end of a registration: a login held by `sfRequired` is released (the code just
/// confirmed proved the factor); a connected user goes back to the list.
pub fn registered(ctx: &Ctx, reg: &Registering, f: &dyn Factor) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let Some(p) = &reg.pending else {
        return Ok(if req.wants_json() {
            Response::json(200, &json!({"result": 1}))
        } else {
            Response::redirect(&format!("{}2fregisters", super::slash(&conf.portal)))
        });
    };
    let clear = cookies::portal_cookie(conf, REGISTER_COOKIE, "0", true);
    let settings = conf.area::<Settings>();
    let (Some(module), true) = (settings.module(f.prefix()), pending::finish(app, &p.id)?) else {
        return Ok(
            super::super::login_page(conf, req, PortalCode::TokenExpired, 401).with_cookie(&clear),
        );
    };
    let mut s = p.session.clone();
    step::passed(&mut s, f, module);
    let outcome = crate::login::after_second_factor(app, conf, req, &s, p.url.as_deref())?;
    Ok(login::answer(conf, req, outcome).with_cookie(&clear))
}

/// `POST /2fregisters/<prefix>/delete` with `epoch`: removes the device, when allowed.
fn delete(ctx: &Ctx, reg: &Registering, f: &dyn Factor) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if req.method != Method::Post {
        return Err(Error::MethodNotAllowed);
    }
    if !reg.checked(conf, req) {
        return Err(Error::bad("csrfError"));
    }
    let settings = conf.area::<Settings>();
    let allowed = settings.module(f.prefix()).is_some_and(|m| {
        let level =
            crate::config::as_i64(reg.session.get("authenticationLevel").unwrap_or(&json!(0)))
                .unwrap_or(0);
        m.user_can_remove && m.authn_level.map_or(true, |l| level >= l)
    });
    if !allowed || reg.pending.is_some() {
        return Err(Error::bad("notAuthorized"));
    }
    let epoch = req.param("epoch").unwrap_or_default();
    let Some(d) = devices::remove(app, &reg.trace, f.kind(), &epoch)? else {
        return Err(Error::bad("2FDeviceNotFound"));
    };
    crate::second_factor::audit_removal(&reg.trace, &d, "user");
    let said = crate::web::flash::Said::new("sfRemoved").with("name", &d.name());
    let to = format!("{}2fregisters", super::slash(&conf.portal));
    Ok(if req.wants_json() {
        Response::json(200, &json!({"result": 1}))
    } else {
        crate::web::flash::redirect(conf, &to, &said)
    })
}

/// The list page: the factors to register, the devices held. One factor and nothing held
/// goes straight to its page (LemonLDAP::NG).
fn list_page(ctx: &Ctx, reg: &Registering) -> Response {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let settings = conf.area::<Settings>();
    let offered: Vec<&dyn Factor> = crate::second_factor::FACTORS
        .iter()
        .copied()
        .filter(|f| pages_of(f.prefix()).is_some() && may_register(&settings, *f, reg))
        .collect();
    let held = devices::load(app, &reg.trace).unwrap_or_default();
    let (said, clear) = crate::web::flash::take(conf, req);
    // (A removal just said stays on the list, which says it.)
    if let ([only], true, None, None) = (offered.as_slice(), held.is_empty(), &reg.pending, &said) {
        return Response::redirect(&format!(
            "{}2fregisters/{}",
            super::slash(&conf.portal),
            only.prefix()
        ));
    }
    let page = pages::frame(conf, req, Some(&reg.session))
        .with_header(Some(crate::account::header(app, conf, req, &reg.session)));
    let body = html! {
        h1 { (page.say("sfaManager")) } "\n"
        @if let Some(s) = &said { (s.markup(&page)) }
        @if reg.pending.is_some() { div.message role="status" #msg { p { (page.say("2fRegRequired")) } } "\n" }
        @if !offered.is_empty() {
            ul #sf-modules {
                @for f in &offered {
                    li { a.button href={ "/2fregisters/" (f.prefix()) } { (super::check::label(&page, conf, f.prefix())) } }
                }
            } "\n"
        }
        @if held.is_empty() { p #sf-nodevice { (page.say("sfNoDevice")) } } @else {
            (devices_table(&page, &settings, reg, &held))
        }
        p { a.button.secondary href="/" { (page.say("goToPortal")) } }
    };
    let resp = Response::html(200, page.render_markup(&page.raw("sfaManager"), body));
    match clear {
        Some(c) => resp.with_cookie(&c),
        None => resp,
    }
}

/// The devices held: type, name, date, and a removal form for those the user may remove.
fn devices_table(page: &Page, settings: &Settings, reg: &Registering, held: &[Device]) -> Markup {
    let token = reg.token(page.conf());
    let removable = |d: &Device| {
        settings.module_of_kind(d.kind()).filter(|m| {
            m.user_can_remove
                && reg.pending.is_none()
                && by_prefix(m.prefix).is_some_and(|f| may_register(settings, f, reg))
        })
    };
    html! {
        table #sf-devices {
            thead { tr { th { (page.say("type")) } th { (page.say("name")) } th { (page.say("date")) } th { (page.say("mgrActions")) } } }
            tbody {
                @for d in held {
                    tr {
                        td { (d.kind()) } td { (d.name()) } td { (page.time_markup(d.epoch())) }
                        td {
                            @if let Some(m) = removable(d) {
                                form method="post" action={ "/2fregisters/" (m.prefix) "/delete" } {
                                    input type="hidden" name="csrf" value=(token);
                                    input type="hidden" name="epoch" value=(d.epoch());
                                    button type="submit" { (page.say("sfRemove")) }
                                }
                            }
                        }
                    }
                }
            }
        } "\n"
    }
}
