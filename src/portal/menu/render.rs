//! The menu's HTML: headings, lists, tables and forms in the portal's frame (`web::Page`),
//! every dynamic value escaped, every text from the language files in the page's language.
//! Dates are in the user's time zone (`web::zone`), written as the language writes them, with a
//! machine-readable `datetime`.
use super::{apps, Consented, Login, Menu, Section, Tiles, FILTER_FROM};
use crate::portal::pages;
use crate::web::page::Word;
use crate::web::Page;
use maud::{html, Markup};

/// The tokens of the page's forms, each bound to the session and its action.
pub(super) struct Tokens {
    /// The consent revocation form's.
    pub revoke: String,
    /// The sign-out form's (`portal::logout_token`).
    pub logout: String,
    /// The password form's (`password::binding`).
    pub password: String,
}

/// The whole page.
pub(super) fn page(page: &Page, menu: &Menu, tokens: &Tokens) -> String {
    let titled: Vec<(&str, Word)> = menu
        .sections
        .iter()
        .filter_map(|s| match s {
            Section::Apps(_) => Some(("appslist", page.say("yourApps"))),
            Section::History { .. } => Some(("loginHistory", page.say("loginHistory"))),
            Section::Consents(_) => Some(("oidcConsents", page.say("oidcConsents"))),
            Section::Password(_) => Some(("password", page.say("changePwd"))),
            Section::Logout => None,
        })
        .collect();
    let body = html! {
        h1 { (page.say("portalTitle")) } "\n"
        @if menu.error != 0 {
            div class="error" id="msg" role="alert" trmsg=(menu.error) { p { (page.say_error(menu.error)) } } "\n"
        }
        @if let Some(s) = &menu.said { (s.markup(page)) }
        @if let Some(url) = &menu.explorer {
            p { a id="explorer" href=(url) { (page.say("notificationsExplorer")) } } "\n"
        }
        @if let Some(url) = &menu.sfa {
            p { a id="sfa" href=(url) { (page.say("sfaManager")) } } "\n"
        }
        @if titled.len() > 1 {
            nav aria-label=(page.say("menu")) {
                ul { @for (id, title) in &titled { li { a href={ "#" (id) } { (title) } } } }
            } "\n"
        }
        @for s in &menu.sections {
            @match s {
                Section::Apps(tiles) => (apps_section(page, tiles)),
                Section::History { success, failed } => (history_section(page, success, failed)),
                Section::Consents(list) => (consents_section(page, list, &tokens.revoke)),
                Section::Password(form) => (super::password::render(page, form, &tokens.password)),
                Section::Logout => { (pages::logout_form(page, &tokens.logout, html! {})) "\n" },
            }
        }
    };
    page.render_markup(&page.raw("portalTitle"), body)
}

fn apps_section(page: &Page, tiles: &Tiles) -> Markup {
    let query = tiles.query.trim();
    let shown = apps::count(&tiles.cats).to_string();
    html! {
        section id="appslist" {
            "\n" h2 { (page.say("yourApps")) } "\n"
            @if tiles.total > FILTER_FROM || !query.is_empty() { (filter_form(page, query)) }
            @if tiles.total == 0 {
                p class="message" { (page.say("noAppAllowed")) } "\n"
            } @else if tiles.cats.is_empty() {
                p class="message" id="appcount" role="status" { (page.say_fill("appFilterNone", &[("q", query)])) } "\n"
            } @else if !query.is_empty() {
                p id="appcount" role="status" { (page.say_fill("appFilterCount", &[("q", query), ("n", &shown)])) } "\n"
            }
            @for c in &tiles.cats { (category(c, 3)) }
        } "\n"
    }
}

