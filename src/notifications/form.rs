//! The notification form and its parts, as LemonLDAP::NG renders them (`notifinclude.tpl`):
//! notification i (1-based, sorted by date then reference) is announced by a hidden
//! `reference1x<i>`, its titles in `<h2 class="notifText">`, subtitles in
//! `<h3 class="notifText">`, texts in `<p class="notifText">`, and check box j in a
//! `<p class="notifCheck">` named `check1x<i>x<j>` with value `accepted`. Every text is
//! HTML-escaped after any markup was stripped; nothing else of a notification is shown. The
//! frame of the area's pages (`frame`) is here too, for the login's hold and the explorer.
use super::model::Notification;
use crate::config::Conf;
use crate::http::Request;
use crate::storage::Session;
use crate::util::html_escape;
use crate::web::Page;

/// How the boxes of a notification are shown.
#[derive(Debug, Clone, Copy)]
pub enum Boxes<'a> {
    /// Unticked: the first showing.
    Fresh,
    /// Ticked and disabled: an accepted notification (explorer).
    Done,
    /// Again after an incomplete form: the ticks kept, each missing box marked invalid with
    /// `hint` (HTML) tied to it.
    Again(&'a [bool], &'a str),
}

/// The inner fragment of notification `i` (1-based).
pub fn fragment(i: usize, n: &Notification, boxes: Boxes) -> String {
    let mut out = format!("<div class=\"notif\" id=\"notif{i}\">\n");
    out.push_str(&format!(
        "<input type=\"hidden\" name=\"reference1x{i}\" value=\"{}\">\n",
        html_escape(&n.reference)
    ));
    for t in &n.title {
        out.push_str(&format!("<h2 class=\"notifText\">{}</h2>\n", shown(t)));
    }
    for t in &n.subtitle {
        out.push_str(&format!("<h3 class=\"notifText\">{}</h3>\n", shown(t)));
    }
    for t in &n.text {
        out.push_str(&format!("<p class=\"notifText\">{}</p>\n", shown(t)));
    }
    for (j, c) in n.check.iter().enumerate() {
        let id = format!("1x{i}x{}", j + 1);
        let (state, hint) = match boxes {
            Boxes::Fresh => (String::new(), String::new()),
            Boxes::Done => (" checked disabled".to_string(), String::new()),
            Boxes::Again(ticks, _) if ticks.get(j).copied().unwrap_or(false) => {
                (" checked".to_string(), String::new())
            }
            Boxes::Again(_, hint) => (
                format!(" aria-invalid=\"true\" aria-describedby=\"hint{id}\""),
                format!(" <span class=\"hint\" id=\"hint{id}\">{hint}</span>"),
            ),
        };
        out.push_str(&format!(
            "<p class=\"notifCheck\"><input type=\"checkbox\" name=\"check{id}\" id=\"{id}\" value=\"accepted\"{state}> <label for=\"{id}\">{}</label>{hint}</p>\n",
            shown(c)
        ));
    }
    out.push_str("</div>\n");
    out
}

/// The whole page: the notifications, the bound token, Accept and Cancel. `ticks`: the boxes
/// an incomplete form ticked (per notification), shown again with the missing ones named.
pub fn page(
    page: &Page,
    list: &[Notification],
    token: &str,
    ticks: Option<&[Vec<bool>]>,
) -> String {
    let hint = page.word("checkRequired");
    let msg = match ticks {
        None => String::new(),
        Some(ticks) => {
            let missing: Vec<String> = list
                .iter()
                .zip(ticks)
                .flat_map(|(n, t)| {
                    n.check
                        .iter()
                        .zip(t)
                        .filter(|(_, ticked)| !**ticked)
                        .map(|(c, _)| format!("« {} »", shown(c)))
                })
                .collect();
            format!(
                "<div class=\"error\" role=\"alert\" id=\"msg\"><p>{}</p><p id=\"missing\">{}</p></div>\n",
                page.word("mustCheckAll"),
                page.fill("missingChecks", &[("boxes", &missing.join(", "))])
            )
        }
    };
    let mut body = format!(
        "<h1 trspan=\"gotNewMessages\">{}</h1>\n{msg}<form action=\"/notifback\" method=\"post\" class=\"notif\">\n<input type=\"hidden\" name=\"token\" value=\"{}\">\n",
        page.word("gotNewMessages"),
        html_escape(token)
    );
    for (i, n) in list.iter().enumerate() {
        let boxes = match ticks.and_then(|t| t.get(i)) {
            Some(t) => Boxes::Again(t, &hint),
            None => Boxes::Fresh,
        };
        body.push_str(&fragment(i + 1, n, boxes));
    }
    body.push_str(&format!(
        "<p class=\"actions\"><button type=\"submit\">{}</button> <button type=\"submit\" name=\"cancel\" value=\"1\" class=\"secondary\" id=\"goback\" formnovalidate>{}</button></p>\n</form>",
        page.word("accept"),
        page.word("cancel")
    ));
    page.render(&page.raw("gotNewMessages"), &body)
}

/// A text as shown: markup stripped and HTML-escaped, once (`model::display` does both).
fn shown(s: &str) -> String {
    super::model::display(s)
}

/// The frame of this area's pages, skinned by `portalSkinRules` for the session's user.
pub fn frame<'a>(conf: &'a Conf, req: &Request, s: &Session) -> Page<'a> {
    let rules = conf.area::<crate::sso::skin::SkinRules>();
    Page::new(conf, req).with_skin(rules.choose(Some(s), &req.ip(), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_escaped_once() {
        let n = &super::super::model::parse_json(
            br#"{"uid":"u","date":"2024-01-01","reference":"R&D","title":"<b>x</b> & \"y\"","check":"ok"}"#,
            "",
        )
        .unwrap()[0];
        let html = fragment(1, n, Boxes::Fresh);
        assert!(
            html.contains("<h2 class=\"notifText\">x &amp; &quot;y&quot;</h2>"),
            "{html}"
        );
        assert!(html.contains("value=\"R&amp;D\""), "{html}");
        assert!(
            !html.contains("&amp;amp;") && !html.contains("&amp;quot;"),
            "{html}"
        );
        assert!(!html.contains("<b>"), "{html}");
    }
}
