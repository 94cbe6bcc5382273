//! The frame of every portal page: `Page` knows the page's language (`lang::of`), its skin
//! (`skin::Skin`, the skin chosen by `sso::skin` when rules pick one) and the address the
//! language switch links to; it gives the page's words (escaped) and wraps a body in the one
//! layout: `lang` on `<html>`, the favicon, the stylesheets, a banner with the logo and the
//! language switch, one `<main>`. No inline script or style (the pages' policy allows neither).
use super::messages;
use super::skin::Skin;
use crate::config::Conf;
use crate::http::{Method, Request};
use crate::util::{self, html_escape};

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
}

impl<'a> Page<'a> {
    /// The frame of the answer to `req`.
    pub fn new(conf: &'a Conf, req: &Request) -> Page<'a> {
        Page {
            conf,
            lang: super::lang::of(req),
            skin: conf.area::<Skin>().skin.clone(),
            here: here(req),
        }
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

    /// The text of `key`, HTML-escaped.
    pub fn word(&self, key: &str) -> String {
        html_escape(&messages::word(self.lang, key))
    }

    /// The text of `key`, not escaped (for a JSON answer or a header).
    pub fn raw(&self, key: &str) -> String {
        messages::word(self.lang, key)
    }

    /// The text of `key` escaped, its `{name}` placeholders replaced by HTML fragments the
    /// caller built (and escaped).
    pub fn fill(&self, key: &str, html: &[(&str, &str)]) -> String {
        messages::fill(&self.word(key), html)
    }

    /// Portal error `num`'s message, escaped.
    pub fn error_text(&self, num: u16) -> String {
        html_escape(&messages::text(self.lang, num))
    }

    /// An epoch as a date and time in the page's language, in UTC (the browser's time zone is
    /// not known to the server; the text says UTC).
    pub fn date(&self, epoch: i64) -> String {
        let day = util::date10(epoch);
        let mut parts = day.splitn(3, '-');
        let (y, m, d) = (parts.next(), parts.next(), parts.next());
        let month_no: usize = m.and_then(|m| m.parse().ok()).unwrap_or(1);
        let months = messages::word(self.lang, "months");
        let month = months
            .split(',')
            .nth(month_no.saturating_sub(1))
            .unwrap_or("");
        let secs = epoch.rem_euclid(86_400);
        let time = format!("{:02}:{:02}", secs / 3600, (secs / 60) % 60);
        let day_no = d
            .and_then(|d| d.parse::<u32>().ok())
            .unwrap_or(1)
            .to_string();
        let values = [
            ("month", month),
            ("day", day_no.as_str()),
            ("year", y.unwrap_or("")),
            ("time", time.as_str()),
        ];
        html_escape(&messages::fill(
            &messages::word(self.lang, "dateFormat"),
            &values,
        ))
    }

    /// An epoch as `date` writes it, in a `<time>` element with its machine-readable value
    /// (`YYYY-MM-DDTHH:MM:SSZ`).
    pub fn time(&self, epoch: i64) -> String {
        let secs = epoch.rem_euclid(86_400);
        format!(
            "<time datetime=\"{}T{:02}:{:02}:{:02}Z\">{}</time>",
            util::date10(epoch),
            secs / 3600,
            (secs / 60) % 60,
            secs % 60,
            self.date(epoch)
        )
    }

    /// The whole page: `title` (text) and `body` (HTML).
    pub fn render(&self, title: &str, body: &str) -> String {
        self.render_head(title, "", body)
    }

    /// A page that goes on to `url` by itself after `seconds` (a `refresh` meta: no script) and
    /// shows a link to it meanwhile.
    pub fn render_then(&self, title: &str, body: &str, seconds: u32, url: &str) -> String {
        let url = html_escape(url);
        let head = format!("<meta http-equiv=\"refresh\" content=\"{seconds};url={url}\">");
        let body = format!(
            "{body}\n<p><a class=\"button\" id=\"continue\" href=\"{url}\">{}</a></p>",
            self.word("continue")
        );
        self.render_head(title, &head, &body)
    }

    fn render_head(&self, title: &str, head: &str, body: &str) -> String {
        let skin = self.conf.area::<Skin>();
        let mut links = format!(
            "<link rel=\"icon\" href=\"{}\">\n<link rel=\"stylesheet\" href=\"/static/limette.css\">\n",
            html_escape(&skin.favicon)
        );
        let extra = [
            Skin::stylesheet(&self.skin),
            skin.background
                .as_ref()
                .map(|_| "/static/portal.css".into()),
            skin.custom_css.clone(),
        ];
        for css in extra.iter().flatten() {
            links.push_str(&format!(
                "<link rel=\"stylesheet\" href=\"{}\">\n",
                html_escape(css)
            ));
        }
        let portal = self.word("authPortal");
        format!(
            "<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">{head}\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{title} – {portal}</title>\n{links}</head>\n\
<body>\n<header class=\"banner\">{brand}{switch}</header>\n\
<main class=\"box\" id=\"main\">\n{body}\n</main>\n</body></html>\n",
            lang = self.lang,
            title = html_escape(title),
            brand = self.brand(&skin, &portal),
            switch = self.switch(&skin),
        )
    }

    fn brand(&self, skin: &Skin, portal: &str) -> String {
        let logo = skin
            .logo
            .as_ref()
            .map(|l| format!("<img src=\"{}\" alt=\"\" class=\"logo\">", html_escape(l)))
            .unwrap_or_default();
        format!(
            "<a class=\"brand\" href=\"{}\">{logo}<span>{portal}</span></a>",
            html_escape(&self.conf.portal)
        )
    }

    /// LemonLDAP::NG's `showLanguages`: one link a shipped language, each in its own words.
    fn switch(&self, skin: &Skin) -> String {
        if !skin.show_languages || messages::codes().count() < 2 {
            return String::new();
        }
        let sep = if self.here.contains('?') { '&' } else { '?' };
        let links: Vec<String> = messages::codes()
            .map(|code| {
                let name = html_escape(&messages::word(code, "languageName"));
                if code == self.lang {
                    format!("<span class=\"lang current\" lang=\"{code}\" aria-current=\"true\">{name}</span>")
                } else {
                    format!(
                        "<a class=\"lang\" lang=\"{code}\" hreflang=\"{code}\" href=\"{}\">{name}</a>",
                        html_escape(&format!("{}{sep}lang={code}", self.here))
                    )
                }
            })
            .collect();
        format!(
            "<nav class=\"langs\" aria-label=\"{}\">{}</nav>",
            self.word("language"),
            links.join(" ")
        )
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

    fn conf() -> Conf {
        Conf::of_json(serde_json::json!({"cfgNum": 1, "portal": "http://p/"}))
    }

    #[test]
    fn the_frame_speaks_the_language_and_switches() {
        let c = conf();
        let req = Request::new(Method::Get, "/mynotifications?x=1&lang=fr");
        let p = Page::new(&c, &req);
        let html = p.render("Titre", "<p>corps</p>");
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
        assert_eq!(p.date(0), "1 janvier 1970 à 00:00 UTC");
        let en = Page::new(&c, &Request::new(Method::Get, "/"));
        assert_eq!(en.date(86_400 * 40 + 3_660), "February 10, 1970, 01:01 UTC");
        assert_eq!(
            en.time(1_709_629_622),
            "<time datetime=\"2024-03-05T09:07:02Z\">March 5, 2024, 09:07 UTC</time>"
        );
        assert!(en.render("T", "").contains("href=\"/?lang=fr\""));
    }
}
