//! The portal's HTML pages: login form, lock page, sign-out form, logout confirmation (the
//! connected user's page is `menu`), in the frame `web::Page` gives (language, skin). Plain HTML and CSS, every dynamic value
//! escaped; messages in a live region (`role="alert"` for errors, `role="status"` otherwise).
use crate::config::Conf;
use crate::http::Request;
use crate::storage::Session;
use crate::util::html_escape;
use crate::web::Page;

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
    page.render(
        &page.raw("signInTitle"),
        &login_body(page, notice, url, token, user),
    )
}

fn login_body(page: &Page, notice: Notice, url: Option<&str>, token: &str, user: &str) -> String {
    let msg = match notice {
        Notice::None => String::new(),
        Notice::Code(code) => {
            let (class, role) = match code {
                9 | 47 => ("message", "status"),
                _ => ("error", "alert"),
            };
            format!(
                "<div class=\"{class}\" role=\"{role}\" id=\"msg\" trmsg=\"{code}\"><p>{}</p></div>\n",
                page.error_text(code)
            )
        }
        Notice::Key(key) => format!(
            "<div class=\"message\" role=\"status\" id=\"msg\" trspan=\"{key}\"><p>{}</p></div>\n",
            page.word(key)
        ),
    };
    let url_field = url
        .map(|u| {
            format!(
                "<input type=\"hidden\" name=\"url\" value=\"{}\">\n",
                html_escape(u)
            )
        })
        .unwrap_or_default();
    format!(
        "<h1>{title}</h1>\n{msg}<form method=\"post\" action=\"/\" class=\"login\">\n{url_field}\
<input type=\"hidden\" name=\"token\" value=\"{token}\">\n\
<label for=\"user\">{login}</label><input type=\"text\" id=\"user\" name=\"user\" value=\"{user}\" autocomplete=\"username\" autofocus required>\n\
<label for=\"password\">{password}</label><input type=\"password\" id=\"password\" name=\"password\" autocomplete=\"current-password\" required>\n\
<p class=\"actions\"><button type=\"submit\">{signin}</button></p>\n</form>",
        title = page.word("signInTitle"),
        token = html_escape(token),
        user = html_escape(user),
        login = page.word("login"),
        password = page.word("password"),
        signin = page.word("signIn"),
    )
}

/// The page of a login refused by the brute-force lock: portal error 86 and the seconds left,
/// without the form (as LemonLDAP::NG disables it on PE_WAIT), a link back to the portal.
pub fn locked(page: &Page, seconds: i64) -> String {
    let body = format!(
        "<h1>{}</h1>\n<div class=\"error\" role=\"alert\" id=\"msg\" trmsg=\"86\"><p>{} \
<span id=\"locktime\">{seconds}</span> {}.</p></div>\n<p><a class=\"button\" href=\"/\">{}</a></p>",
        page.word("signInTitle"),
        page.error_text(86),
        page.word("seconds"),
        page.word("goToPortal"),
    );
    page.render(&page.raw("signInTitle"), &body)
}

/// The sign-out button: a form posted to `/?logout=1` with `token` (bound to the session:
/// `portal::logout_token`), which ends the session without asking again. `extra` goes after
/// the button (say, a link to stay signed in).
pub fn logout_form(page: &Page, token: &str, extra: &str) -> String {
    format!(
        "<form method=\"post\" action=\"/?logout=1\" class=\"logout\">\n\
<input type=\"hidden\" name=\"token\" value=\"{}\">\n\
<p class=\"actions\"><button type=\"submit\" id=\"logout\">{}</button>{extra}</p>\n</form>",
        html_escape(token),
        page.word("logout")
    )
}

/// The question a logout without the portal's own token gets (a link from another site, an
/// old bookmark): sign out, or stay signed in.
pub fn confirm_logout(page: &Page, token: &str) -> String {
    let stay = format!(
        " <a class=\"button secondary\" id=\"stay\" href=\"/\">{}</a>",
        page.word("stayConnected")
    );
    let body = format!(
        "<h1>{}</h1>\n<p id=\"logout-confirm\">{}</p>\n<p>{}</p>\n{}",
        page.word("logoutTitle"),
        page.word("logoutAskedByLink"),
        page.word("logoutConfirm"),
        logout_form(page, token, &stay)
    );
    page.render(&page.raw("logoutTitle"), &body)
}
