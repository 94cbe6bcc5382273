//! The frame of every portal page: `Page` knows the page's language (`lang::of`), its skin
//! (`skin::Skin`, the skin chosen by `sso::skin` when rules pick one) and the address the
//! language switch links to; it gives the page's words (escaped) and wraps a body in the one
//! layout: `lang` on `<html>`, the favicon, the stylesheets, a banner with the logo and the
//! language switch, for a signed-in user the account bar (`Header`: a skip link, who, where to
//! go, the sign-out form), one `<main>`. No inline script or style (the pages' policy allows
//! neither).
//! The layout is a `maud` template: every value is escaped unless it is a template's own
//! markup; the words are `Word`s (escaped, the apostrophe too).
use super::messages;
use super::skin::Skin;
use crate::config::Conf;
use crate::http::{Method, Request};
use crate::util;
use maud::{html, Markup, Render, DOCTYPE};
use std::fmt::Write as _;

/// The frame of one page.
#[derive(Debug, Clone)]
pub struct Page<'a> {
    conf: &'a Conf,
    /// The page's language (a shipped one).
    pub lang: &'static str,
    /// The skin (`portalSkin`, or the one a skin rule chose).
    skin: String,
    /// The path and query the language switch goes to, without any language parameter.
    here: String,
    /// The time zone of the page's dates (`zone::chosen`).
    zone: String,
    /// The account bar of a signed-in user's page (`Page::with_header`).
    header: Option<Header>,
}

/// The account bar atop a signed-in user's pages: the user's name, the places the user may go
/// (the portal, the console when its rules allow, the second factors when one is on) and the
/// sign-out form. Whoever knows the session builds it; the frame only draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The name shown (`cn`, else `_whatToTrace`).
    pub user: String,
    /// The links: address, the language key of their text, whether it is this page.
    pub links: Vec<(String, &'static str, bool)>,
    /// The sign-out form's token (bound to the session), `None` when the `Logout` tab's rule
    /// hides the sign-out from this user.
    pub logout_token: Option<String>,
}

impl<'a> Page<'a> {
    /// The frame of the answer to `req`.
    pub fn new(conf: &'a Conf, req: &Request) -> Page<'a> {
        Page {
            conf,
            lang: super::lang::of(req),
            skin: conf.area::<Skin>().skin.clone(),
            here: here(req),
            zone: super::zone::chosen(
                req.cookie(super::zone::COOKIE).as_deref(),
                &conf.area::<super::zone::Settings>().default,
            ),
            header: None,
        }
    }

    /// The same frame with a signed-in user's account bar.
    pub fn with_header(mut self, header: Option<Header>) -> Page<'a> {
        self.header = header;
        self
    }

    /// The path of the page (what the account bar compares its links with).
    pub fn path(&self) -> &str {
        self.here.split('?').next().unwrap_or("")
    }

