//! The menu's HTML: headings, lists, tables and forms in the portal's frame (`web::Page`),
//! every dynamic value escaped, every text from the language files in the page's language.
//! Dates are UTC, written as the language writes them, with a machine-readable `datetime`.
use super::{apps, Consented, Login, Menu, Section};
use crate::portal::pages;
use crate::util::html_escape;
use crate::web::Page;

/// The tokens of the page's forms, each bound to the session and its action.
pub(super) struct Tokens {
    /// The consent revocation form's.
    pub revoke: String,
    /// The sign-out form's (`portal::logout_token`).
    pub logout: String,
}

/// The whole page.
pub(super) fn page(page: &Page, menu: &Menu, tokens: &Tokens) -> String {
    let mut body = format!("<h1>{}</h1>\n", page.word("portalTitle"));
    if menu.error != 0 {
        body.push_str(&format!(
            "<div class=\"error\" id=\"msg\" role=\"alert\" trmsg=\"{0}\"><p>{1}</p></div>\n",
            menu.error,
            page.error_text(menu.error)
        ));
    }
    body.push_str(&format!(
        "<p id=\"connected\">{} <strong>{}</strong></p>\n",
        page.word("connectedAs"),
        html_escape(&menu.user)
    ));
    if let Some(url) = &menu.explorer {
        body.push_str(&format!(
            "<p><a id=\"explorer\" href=\"{}\">{}</a></p>\n",
            html_escape(url),
            page.word("notificationsExplorer")
        ));
    }
    let titled: Vec<(&str, String)> = menu
        .sections
        .iter()
        .filter_map(|s| match s {
            Section::Apps(_) => Some(("appslist", page.word("yourApps"))),
            Section::History { .. } => Some(("loginHistory", page.word("loginHistory"))),
            Section::Consents(_) => Some(("oidcConsents", page.word("oidcConsents"))),
            Section::Logout => None,
        })
        .collect();
    if titled.len() > 1 {
        body.push_str(&format!("<nav aria-label=\"{}\"><ul>", page.word("menu")));
        for (id, title) in &titled {
            body.push_str(&format!("<li><a href=\"#{id}\">{title}</a></li>"));
        }
        body.push_str("</ul></nav>\n");
    }
    for s in &menu.sections {
        body.push_str(&match s {
            Section::Apps(cats) => apps_section(page, cats),
            Section::History { success, failed } => history_section(page, success, failed),
            Section::Consents(list) => consents_section(page, list, &tokens.revoke),
            Section::Logout => pages::logout_form(page, &tokens.logout, "") + "\n",
        });
    }
    page.render(&page.raw("portalTitle"), &body)
}

fn apps_section(page: &Page, cats: &[apps::Category]) -> String {
    let mut out = format!(
        "<section id=\"appslist\">\n<h2>{}</h2>\n",
        page.word("yourApps")
    );
    if cats.is_empty() {
        out.push_str(&format!(
            "<p class=\"message\">{}</p>\n",
            page.word("noAppAllowed")
        ));
    }
    for c in cats {
        category(&mut out, c, 3);
    }
    out + "</section>\n"
}

fn category(out: &mut String, c: &apps::Category, level: usize) {
    let h = level.min(6);
    out.push_str(&format!(
        "<div class=\"category\" id=\"cat-{}\">\n<h{h}>{}</h{h}>\n",
        html_escape(&c.id),
        html_escape(&c.name)
    ));
    if !c.apps.is_empty() {
        out.push_str("<ul class=\"apps\">\n");
        for a in &c.apps {
            let logo = a
                .logo
                .as_deref()
                .map(|l| {
                    format!(
                        "<img src=\"{}\" alt=\"\" width=\"32\" height=\"32\"> ",
                        html_escape(l)
                    )
                })
                .unwrap_or_default();
            let desc = a
                .description
                .as_deref()
                .map(|d| format!("<br><span class=\"appdesc\">{}</span>", html_escape(d)))
                .unwrap_or_default();
            out.push_str(&format!(
                "<li class=\"application\" id=\"app-{}\"><a href=\"{}\" title=\"{}\">{logo}{}</a>{desc}</li>\n",
                html_escape(&a.id),
                html_escape(&a.uri),
                html_escape(&a.tooltip),
                html_escape(&a.name),
            ));
        }
        out.push_str("</ul>\n");
    }
    for sub in &c.categories {
        category(out, sub, level + 1);
    }
    out.push_str("</div>\n");
}

fn history_section(page: &Page, success: &[Login], failed: &[Login]) -> String {
    let w = |k: &str| page.word(k);
    let mut out = format!(
        "<section id=\"loginHistory\">\n<h2>{}</h2>\n",
        w("loginHistory")
    );
    if success.is_empty() && failed.is_empty() {
        out.push_str(&format!("<p>{}</p>\n", w("noHistory")));
    }
    for (list, title, errors) in [
        (success, "lastLogins", false),
        (failed, "lastFailedLogins", true),
    ] {
        if list.is_empty() {
            continue;
        }
        let id = if errors {
            "failedLogins"
        } else {
            "successLogins"
        };
        out.push_str(&format!(
            "<h3>{}</h3>\n<table id=\"{id}\"><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th>",
            w(title),
            w("date"),
            w("ipAddr")
        ));
        if errors {
            out.push_str(&format!("<th scope=\"col\">{}</th>", w("errorMsg")));
        }
        out.push_str("</tr></thead><tbody>\n");
        for l in list {
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td>",
                page.time(l.epoch),
                html_escape(&l.ip)
            ));
            if errors {
                let e = l.error.unwrap_or(5);
                out.push_str(&format!("<td trmsg=\"{e}\">{}</td>", page.error_text(e)));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
    out + "</section>\n"
}

fn consents_section(page: &Page, list: &[Consented], token: &str) -> String {
    let w = |k: &str| page.word(k);
    let mut out = format!(
        "<section id=\"oidcConsents\">\n<h2>{}</h2>\n",
        w("oidcConsents")
    );
    if list.is_empty() {
        return out + &format!("<p>{}</p>\n</section>\n", w("noOidcConsent"));
    }
    out.push_str(&format!(
        "<table><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>\n",
        w("service"),
        w("date"),
        w("scope"),
        w("action")
    ));
    for c in list {
        let name = html_escape(&c.name);
        out.push_str(&format!(
            "<tr class=\"consent\" data-rp=\"{rp}\"><td>{name}</td><td>{}</td><td>{}</td><td>\
<form method=\"post\" action=\"{}\"><input type=\"hidden\" name=\"revokeConsent\" value=\"{rp}\">\
<input type=\"hidden\" name=\"token\" value=\"{}\">\
<button type=\"submit\" class=\"button secondary\" aria-label=\"{} {name}\">{}</button></form></td></tr>\n",
            page.time(c.epoch),
            html_escape(&c.scope),
            html_escape(page.portal()),
            html_escape(token),
            w("unregister"),
            w("unregister"),
            rp = html_escape(&c.rp),
        ));
    }
    out + "</tbody></table>\n</section>\n"
}
