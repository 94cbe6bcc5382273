//! The administration console under `/manager/`: server-rendered pages in the portal's frame
//! and languages, forms without script. It sits at the top, beside the command line: like
//! `limette sessions` and `limette notifications`, it composes the areas' functions.
//!
//! Access, in order (each refusal changes nothing):
//! 1. the address rule `managerAllowFrom` (the router, before this runs);
//! 2. a logged-in user (the portal's login page otherwise);
//! 3. the `locationRules` of `managerHost`, LemonLDAP::NG's manager host, evaluated on the
//!    path LemonLDAP::NG's manager has for the page (`/sessions...`, `/notifications...`,
//!    `/confs...`, `/` for the status page, the manager's index; `/users...` for the users
//!    page, which LemonLDAP::NG's manager does not have) so that its rules apply
//!    unchanged, each page under its own rule; no `managerHost`, or no rules for it: nobody
//!    (403);
//! 4. every `POST` carries the page's token, bound to the administrator's session
//!    (`web::csrf::check_session_bound`: good while that session lives): missing or forged, 403.
//!    A form of a session that has since ended is kept across the sign-in (`draft`).
//!
//! After an action, the next page says what it did, once (`web::flash`); deletions and roll
//! backs ask first (`Ctx::confirm`).
//!
//! Every action writes an audit line naming the administrator (`_whatToTrace`) and address.
//! Pages: `status` (the index), `sessions`, `notifications`, `conf` (the configuration: its
//! versions, their differences, and the forms that save a new one), `users` (the DBI user
//! table), `second_factors` (a user's devices).
mod conf;
mod conf_edit;
mod conf_forms;
mod conf_versions;
mod draft;
mod draft_labels;
mod editor;
mod notifications;
mod second_factors;
mod session_values;
mod sessions;
mod status;
mod users;

use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use crate::sso::SsoSession;
use crate::web::flash::{self, Said};
use crate::web::page::Word;
use crate::web::{csrf, Page};
use maud::{html, Markup};

/// The console's pages, by the first segment after `/manager/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Status,
    Sessions,
    Notifications,
    SecondFactors,
    Conf,
    Users,
}

impl Section {
    fn of(path: &str) -> Option<(Section, Vec<String>)> {
        let rest = path.strip_prefix("/manager")?;
        let segs: Vec<String> = rest
            .split('/')
            .filter(|s| !s.is_empty())
            .map(crate::util::url_decode_path)
            .collect();
        let section = match segs.first().map(String::as_str) {
            None | Some("status") => Section::Status,
            Some("sessions") => Section::Sessions,
            Some("notifications") => Section::Notifications,
            Some("2f") => Section::SecondFactors,
            Some("conf") => Section::Conf,
            Some("users") => Section::Users,
            Some(_) => return None,
        };
        Some((section, segs.into_iter().skip(1).collect()))
    }

    /// The path LemonLDAP::NG's manager serves this page under, which its rules name. The
    /// status page (the index) is the manager's index, `/`: LemonLDAP::NG's rules give it to
    /// the `(?#Configuration)` rule (`...(manager\.html|confs|prx/|$)`), never to `default`,
    /// which in LemonLDAP::NG's own configuration also lets in those allowed only sessions or
    /// notifications.
    fn rule_path(self, rest: &[String]) -> String {
        let base = match self {
            Section::Status => return "/".into(),
            Section::Sessions => "/sessions",
            Section::Notifications => "/notifications",
            Section::SecondFactors => "/2ndfa",
            Section::Conf => "/confs",
            Section::Users => "/users",
        };
        rest.iter()
            .fold(base.to_string(), |p, s| format!("{p}/{s}"))
    }

    fn href(self) -> &'static str {
        match self {
            Section::Status => "/manager/",
            Section::Sessions => "/manager/sessions",
            Section::Notifications => "/manager/notifications",
            Section::SecondFactors => "/manager/2f",
            Section::Conf => "/manager/conf",
            Section::Users => "/manager/users",
        }
    }

    fn word(self) -> &'static str {
        match self {
            Section::Status => "mgrStatus",
            Section::Sessions => "mgrSessions",
            Section::Notifications => "mgrNotifications",
            Section::SecondFactors => "sfaManager",
            Section::Conf => "mgrConf",
            Section::Users => "mgrUsers",
        }
    }

    const ALL: [Section; 6] = [
        Section::Status,
        Section::Sessions,
        Section::Notifications,
        Section::SecondFactors,
        Section::Conf,
        Section::Users,
    ];
}

