//! The console's sessions page: SSO sessions searched by user (`_whatToTrace`), address
//! (`ipAddr`) or day of start (`_startTime`); one session's keys, the secret ones hidden as the
//! REST session server hides them (`hiddenAttributes`, `restExportSecretKeys`), the others
//! readable (`session_values`: dates, durations, lists) below when the session ends; deletion of one
//! session or of all of a user's, through `sso::end`, which tells the relying parties (the
//! session-end hook: back-channel logout where configured). Either deletion asks first (a
//! page that says what will end, the administrator's own session named as such) and acts only
//! when the form comes back confirmed; what it ended is said on the next page.
use super::{done, session_values, Ctx};
use crate::config::value_string;
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::storage::{Kind, Session};
use crate::util::url_encode;
use crate::web::flash::Said;
use crate::web::Page;
use maud::{html, Markup};

/// The most sessions a search lists.
const MAX_SHOWN: usize = 500;

/// Serves `/manager/sessions[/<id>]`.
pub fn handle(ctx: &Ctx, rest: &[String]) -> Result<Response> {
    match (ctx.req.method, rest) {
        (Method::Post, []) => delete_user(ctx),
        (Method::Post, [id]) => delete_one(ctx, id),
        (_, []) => search(ctx),
        (_, [id]) => view(ctx, id),
        _ => Err(Error::not_found("Not found")),
    }
}

/// What a search asks: each filter empty when not used.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// `_whatToTrace`, case-insensitive; a trailing `*` makes it a prefix.
    pub user: String,
    /// The start of `ipAddr`.
    pub address: String,
    /// `YYYY-MM-DD`: the day `_startTime` falls on.
    pub date: String,
}

impl Filter {
    /// Whether session `s` matches every filter given.
    pub fn matches(&self, s: &Session) -> bool {
        let field = |k: &str| s.get(k).map(value_string).unwrap_or_default();
        let user = field("_whatToTrace").to_lowercase();
        let wanted = self.user.trim().to_lowercase();
        let user_ok = match wanted.strip_suffix('*') {
            _ if wanted.is_empty() => true,
            Some(prefix) => user.starts_with(prefix),
            None => user == wanted,
        };
        let address_ok = field("ipAddr").starts_with(self.address.trim());
        let day: String = self
            .date
            .trim()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        user_ok && address_ok && field("_startTime").starts_with(&day)
    }
}

fn search(ctx: &Ctx) -> Result<Response> {
    let page = ctx.page();
    let q = |k: &str| ctx.req.query_param(k).unwrap_or_default();
    let filter = Filter {
        user: q("user"),
        address: q("address"),
        date: q("date"),
    };
    let form = html! {
        form method="get" action="/manager/sessions" id="search" {
            "\n"
            p { label for="user" { (page.say("mgrUser")) } " " input id="user" name="user" value=(filter.user); } "\n"
            p { label for="address" { (page.say("mgrAddress")) } " " input id="address" name="address" value=(filter.address); } "\n"
            p { label for="date" { (page.say("mgrDate")) } " " input id="date" name="date" type="date" value=(filter.date); } "\n"
            p { button type="submit" { (page.say("mgrSearch")) } } "\n"
        } "\n"
    };
    let store = ctx.app.sessions(Kind::Global);
    let ids = match store.ids(Kind::Global) {
        Ok(ids) => ids,
        Err(e) => {
            crate::log::warn(&format!("console: cannot list the sessions: {e}"));
            let body = html! {
                (form)
                p class="error" role="alert" { (page.say("mgrCannotList")) } "\n"
            };
            return Ok(ctx.render("mgrSessions", body));
        }
    };
    let mut found = Vec::new();
    for id in ids {
        if let Some(s) = store.get(Kind::Global, &id)? {
            if filter.matches(&s) {
                found.push((id, s));
            }
        }
        if found.len() >= MAX_SHOWN {
            break;
        }
    }
    crate::util::sort::sort_by_key(&mut found, |(_, s)| {
        std::cmp::Reverse(s.get("_utime").and_then(crate::config::as_i64))
    });
    let user = filter.user.trim();
    let body = html! {
        (form)
        h2 { (page.say_fill("mgrFound", &[("count", &found.len().to_string())])) } "\n"
        table id="sessions" {
            thead { tr {
                th scope="col" { (page.say("mgrUser")) }
                th scope="col" { (page.say("mgrAddress")) }
                th scope="col" { (page.say("mgrStarted")) }
                th scope="col" { (page.say("mgrSession")) }
            } }
            tbody { "\n" @for (id, s) in &found { (row(&page, id, s)) "\n" } }
        } "\n"
        @if !user.is_empty() && !filter.user.contains('*') && !found.is_empty() {
            form method="post" action="/manager/sessions" id="delete-user" {
                (ctx.token_field())
                input type="hidden" name="user" value=(user);
                p { button.danger type="submit" { (page.say_fill("mgrDeleteAllOf", &[("user", user)])) } }
            } "\n"
        }
    };
    Ok(ctx.render("mgrSessions", body))
}

