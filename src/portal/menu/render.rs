//! The menu's HTML: headings, lists, tables and forms in the shared layout, every dynamic
//! value escaped, every text from the language files. Dates are UTC, written as the language
//! writes them, with a machine-readable `datetime`.
use super::{apps, Consented, Login, Menu, Section};
use crate::config::Conf;
use crate::util::html_escape;
use crate::web::{layout, messages};

/// The whole page.
pub(super) fn page(conf: &Conf, lang: &str, menu: &Menu, token: &str) -> String {
    let w = |k: &str| html_escape(&messages::word(lang, k));
    let mut body = String::from("<h1>Limette</h1>\n");
    if menu.error != 0 {
        body.push_str(&format!(
            "<p class=\"error\" id=\"msg\" role=\"alert\" trmsg=\"{0}\">{1}</p>\n",
            menu.error,
            html_escape(&messages::text(lang, menu.error))
        ));
    }
    body.push_str(&format!(
        "<p id=\"connected\">{} <strong>{}</strong></p>\n",
        w("connectedAs"),
        html_escape(&menu.user)
    ));
    if let Some(url) = &menu.explorer {
        body.push_str(&format!(
            "<p><a id=\"explorer\" href=\"{}\">{}</a></p>\n",
            html_escape(url),
            w("notificationsExplorer")
        ));
    }
    let titled: Vec<(&str, String)> = menu
        .sections
        .iter()
        .filter_map(|s| match s {
            Section::Apps(_) => Some(("appslist", w("yourApps"))),
            Section::History { .. } => Some(("loginHistory", w("loginHistory"))),
            Section::Consents(_) => Some(("oidcConsents", w("oidcConsents"))),
            Section::Logout => None,
        })
        .collect();
    if titled.len() > 1 {
        body.push_str(&format!("<nav aria-label=\"{}\"><ul>", w("menu")));
        for (id, title) in &titled {
            body.push_str(&format!("<li><a href=\"#{id}\">{title}</a></li>"));
        }
        body.push_str("</ul></nav>\n");
    }
    for s in &menu.sections {
        body.push_str(&match s {
            Section::Apps(cats) => apps_section(lang, cats),
            Section::History { success, failed } => history_section(lang, success, failed),
            Section::Consents(list) => consents_section(conf, lang, list, token),
            Section::Logout => format!(
                "<p id=\"logout\"><a class=\"button\" href=\"{}?logout=1\">{}</a></p>\n",
                html_escape(&conf.portal),
                w("logout")
            ),
        });
    }
    layout("Limette", &body)
}

fn apps_section(lang: &str, cats: &[apps::Category]) -> String {
    let mut out = format!(
        "<section id=\"appslist\">\n<h2>{}</h2>\n",
        html_escape(&messages::word(lang, "yourApps"))
    );
    if cats.is_empty() {
        out.push_str(&format!(
            "<p class=\"message\">{}</p>\n",
            html_escape(&messages::word(lang, "noAppAllowed"))
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

fn history_section(lang: &str, success: &[Login], failed: &[Login]) -> String {
    let w = |k: &str| html_escape(&messages::word(lang, k));
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
                when(lang, l.epoch),
                html_escape(&l.ip)
            ));
            if errors {
                let e = l.error.unwrap_or(5);
                out.push_str(&format!(
                    "<td trmsg=\"{e}\">{}</td>",
                    html_escape(&messages::text(lang, e))
                ));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
    out + "</section>\n"
}

fn consents_section(conf: &Conf, lang: &str, list: &[Consented], token: &str) -> String {
    let w = |k: &str| html_escape(&messages::word(lang, k));
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
            when(lang, c.epoch),
            html_escape(&c.scope),
            html_escape(&conf.portal),
            html_escape(token),
            w("unregister"),
            w("unregister"),
            rp = html_escape(&c.rp),
        ));
    }
    out + "</tbody></table>\n</section>\n"
}

/// An instant in the user's language, UTC, with its machine-readable value.
fn when(lang: &str, epoch: i64) -> String {
    format!(
        "<time datetime=\"{}\">{}</time>",
        messages::iso_date_time(epoch),
        html_escape(&messages::date_time(lang, epoch))
    )
}