/// What a console page knows of its request: the administrator and the page frame.
pub(crate) struct Ctx<'a> {
    app: &'a App,
    conf: &'a Conf,
    req: &'a Request,
    admin: SsoSession,
    /// The sections the administrator may open (for the navigation).
    allowed: Vec<Section>,
}

impl Ctx<'_> {
    /// The page frame.
    fn page(&self) -> Page<'_> {
        crate::portal::pages::frame(self.conf, self.req, None)
    }

    /// A fresh token for the console's forms, bound to the administrator's session.
    fn token(&self) -> String {
        csrf::issue_for(self.conf, &binding(&self.admin))
    }

    /// The hidden field of the token.
    fn token_field(&self) -> Markup {
        html! { input type="hidden" name="token" value=(self.token()); }
    }

    /// Writes an audit line of an action, with the administrator and the address.
    fn audit(&self, event: &str, fields: &[(&str, &str)]) {
        let admin = self.admin.trace();
        let address = self.req.ip();
        let mut all = vec![("admin", admin.as_str()), ("address", address.as_str())];
        all.extend_from_slice(fields);
        crate::log::audit(event, &all);
    }

    /// The whole page: the navigation, then what the last action did (`web::flash`, once),
    /// then `body`.
    fn render(&self, title_key: &str, body: Markup) -> Response {
        let page = self.page();
        let (said, clear) = flash::take(self.conf, self.req);
        let (draft, clear_draft) = draft::take(self.app, self.conf, self.req);
        let title = page.raw(title_key);
        let here = self.req.path.trim_end_matches('/');
        let current = |s: &Section| s.href().trim_end_matches('/') == here;
        let logout = crate::portal::logout_token(self.conf, &self.admin);
        let html = html! {
            a.skip href="#content" { (page.say("skipToContent")) } "\n"
            nav.console aria-label=(page.say("mgrConsole")) {
                ul {
                    @for s in &self.allowed {
                        li { a href=(s.href()) aria-current=[current(s).then_some("page")] { (page.say(s.word())) } }
                    }
                    @if self.allowed.contains(&Section::Conf) {
                        li { a href="/manager/conf/edit" aria-current=[(here == "/manager/conf/edit").then_some("page")] { (page.say("edTitle")) } }
                    }
                    li { a href=(self.conf.portal) { (page.say("mgrBackToPortal")) } }
                }
                p.who { (page.say("connectedAs")) " " strong { (self.admin.trace()) } }
                (crate::portal::pages::logout_form(&page, &logout, html! {}))
            } "\n"
            h1 #content tabindex="-1" { (Word(title.clone())) } "\n"
            @if let Some(s) = &said { (s.markup(&page)) }
            @if let Some(d) = &draft { (draft::markup(&page, d, self.token_field())) }
            (body)
        };
        let resp = Response::html(200, page.render_markup(&title, html));
        let clear: Vec<String> = clear.into_iter().chain(clear_draft).collect();
        resp.with_cookies(&clear)
    }

    /// Whether the form was sent from its confirmation page (`confirm=yes`).
    fn confirmed(&self) -> bool {
        self.req.form_param("confirm").as_deref() == Some("yes")
    }

    /// The page that asks before a destructive action: the question, then a form that posts
    /// `fields` again to `action` with `confirm=yes` and a fresh token (a danger button saying
    /// the message `button`, its placeholders filled from `fields`), and a link back to
    /// `cancel`. Nothing is changed until that form comes back.
    fn confirm(
        &self,
        question: Markup,
        action: &str,
        fields: &[(&str, &str)],
        button: &str,
        cancel: &str,
    ) -> Response {
        let page = self.page();
        let body = html! {
            div class="confirm" id="question" { (question) } "\n"
            form method="post" action=(action) id="confirm" {
                (self.token_field())
                @for (k, v) in fields { input type="hidden" name=(k) value=(v); }
                input type="hidden" name="confirm" value="yes"; "\n"
                p {
                    button.danger type="submit" { (page.say_fill(button, fields)) } " "
                    a #cancel href=(cancel) { (page.say("mgrCancel")) }
                }
            } "\n"
        };
        self.render("mgrConfirm", body)
            .with_header("Cache-Control", "no-store")
    }
}