/// One session of the search's table.
fn row(page: &Page, id: &str, s: &Session) -> Markup {
    let field = |k: &str| s.get(k).map(value_string).unwrap_or_default();
    let started = s.get("_utime").and_then(crate::config::as_i64);
    html! {
        tr {
            td { (field("_whatToTrace")) }
            td { (field("ipAddr")) }
            td { @if let Some(t) = started { (page.time_markup(t)) } }
            td { a href={ "/manager/sessions/" (url_encode(id)) } { (id.chars().take(8).collect::<String>()) "…" } }
        }
    }
}

fn view(ctx: &Ctx, id: &str) -> Result<Response> {
    let page = ctx.page();
    let s = fetch(ctx, id)?;
    let st = ctx.conf.area::<crate::sessions::Settings>();
    let shown = crate::sessions::export::without_secrets(&s, &st.hidden, st.export_secret);
    let mut keys: Vec<&String> = shown.keys().collect();
    crate::util::sort::sort(&mut keys);
    let body = html! {
        h2 { (page.say("mgrAttributes")) } "\n"
        table id="attributes" {
            thead { tr { th scope="col" { (page.say("mgrKey")) } th scope="col" { (page.say("mgrValue")) } } }
            tbody {
                "\n"
                (ends_row(ctx, &s))
                @for (k, v) in keys.iter().filter_map(|k| Some((k, shown.get(*k)?))) {
                    tr {
                        th scope="row" { (k) }
                        td.value { (session_values::markup(&page, &session_values::classify(k, v))) }
                    } "\n"
                }
            }
        } "\n"
        form method="post" action={ "/manager/sessions/" (url_encode(id)) } id="delete-session" {
            (ctx.token_field())
            p { button.danger type="submit" { (page.say("mgrDeleteSession")) } }
        } "\n"
    };
    Ok(ctx.render("mgrSessions", body))
}

/// When the session ends (`timeout` after `_utime`, or `timeoutActivity` after `_lastSeen`),
/// and how long is left.
fn ends_row(ctx: &Ctx, s: &Session) -> Markup {
    let page = ctx.page();
    let Some(utime) = s.get("_utime").and_then(crate::config::as_i64) else {
        return html! {};
    };
    let mut end = utime + ctx.conf.timeout;
    if ctx.conf.timeout_activity > 0 {
        let last = s
            .get("_lastSeen")
            .and_then(crate::config::as_i64)
            .unwrap_or(utime);
        end = end.min(last + ctx.conf.timeout_activity);
    }
    let left = end - crate::util::now();
    html! {
        tr #ends {
            th scope="row" { (page.say("mgrSessionEnds")) }
            td {
                (page.time_markup(end)) " ("
                @if left > 0 { (page.say_fill("mgrEndsIn", &[("duration", &session_values::duration(&page, left))])) }
                @else { (page.say("mgrEnded")) }
                ")"
            }
        } "\n"
    }
}

fn fetch(ctx: &Ctx, id: &str) -> Result<Session> {
    if !crate::sso::is_session_id(id) {
        return Err(Error::not_found("No such session"));
    }
    ctx.app
        .sessions(Kind::Global)
        .get(Kind::Global, id)?
        .ok_or_else(|| Error::not_found("No such session"))
}

