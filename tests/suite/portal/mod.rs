//! The portal's edges as its users and attackers meet them: the login form's token ageing out,
//! a login held back by notifications expiring, the SSO cookie's attributes, the security
//! headers, the redirect targets after login, the debug routes off by default, 413 on every
//! endpoint that takes a body, the menu after login, and its password tab.
use crate::common;

mod body_limit;
mod brute_force;
mod cookies;
mod cross_site;
mod form_token;
mod headers;
mod hooks;
mod languages;
mod layout;
mod menu;
mod old_forms;
mod password;
mod pending;
mod redirects;
mod skin;
mod xss;

use common::{Client, Portal, Resp};

/// The header of a JSON client.
pub const JSON: (&str, &str) = ("Accept", "application/json");

/// The value of a hidden field in a page.
pub fn field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    html.split(&marker)
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no field {name} in {html}"))
        .to_string()
}

/// The portal error code an HTML page shows (`trmsg`), if any.
pub fn shown_error(html: &str) -> Option<u16> {
    html.split("trmsg=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|c| c.parse().ok())
}

/// The login form's CSRF token, as a browser gets it.
pub fn form_token(p: &Portal) -> String {
    let page = p.client().get("/", &[]);
    assert_eq!(page.status, 200, "{}", page.text());
    field(&page.text(), "token")
}

/// Posts the HTML login form of `user` (password = user name) with `token`.
pub fn post_login(c: &Client, user: &str, token: &str) -> Resp {
    c.post_form(
        "/",
        &[("user", user), ("password", user), ("token", token)],
        &[],
    )
}
