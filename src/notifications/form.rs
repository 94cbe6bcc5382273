//! The notification form and its parts, as LemonLDAP::NG renders them (`notifinclude.tpl`):
//! notification i (1-based, sorted by date then reference) is announced by a hidden
//! `reference1x<i>`, its titles in `<h2 class="notifText">`, subtitles in
//! `<h3 class="notifText">`, texts in `<p class="notifText">`, and check box j in a
//! `<p class="notifCheck">` named `check1x<i>x<j>` with value `accepted`. Every text is
//! HTML-escaped after any markup was stripped; nothing else of a notification is shown.
use super::model::Notification;
use crate::util::html_escape;
use crate::web::messages;

/// The inner fragment of one notification; `done` renders the boxes checked and disabled
/// (explorer).
pub fn fragment(i: usize, n: &Notification, done: bool) -> String {
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
    let state = if done { " checked disabled" } else { "" };
    for (j, c) in n.check.iter().enumerate() {
        let id = format!("1x{i}x{}", j + 1);
        out.push_str(&format!(
            "<p class=\"notifCheck\"><input type=\"checkbox\" name=\"check{id}\" id=\"{id}\" value=\"accepted\"{state}> <label for=\"{id}\">{}</label></p>\n",
            shown(c)
        ));
    }
    out.push_str("</div>\n");
    out
}

/// The whole page: the notifications, the bound token, Accept and Cancel.
pub fn page(list: &[Notification], token: &str, must_check_all: bool) -> String {
    let msg = if must_check_all {
        format!(
            "<p class=\"error\" id=\"msg\">{}</p>\n",
            word("mustCheckAll")
        )
    } else {
        String::new()
    };
    let mut body = format!(
        "<h1 trspan=\"gotNewMessages\">{}</h1>\n{msg}<form action=\"/notifback\" method=\"post\" class=\"notif\">\n<input type=\"hidden\" name=\"token\" value=\"{}\">\n",
        word("gotNewMessages"),
        html_escape(token)
    );
    for (i, n) in list.iter().enumerate() {
        body.push_str(&fragment(i + 1, n, false));
    }
    body.push_str(&format!(
        "<p><button type=\"submit\">{}</button> <a class=\"button secondary\" id=\"goback\" href=\"/notifback?cancel=1\">{}</a></p>\n</form>",
        word("accept"),
        word("cancel")
    ));
    crate::web::layout("Limette: new messages", &body)
}

/// A text as shown: markup stripped and HTML-escaped, once (`model::display` does both).
fn shown(s: &str) -> String {
    super::model::display(s)
}

fn word(key: &str) -> String {
    html_escape(&messages::lookup("en", key).unwrap_or_else(|| key.to_string()))
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
        let html = fragment(1, n, false);
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