/// Serves the console.
pub fn handle(ctx: &crate::ctx::Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let (section, rest) = Section::of(&req.path).ok_or_else(|| Error::not_found("Not found"))?;
    let admin = match crate::portal::session::require_user(app, conf, req) {
        Ok(admin) => admin,
        // A form sent after the session ended: kept while the administrator signs in again.
        Err(e @ Error::SignIn(_)) => return draft::keep(app, conf, req).ok_or(e),
        Err(e) => return Err(e),
    };
    let may = |s: Section, rest: &[String]| allows(app, conf, req, &admin, &s.rule_path(rest));
    if !may(section, &rest) {
        let who: String = admin.trace().chars().filter(|c| !c.is_control()).collect();
        crate::log::warn(&format!(
            "{}: console refused to {who}, outside the locationRules of managerHost",
            req.path.chars().take(200).collect::<String>()
        ));
        return Err(Error::Forbidden(
            "The console's rules do not allow you this page".into(),
        ));
    }
    if req.method == Method::Post {
        let token = req.form_param("token");
        if csrf::check_session_bound(conf, token.as_deref(), &binding(&admin)).is_err() {
            return Err(Error::Forbidden(
                "The form has expired: reload the page and try again".into(),
            ));
        }
    } else if !matches!(req.method, Method::Get | Method::Head) {
        return Err(Error::OnlyMethods("GET, HEAD, POST"));
    }
    let dbi = conf.area::<crate::directory::dbi::Settings>().in_use();
    let listed = |s: &Section| *s != Section::Users || dbi;
    let allowed = Section::ALL
        .into_iter()
        .filter(|s| listed(s) && may(*s, &[]))
        .collect();
    let ctx = Ctx {
        app,
        conf,
        req,
        admin,
        allowed,
    };
    match section {
        Section::Status => status::page(&ctx),
        Section::Sessions => sessions::handle(&ctx, &rest),
        Section::Notifications => notifications::handle(&ctx, &rest),
        Section::SecondFactors => second_factors::handle(&ctx, &rest),
        Section::Conf => conf_routes(&ctx, &rest),
        Section::Users => users::handle(&ctx, &rest),
    }
}

/// Serves `/manager/conf[/<num>|/diff|/rp/<name>|/edit]`: the pages (`conf`, `editor`) and their
/// posts (`conf_edit`, `editor`, which draw the pages again), so that neither imports the other's caller.
fn conf_routes(ctx: &Ctx, rest: &[String]) -> Result<Response> {
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    match (ctx.req.method, rest.as_slice()) {
        (Method::Post, []) => conf_edit::post(ctx),
        (Method::Post, ["edit"]) => editor::post(ctx),
        (Method::Post, ["rp", name]) => conf_edit::post_rp(ctx, name),
        (Method::Post, _) => Err(Error::not_found("Not found")),
        (_, []) => conf::index(ctx, html! {}),
        (_, ["diff"]) => conf::compare(ctx),
        (_, ["edit"]) => editor::page(ctx),
        (_, ["rp", name]) => conf::rp_page(ctx, name, html! {}),
        (_, [num]) => conf::version(ctx, num),
        _ => Err(Error::not_found("Not found")),
    }
}

/// Whether the administrator's session may open `path` of LemonLDAP::NG's manager: the
/// `locationRules` of `managerHost`; nobody without it or without rules for that host.
fn allows(app: &App, conf: &Conf, req: &Request, admin: &SsoSession, path: &str) -> bool {
    let rules = conf.area::<crate::rules::location::Rules>();
    let env = crate::rules::Env::from_request(
        req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        &req.ip(),
    );
    let host = app.local.access.manager_host();
    crate::rules::console::allows(&rules, host, path, admin, &env)
}

/// What the console's tokens are bound to: the administrator's session and the console.
fn binding(admin: &SsoSession) -> String {
    format!("manager:{}", admin.id())
}

/// An error message above a page's content, in the page's language (`messages::translate`:
/// the refusals are written in English for the audit log).
fn alert(page: &Page, msg: &str) -> Markup {
    let msg = crate::web::messages::translate(page.lang, msg);
    html! { div class="error" id="msg" role="alert" { p { (msg) } } "\n" }
}

/// The answer to a form that changed something: back to `to` (post/redirect/get), where
/// `said` tells what happened, once.
fn done(ctx: &Ctx, to: &str, said: Said) -> Response {
    flash::redirect(ctx.conf, to, &said)
}
