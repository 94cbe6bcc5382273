//! The notification form and its parts, as LemonLDAP::NG renders them (`notifinclude.tpl`):
//! notification i (1-based, sorted by date then reference) is announced by a hidden
//! `reference1x<i>`, its titles in `<h2 class="notifText">`, subtitles in
//! `<h3 class="notifText">`, texts in `<p class="notifText">`, and check box j in a
//! `<p class="notifCheck">` named `check1x<i>x<j>` with value `accepted`. Every text is
//! escaped by the template after any markup was stripped; nothing else of a notification is shown. The
//! frame of the area's pages (`frame`) is here too, for the login's hold and the explorer.
use super::model::Notification;
use crate::config::Conf;
use crate::http::Request;
use crate::storage::Session;
use crate::web::page::Word;
use crate::web::Page;
use maud::{html, Markup};

/// How the boxes of a notification are shown.
#[derive(Debug, Clone, Copy)]
pub enum Boxes<'a> {
    /// Unticked: the first showing.
    Fresh,
    /// Ticked and disabled: an accepted notification (explorer).
    Done,
    /// Again after an incomplete form: the ticks kept, each missing box marked invalid with
    /// `hint` tied to it.
    Again(&'a [bool], &'a Word),
}

/// The inner fragment of notification `i` (1-based).
pub fn fragment(i: usize, n: &Notification, boxes: Boxes) -> Markup {
    html! {
        div class="notif" id={ "notif" (i) } {
            "\n"
            input type="hidden" name={ "reference1x" (i) } value=(n.reference); "\n"
            @for t in &n.title { h2 class="notifText" { (shown(t)) } "\n" }
            @for t in &n.subtitle { h3 class="notifText" { (shown(t)) } "\n" }
            @for t in &n.text { p class="notifText" { (shown(t)) } "\n" }
            @for (j, c) in n.check.iter().enumerate() {
                (check_box(&format!("1x{i}x{}", j + 1), c, j, boxes)) "\n"
            }
        } "\n"
    }
}

/// Check box `id` (the `j`th of its notification) with its label `c`.
fn check_box(id: &str, c: &str, j: usize, boxes: Boxes) -> Markup {
    let (ticked, disabled, hint) = match boxes {
        Boxes::Fresh => (false, false, None),
        Boxes::Done => (true, true, None),
        Boxes::Again(ticks, _) if ticks.get(j).copied().unwrap_or(false) => (true, false, None),
        Boxes::Again(_, hint) => (false, false, Some(hint)),
    };
    html! {
        p class="notifCheck" {
            @if let Some(_) = hint {
                input type="checkbox" name={ "check" (id) } id=(id) value="accepted" aria-invalid="true" aria-describedby={ "hint" (id) };
            } @else {
                input type="checkbox" name={ "check" (id) } id=(id) value="accepted" checked[ticked] disabled[disabled];
            }
            " " label for=(id) { (shown(c)) }
            @if let Some(hint) = hint { " " span class="hint" id={ "hint" (id) } { (hint) } }
        }
    }
}

/// The whole page: the notifications, the bound token, Accept and Cancel. `ticks`: the boxes
/// an incomplete form ticked (per notification), shown again with the missing ones named.
pub fn page(
    page: &Page,
    list: &[Notification],
    token: &str,
    ticks: Option<&[Vec<bool>]>,
) -> String {
    let hint = page.say("checkRequired");
    let body = html! {
        h1 trspan="gotNewMessages" { (page.say("gotNewMessages")) } "\n"
        @if let Some(ticks) = ticks {
            div class="error" role="alert" id="msg" {
                p { (page.say("mustCheckAll")) }
                p id="missing" { (page.say_fill("missingChecks", &[("boxes", &missing(list, ticks))])) }
            } "\n"
        }
        form action="/notifback" method="post" class="notif" {
            "\n"
            input type="hidden" name="token" value=(token); "\n"
            @for (i, n) in list.iter().enumerate() {
                @let boxes = match ticks.and_then(|t| t.get(i)) {
                    Some(t) => Boxes::Again(t, &hint),
                    None => Boxes::Fresh,
                };
                (fragment(i + 1, n, boxes))
            }
            p class="actions" {
                button type="submit" { (page.say("accept")) } " "
                button type="submit" name="cancel" value="1" class="secondary" id="goback" formnovalidate { (page.say("cancel")) }
            } "\n"
        }
    };
    page.render_markup(&page.raw("gotNewMessages"), body)
}

/// The boxes an incomplete form left unticked, as the message names them (text).
fn missing(list: &[Notification], ticks: &[Vec<bool>]) -> String {
    let names: Vec<String> = list
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
    names.join(", ")
}

/// A text as shown: markup stripped (the template escapes what is left).
fn shown(s: &str) -> String {
    super::model::strip_tags(s)
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
        let html = fragment(1, n, Boxes::Fresh).into_string();
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