/// The filter: a GET form on the portal (`?q=`), which works without script.
fn filter_form(page: &Page, query: &str) -> Markup {
    html! {
        form.appfilter method="get" action=(page.portal()) role="search" {
            label for="appq" { (page.say("appFilter")) }
            span.row {
                input type="search" #appq name="q" value=(query) maxlength="100";
                button type="submit" class="secondary" { (page.say("appFilterButton")) }
                @if !query.is_empty() { a.button.secondary #appall href=(page.portal()) { (page.say("appFilterAll")) } }
            }
        } "\n"
        script src="/static/app_filter.js" defer {} "\n"
    }
}

fn category(c: &apps::Category, level: usize) -> Markup {
    let h = level.min(6);
    let heading = html! { (c.name) };
    html! {
        div class="category" id={ "cat-" (c.id) } {
            "\n"
            @match h {
                3 => h3 { (heading) },
                4 => h4 { (heading) },
                5 => h5 { (heading) },
                _ => h6 { (heading) },
            }
            "\n"
            @if !c.apps.is_empty() {
                ul class="apps" {
                    "\n"
                    @for a in &c.apps {
                        li class="application" id={ "app-" (a.id) } {
                            a.tile href=(a.uri) title=(a.tooltip) {
                                @if let Some(l) = &a.logo {
                                    img.applogo src=(l) alt="" width="48" height="48";
                                } @else {
                                    span.badge aria-hidden="true" { (initial(&a.name)) }
                                }
                                span.appname { (a.name) }
                                @if let Some(d) = &a.description { span class="appdesc" { (d) } }
                            }
                        } "\n"
                    }
                } "\n"
            }
            @for sub in &c.categories { (category(sub, level + 1)) }
        } "\n"
    }
}

/// The letter of an application without a logo: the first letter or digit of its name.
fn initial(name: &str) -> String {
    name.chars()
        .find(|c| c.is_alphanumeric())
        .map_or_else(|| "•".into(), |c| c.to_uppercase().collect())
}

fn history_section(page: &Page, success: &[Login], failed: &[Login]) -> Markup {
    let w = |k: &str| page.say(k);
    html! {
        section id="loginHistory" {
            "\n" h2 { (w("loginHistory")) } "\n"
            @if success.is_empty() && failed.is_empty() { p { (w("noHistory")) } "\n" }
            @for (list, title, errors) in [(success, "lastLogins", false), (failed, "lastFailedLogins", true)] {
                @if !list.is_empty() {
                    h3 { (w(title)) } "\n"
                    table id=(if errors { "failedLogins" } else { "successLogins" }) {
                        thead { tr {
                            th scope="col" { (w("date")) }
                            th scope="col" { (w("ipAddr")) }
                            @if errors { th scope="col" { (w("errorMsg")) } }
                        } }
                        tbody {
                            "\n"
                            @for l in list {
                                tr {
                                    td { (page.time_markup(l.epoch)) }
                                    td { (l.ip) }
                                    @if errors {
                                        @let e = l.error.unwrap_or(5);
                                        td trmsg=(e) { (page.say_error(e)) }
                                    }
                                } "\n"
                            }
                        }
                    } "\n"
                }
            }
        } "\n"
    }
}

fn consents_section(page: &Page, list: &[Consented], token: &str) -> Markup {
    let w = |k: &str| page.say(k);
    html! {
        section id="oidcConsents" {
            "\n" h2 { (w("oidcConsents")) } "\n"
            @if list.is_empty() {
                p { (w("noOidcConsent")) } "\n"
            } @else {
                table {
                    thead { tr {
                        th scope="col" { (w("service")) }
                        th scope="col" { (w("date")) }
                        th scope="col" { (w("scope")) }
                        th scope="col" { (w("action")) }
                    } }
                    tbody {
                        "\n"
                        @for c in list {
                            tr class="consent" data-rp=(c.rp) {
                                td { (c.name) }
                                td { (page.time_markup(c.epoch)) }
                                td { (c.scope) }
                                td {
                                    form method="post" action=(page.portal()) {
                                        input type="hidden" name="revokeConsent" value=(c.rp);
                                        input type="hidden" name="token" value=(token);
                                        button type="submit" class="button secondary" aria-label={ (w("unregister")) " " (c.name) } { (w("unregister")) }
                                    }
                                }
                            } "\n"
                        }
                    }
                } "\n"
            }
        } "\n"
    }
}