    /// The same frame with the skin a rule chose, if any.
    pub fn with_skin(mut self, skin: Option<String>) -> Page<'a> {
        if let Some(s) = skin {
            self.skin = s;
        }
        self
    }

    /// The configuration the page belongs to.
    pub fn conf(&self) -> &'a Conf {
        self.conf
    }

    /// The portal's URL (with its trailing slash).
    pub fn portal(&self) -> &'a str {
        &self.conf.portal
    }

    /// The text of `key`, for a template (which escapes it).
    pub fn say(&self, key: &str) -> Word {
        Word(messages::word(self.lang, key))
    }

    /// The text of `key` with its `{name}` placeholders replaced by `values` (text), for a
    /// template (which escapes the whole).
    pub fn say_fill(&self, key: &str, values: &[(&str, &str)]) -> Word {
        Word(messages::fill(&messages::word(self.lang, key), values))
    }

    /// The text of `key` with its `{name}` placeholder replaced by a template's `html` (the
    /// text around it escaped).
    pub fn say_around(&self, key: &str, name: &str, html: Markup) -> Markup {
        let text = messages::word(self.lang, key);
        let (before, after) = text
            .split_once(&format!("{{{name}}}"))
            .unwrap_or((text.as_str(), ""));
        html! { (Word(before.to_string())) (html) (Word(after.to_string())) }
    }

    /// Portal error `num`'s message, for a template.
    pub fn say_error(&self, num: u16) -> Word {
        Word(messages::text(self.lang, num))
    }

    /// The text of `key`, not escaped (for a JSON answer or a header).
    pub fn raw(&self, key: &str) -> String {
        messages::word(self.lang, key)
    }

    /// An epoch as a date and time in the page's language and time zone (the browser's when it
    /// told, else `portalTimezone`), the zone's abbreviation or offset after the time.
    pub fn date_text(&self, epoch: i64) -> Word {
        let local = super::zone::local(&self.zone, epoch);
        let (y, m, d) = super::zone::rule::civil(local.epoch);
        let months = messages::word(self.lang, "months");
        let month_no = usize::try_from(m).unwrap_or(1);
        let month = months
            .split(',')
            .nth(month_no.saturating_sub(1))
            .unwrap_or("");
        let secs = local.epoch.rem_euclid(86_400);
        let time = format!("{:02}:{:02}", secs / 3600, (secs / 60) % 60);
        let (day_no, year) = (d.to_string(), y.to_string());
        let values = [
            ("month", month),
            ("day", day_no.as_str()),
            ("year", year.as_str()),
            ("time", time.as_str()),
            ("zone", local.label.as_str()),
        ];
        self.say_fill("dateFormat", &values)
    }

    /// A calendar day (`YYYY-MM-DD`, a notification's date) as the page's language writes it,
    /// in a `<time>` element; anything else as it is.
    pub fn day_markup(&self, day: &str) -> Markup {
        let mut parts = day.splitn(3, '-').map(|p| p.parse::<usize>().ok());
        let (Some(Some(y)), Some(Some(m)), Some(Some(d))) =
            (parts.next(), parts.next(), parts.next())
        else {
            return html! { (day) };
        };
        let months = messages::word(self.lang, "months");
        let Some(month) = months
            .split(',')
            .nth(m.wrapping_sub(1))
            .filter(|_| (1..=31).contains(&d))
        else {
            return html! { (day) };
        };
        let (d, y) = (d.to_string(), y.to_string());
        let text = self.say_fill("dayFormat", &[("month", month), ("day", &d), ("year", &y)]);
        html! { time datetime=(day) { (text) } }
    }

    /// An epoch as `date_text` writes it, in a `<time>` element with its machine-readable value
    /// (`YYYY-MM-DDTHH:MM:SSZ`).
    pub fn time_markup(&self, epoch: i64) -> Markup {
        let secs = epoch.rem_euclid(86_400);
        let stamp = format!(
            "{}T{:02}:{:02}:{:02}Z",
            util::date10(epoch),
            secs / 3600,
            (secs / 60) % 60,
            secs % 60
        );
        html! { time datetime=(stamp) { (self.date_text(epoch)) } }
    }

    /// The whole page of a template's `body`.
    pub fn render_markup(&self, title: &str, body: Markup) -> String {
        self.render_head(title, html! {}, body)
    }

    /// A page that goes on to `url` by itself after `seconds` (a `refresh` meta: no script) and
    /// shows a link to it meanwhile.
    pub fn render_then(&self, title: &str, body: Markup, seconds: u32, url: &str) -> String {
        let head = html! { meta http-equiv="refresh" content={ (seconds) ";url=" (url) }; };
        let body = html! {
            (body) "\n"
            p { a.button #continue href=(url) { (self.say("continue")) } }
        };
        self.render_head(title, head, body)
    }

    fn render_head(&self, title: &str, head: Markup, body: Markup) -> String {
        let skin = self.conf.area::<Skin>();
        let extra = [
            Skin::stylesheet(&self.skin),
            skin.background
                .as_ref()
                .map(|_| "/static/portal.css".into()),
            skin.custom_css.clone(),
        ];
        let page = html! {
            (DOCTYPE) "\n"
            html lang=(self.lang) {
                head {
                    meta charset="utf-8";
                    (head)
                    meta name="viewport" content="width=device-width, initial-scale=1"; "\n"
                    title { (Word(title.to_string())) " – " (self.say("authPortal")) } "\n"
                    link rel="icon" href=(skin.favicon); "\n"
                    link rel="stylesheet" href="/static/limette.css"; "\n"
                    script src="/static/timezone.js" defer {} "\n"
                    @for css in extra.iter().flatten() {
                        link rel="stylesheet" href=(css); "\n"
                    }
                }
                "\n"
                body {
                    "\n"
                    @if self.header.is_some() { a.skip href="#main" { (self.say("skipToContent")) } "\n" }
                    header.banner { (self.brand(&skin)) (self.switch(&skin)) } "\n"
                    @if let Some(h) = &self.header { (self.account_bar(h)) "\n" }
                    main.box #main tabindex=[self.header.as_ref().map(|_| "-1")] { "\n" (body) "\n" } "\n"
                }
            }
            "\n"
        };
        page.into_string()
    }

    fn brand(&self, skin: &Skin) -> Markup {
        html! {
            a.brand href=(self.conf.portal) {
                @if let Some(logo) = &skin.logo { img src=(logo) alt="" class="logo"; }
                span { (self.say("authPortal")) }
            }
        }
    }

    /// The account bar: who, the links (the current one marked), the sign-out form.
    fn account_bar(&self, h: &Header) -> Markup {
        html! {
            nav.account aria-label=(self.say("accountMenu")) {
                p.who #connected { (self.say("connectedAs")) " " strong { (h.user) } }
                ul {
                    @for (href, key, current) in &h.links {
                        li { a href=(href) aria-current=[current.then_some("page")] { (self.say(key)) } }
                    }
                }
                // The token rides in the address, not in a field: the page's own forms keep the
                // only `token` fields. Once posted, the session it is bound to has ended.
                @if let Some(token) = &h.logout_token {
                    form method="post" action={ "/?logout=1&token=" (token) } class="logout" {
                        button type="submit" #header-logout class="secondary" { (self.say("logout")) }
                    }
                }
            }
        }
    }

    /// LemonLDAP::NG's `showLanguages`: one link a shipped language, each in its own words.
    fn switch(&self, skin: &Skin) -> Markup {
        if !skin.show_languages || messages::codes().count() < 2 {
            return html! {};
        }
        let sep = if self.here.contains('?') { '&' } else { '?' };
        html! {
            nav.langs aria-label=(self.say("language")) {
                @for (i, code) in messages::codes().enumerate() {
                    @if i > 0 { " " }
                    @let name = Word(messages::word(code, "languageName"));
                    @if code == self.lang {
                        span.lang.current lang=(code) aria-current="true" { (name) }
                    } @else {
                        a.lang lang=(code) hreflang=(code) href={ (self.here) (sep) "lang=" (code) } { (name) }
                    }
                }
            }
        }
    }
}

