//! The portal's HTML pages: login form, lock page, sign-out form, logout confirmation (the
//! connected user's page is `menu`), in the frame `web::Page` gives (language, skin). Plain HTML and CSS, every dynamic value
//! escaped; messages in a live region (`role="alert"` for errors, `role="status"` otherwise).
use crate::config::Conf;
use crate::http::Request;
use crate::storage::Session;
use crate::web::Page;
use maud::{html, Markup};

/// The frame of a portal page for `req`, skinned by `portalSkinRules` for the session's user
/// (or the visitor: address and pending URL).
pub fn frame<'a>(conf: &'a Conf, req: &Request, s: Option<&Session>) -> Page<'a> {
    let url = super::pending_url(conf, req);
    let rules = conf.area::<crate::sso::skin::SkinRules>();
    Page::new(conf, req).with_skin(rules.choose(s, &req.ip(), url.as_deref()))
}

/// What the login form says above the fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// Nothing.
    None,
    /// Portal error or information `n` (its `PE<n>` message).
    Code(u16),
    /// A message key of the language files (an information).
    Key(&'static str),
}

/// The login form. `notice` is what to say, `url` the base64 URL to go to afterwards, `token`
/// the CSRF token, `user` the name typed before.
pub fn login_form(
    page: &Page,
    notice: Notice,
    url: Option<&str>,
    token: &str,
    user: &str,
) -> String {
    page.render_markup(
        &page.raw("signInTitle"),
        login_body(page, notice, url, token, user),
    )
}

fn login_body(page: &Page, notice: Notice, url: Option<&str>, token: &str, user: &str) -> Markup {
    html! {
        h1 { (page.say("signInTitle")) } "\n"
        @match notice {
            Notice::None => {}
            Notice::Code(code) => {
                @let (class, role) = match code {
                    9 | 47 => ("message", "status"),
                    _ => ("error", "alert"),
                };
                div class=(class) role=(role) #msg trmsg=(code) { p { (page.say_error(code)) } } "\n"
            }
            Notice::Key(key) => {
                div.message role="status" #msg trspan=(key) { p { (page.say(key)) } } "\n"
            }
        }
        form method="post" action="/" class="login" {
            "\n"
            @if let Some(u) = url { input type="hidden" name="url" value=(u); "\n" }
            input type="hidden" name="token" value=(token); "\n"
            label for="user" { (page.say("login")) }
            input type="text" #user name="user" value=(user) autocomplete="username" autofocus required; "\n"
            label for="password" { (page.say("password")) }
            input type="password" #password name="password" autocomplete="current-password" required; "\n"
            p.actions { button type="submit" { (page.say("signIn")) } } "\n"
        }
    }
}

/// The page of a login refused by the brute-force lock: portal error 86 and the seconds left,
/// without the form (as LemonLDAP::NG disables it on PE_WAIT), a link back to the portal.
pub fn locked(page: &Page, seconds: i64) -> String {
    let body = html! {
        h1 { (page.say("signInTitle")) } "\n"
        div.error role="alert" #msg trmsg="86" {
            p { (page.say_error(86)) " " span #locktime { (seconds) } " " (page.say("seconds")) "." }
        } "\n"
        p { a.button href="/" { (page.say("goToPortal")) } }
    };
    page.render_markup(&page.raw("signInTitle"), body)
}

/// The sign-out button: a form posted to `/?logout=1` with `token` (bound to the session:
/// `portal::logout_token`), which ends the session without asking again. `extra` goes after
/// the button (say, a link to stay signed in).
pub fn logout_form(page: &Page, token: &str, extra: Markup) -> Markup {
    html! {
        form method="post" action="/?logout=1" class="logout" {
            "\n"
            input type="hidden" name="token" value=(token); "\n"
            p.actions { button type="submit" #logout { (page.say("logout")) } (extra) } "\n"
        }
    }
}

/// Why a logout asks before it ends the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogoutAsked {
    /// No token: a link from another site, an old bookmark.
    Link,
    /// A token of the portal, but from a page of another session (one that ended since).
    OldPage,
}

/// The question a logout without the portal's own token gets: sign out, or stay signed in.
pub fn confirm_logout(page: &Page, token: &str, why: LogoutAsked) -> String {
    let stay = html! { " " a.button.secondary #stay href="/" { (page.say("stayConnected")) } };
    let said = match why {
        LogoutAsked::Link => "logoutAskedByLink",
        LogoutAsked::OldPage => "logoutFromOldPage",
    };
    let body = html! {
        h1 { (page.say("logoutTitle")) } "\n"
        p #logout-confirm { (page.say(said)) } "\n"
        p { (page.say("logoutConfirm")) } "\n"
        (logout_form(page, token, stay))
    };
    page.render_markup(&page.raw("logoutTitle"), body)
}