/// Ends one session (its relying parties told) and goes back to the search; asks first.
fn delete_one(ctx: &Ctx, id: &str) -> Result<Response> {
    let s = fetch(ctx, id)?;
    let user = s.get("_whatToTrace").map(value_string).unwrap_or_default();
    let back = format!("/manager/sessions?user={}", url_encode(&user));
    let short: String = id.chars().take(8).collect();
    if !ctx.confirmed() {
        let page = ctx.page();
        let own = ctx.admin.id() == id;
        let question = html! {
            p { (page.say_fill("mgrConfirmSession", &[("session", &format!("{short}…")), ("user", &user)])) }
            @if own { p.warning { strong { (page.say("mgrConfirmOwnSession")) } } }
        };
        let action = format!("/manager/sessions/{}", url_encode(id));
        return Ok(ctx.confirm(question, &action, &[], "mgrDeleteSession", &action));
    }
    if crate::sso::end(ctx.app, id)? {
        ctx.audit(
            "manager_session_delete",
            &[
                (
                    "session",
                    &format!("{}…", id.chars().take(4).collect::<String>()),
                ),
                ("user", &user),
            ],
        );
    }
    let said = Said::new("mgrSessionDeleted").with("user", &user);
    Ok(done(ctx, &back, said))
}

/// Ends every session of the user named in the form; asks first.
fn delete_user(ctx: &Ctx) -> Result<Response> {
    let user = ctx.req.form_param("user").unwrap_or_default();
    let user = user.trim();
    if user.is_empty() || user.contains('*') {
        return Err(Error::bad("A user is required"));
    }
    let filter = Filter {
        user: user.to_string(),
        ..Filter::default()
    };
    let store = ctx.app.sessions(Kind::Global);
    let back = format!("/manager/sessions?user={}", url_encode(user));
    if !ctx.confirmed() {
        let mut count = 0;
        for id in store.ids(Kind::Global)? {
            count += usize::from(
                store
                    .get(Kind::Global, &id)?
                    .is_some_and(|s| filter.matches(&s)),
            );
        }
        let page = ctx.page();
        let n = count.to_string();
        let question = html! {
            p { (page.say_fill("mgrConfirmAllOf", &[("user", user), ("count", &n)])) }
            @if filter.matches(&ctx.admin) { p.warning { strong { (page.say("mgrConfirmOwnSession")) } } }
        };
        let fields = [("user", user)];
        let button = "mgrDeleteAllOf";
        return Ok(ctx.confirm(question, "/manager/sessions", &fields, button, &back));
    }
    let mut ended = 0;
    for id in store.ids(Kind::Global)? {
        let matches = store
            .get(Kind::Global, &id)?
            .is_some_and(|s| filter.matches(&s));
        if matches && crate::sso::end(ctx.app, &id)? {
            ended += 1;
        }
    }
    ctx.audit(
        "manager_sessions_delete_user",
        &[("user", user), ("count", &ended.to_string())],
    );
    let said = Said::new("mgrSessionsDeleted")
        .with("user", user)
        .with("count", &ended.to_string());
    Ok(done(ctx, &back, said))
}

#[cfg(test)]
mod tests {
    use super::Filter;
    use serde_json::json;

    #[test]
    fn filters() {
        let s =
            json!({"_whatToTrace": "dwho", "ipAddr": "10.1.2.3", "_startTime": "20240102030405"});
        let s = s.as_object().unwrap();
        let f = |user: &str, address: &str, date: &str| Filter {
            user: user.into(),
            address: address.into(),
            date: date.into(),
        };
        assert!(f("", "", "").matches(s));
        assert!(f("DWho", "", "").matches(s));
        assert!(f("dw*", "10.1.", "2024-01-02").matches(s));
        assert!(!f("dw", "", "").matches(s));
        assert!(!f("", "10.2", "").matches(s));
        assert!(!f("", "", "2024-01-03").matches(s));
    }
}
