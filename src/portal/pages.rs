//! The portal's HTML pages: login form, logout page, lock page (the connected user's page is
//! `menu`). Plain HTML and CSS, every dynamic value escaped.
use crate::config::Conf;
use crate::util::html_escape;
use crate::web::{layout, messages};

/// The login form. `code` is the portal error to show (0 = none), `url` the base64 URL to go
/// to afterwards, `token` the CSRF token.
pub fn login_form(conf: &Conf, code: u16, url: Option<&str>, token: &str, user: &str) -> String {
    layout(
        "Limette: sign in",
        &login_body(conf, code, url, token, user),
    )
}

/// The page of a logout (message 47 above the login form) that loads the front-channel
/// logout URLs of the relying parties the session used in hidden iframes (`web::logout_frames`).
pub fn logged_out(conf: &Conf, token: &str, frames: &[String]) -> String {
    let body = login_body(conf, 47, None, token, "") + &crate::web::logout_frames(frames);
    layout("Limette: sign in", &body)
}

fn login_body(_conf: &Conf, code: u16, url: Option<&str>, token: &str, user: &str) -> String {
    let msg = if code == 0 {
        String::new()
    } else {
        let class = if code == 9 || code == 47 {
            "message"
        } else {
            "error"
        };
        format!(
            "<p class=\"{class}\" id=\"msg\" trmsg=\"{code}\">{}</p>\n",
            html_escape(&messages::text("en", code))
        )
    };
    let url_field = url
        .map(|u| {
            format!(
                "<input type=\"hidden\" name=\"url\" value=\"{}\">\n",
                html_escape(u)
            )
        })
        .unwrap_or_default();
    let body = format!(
        "<h1>Limette</h1>\n{msg}<form method=\"post\" action=\"{action}\" class=\"login\">\n{url_field}\
<input type=\"hidden\" name=\"token\" value=\"{token}\">\n\
<label for=\"user\">{login}</label><input type=\"text\" id=\"user\" name=\"user\" value=\"{user}\" autocomplete=\"username\" autofocus required>\n\
<label for=\"password\">{password}</label><input type=\"password\" id=\"password\" name=\"password\" autocomplete=\"current-password\" required>\n\
<button type=\"submit\">{signin}</button>\n</form>",
        action = "/",
        token = html_escape(token),
        user = html_escape(user),
        login = word("login"),
        password = word("password"),
        signin = word("signIn"),
    );
    body
}

/// The page of a login refused by the brute-force lock: portal error 86 and the seconds left,
/// without the form (as LemonLDAP::NG disables it on PE_WAIT), a link back to the portal.
pub fn locked(seconds: i64) -> String {
    let body = format!(
        "<h1>Limette</h1>\n<p class=\"error\" id=\"msg\" trmsg=\"86\">{} \
<span id=\"locktime\">{seconds}</span> {}.</p>\n<p><a class=\"button\" href=\"/\">{}</a></p>",
        html_escape(&messages::text("en", 86)),
        word("seconds"),
        word("goToPortal"),
    );
    layout("Limette: sign in", &body)
}

fn word(key: &str) -> String {
    html_escape(&messages::lookup("en", key).unwrap_or_else(|| key.to_string()))
}