/// The notice above a form that came back too old (a consent or a confirmation left open
/// longer than `formTimeout`): it says so, and the page asks again with a fresh token.
pub fn stale_notice(page: &Page) -> Markup {
    html! {
        div class="message" role="status" id="stale" { p { (page.say("formPageExpired")) } } "\n"
    }
}

/// The portal's own words (its language files) on a page: escaped by the template like every
/// value, the apostrophe too (`&#39;`, as the pages have always written it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word(pub String);

impl Render for Word {
    fn render_to(&self, out: &mut String) {
        for (i, part) in self.0.split('\'').enumerate() {
            if i > 0 {
                out.push_str("&#39;");
            }
            // Writing into a String cannot fail.
            let _ = maud::Escaper::new(out).write_str(part);
        }
    }
}

/// Where the language switch goes: this path with its query minus the language parameters; for
/// a posted form, the path with the form's `url` (the page to go to after login), nothing else.
fn here(req: &Request) -> String {
    let pairs: Vec<(String, String)> = if req.method == Method::Post {
        req.form_param("url")
            .map(|u| vec![("url".to_string(), u)])
            .unwrap_or_default()
    } else {
        req.query_pairs()
    };
    let kept: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "lang" | "llnglanguage" | "setCookieLang"))
        .map(|(k, v)| format!("{}={}", util::url_encode(k), util::url_encode(v)))
        .collect();
    match kept.is_empty() {
        true => req.path.clone(),
        false => format!("{}?{}", req.path, kept.join("&")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use maud::PreEscaped;

    fn conf() -> Conf {
        Conf::of_json(serde_json::json!({"cfgNum": 1, "portal": "http://p/"}))
    }

    #[test]
    fn the_frame_speaks_the_language_and_switches() {
        let c = conf();
        let req = Request::new(Method::Get, "/mynotifications?x=1&lang=fr");
        let p = Page::new(&c, &req);
        let html = p.render_markup("Titre", PreEscaped("<p>corps</p>".into()));
        assert!(html.contains("<html lang=\"fr\">"), "{html}");
        assert!(
            html.contains("<title>Titre – Portail d&#39;authentification</title>"),
            "{html}"
        );
        assert!(html.contains("<img src=\"/static/limette.svg\""), "{html}");
        assert!(
            html.contains("href=\"/mynotifications?x=1&amp;lang=en\""),
            "{html}"
        );
        assert!(
            html.contains("aria-current=\"true\">Français</span>"),
            "{html}"
        );
        assert_eq!(
            p.date_text(0).render().into_string(),
            "1 janvier 1970 à 00:00 UTC"
        );
        let en = Page::new(&c, &Request::new(Method::Get, "/"));
        assert_eq!(
            en.date_text(86_400 * 40 + 3_660).render().into_string(),
            "February 10, 1970, 01:01 UTC"
        );
        assert_eq!(
            en.time_markup(1_709_629_622).into_string(),
            "<time datetime=\"2024-03-05T09:07:02Z\">March 5, 2024, 09:07 UTC</time>"
        );
        assert!(en
            .render_markup("T", html! {})
            .contains("href=\"/?lang=fr\""));
        // The browser's zone from its cookie; a malformed one is ignored.
        let zoned = |cookie: &str| {
            let req = Request::new(Method::Get, "/?lang=fr").with_header("Cookie", cookie);
            Page::new(&c, &req).date_text(1_709_629_622).0
        };
        assert_eq!(zoned("limette_tz=Europe/Paris"), "5 mars 2024 à 10:07 CET");
        assert_eq!(
            zoned("limette_tz=../Europe/Paris"),
            "5 mars 2024 à 09:07 UTC"
        );
    }
}
