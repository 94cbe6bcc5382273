//! The console's users page, over the user table of `authentication`/`userDB`/`passwordDB =
//! DBI` (`directory::dbi::Users`): users listed by login (a search on part of it, 50 a page),
//! one user's row (the hash scheme named, never the hash), a user added (login, password
//! twice, the attribute columns the configuration exports), a password reset, a user locked
//! or unlocked. A new or reset password follows the password policy (`password::policy`,
//! whatever `passwordPolicyActivation` says of the administrator); a reset or a lock ends the
//! user's SSO sessions. Each action writes its audit line (`manager_user_add`,
//! `manager_user_password`, `manager_user_lock`, `manager_user_unlock`); no password reaches a
//! log line, a page or a URL. Without a DBI user table the page says so.
use super::{done, Ctx};
use crate::directory::dbi::{Secret, UserRow, Users};
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::util::url_encode;
use crate::web::flash::Said;
use crate::web::Page;
use maud::{html, Markup};
use serde_json::{json, Map, Value};

/// Users a page of the list shows.
const PAGE: usize = 50;

/// Serves `/manager/users[/<login>]`.
pub fn handle(ctx: &Ctx, rest: &[String]) -> Result<Response> {
    let Some(users) = open(ctx)? else {
        let page = ctx.page();
        let body = html! { p id="nodbi" { (page.say("mgrNoUserTable")) } "\n" };
        return Ok(ctx.render("mgrUsers", body));
    };
    match (ctx.req.method, rest) {
        (Method::Post, []) => add(ctx, &users),
        (Method::Post, [login]) => act(ctx, &users, login),
        (_, []) => Ok(list(ctx, &users, None)?),
        (_, [login]) => view(ctx, &users, login, None),
        _ => Err(Error::not_found("Not found")),
    }
}

/// The user table, when the configuration has one.
fn open(ctx: &Ctx) -> Result<Option<Users>> {
    let settings = ctx.conf.area::<crate::directory::dbi::Settings>();
    if !settings.in_use() {
        return Ok(None);
    }
    Users::open(&settings).map(Some)
}

/// The attribute columns the add form asks for: the columns `dbiExportedVars` (and
/// `exportedVars`) read, and the mail column, each once.
fn columns(ctx: &Ctx) -> Vec<String> {
    let settings = ctx.conf.area::<crate::directory::dbi::Settings>();
    let Some(store) = settings.store.as_ref() else {
        return Vec::new();
    };
    let l = &store.layout;
    let reserved = [&l.login_col, &l.password_col, &l.pivot];
    let mut out: Vec<String> = Vec::new();
    let named = store
        .exported
        .iter()
        .map(|(_, col)| col)
        .chain(l.mail_col.iter());
    for col in named {
        let taken = out
            .iter()
            .chain(reserved)
            .any(|c| c.eq_ignore_ascii_case(col));
        if !taken && crate::util::is_sql_name(col) {
            out.push(col.clone());
        }
    }
    out
}

/// The list, with the search and add forms; `said` is the add form's refusal.
fn list(ctx: &Ctx, users: &Users, said: Option<&str>) -> Result<Response> {
    let page = ctx.page();
    let search = ctx.req.query_param("search").unwrap_or_default();
    let offset: usize = ctx
        .req
        .query_param("offset")
        .and_then(|o| o.parse().ok())
        .unwrap_or(0);
    let wanted = Some(search.trim()).filter(|s| !s.is_empty());
    let rows = users.list(wanted, offset, PAGE + 1)?;
    let more = rows.len() > PAGE;
    let next = format!(
        "/manager/users?search={}&offset={}",
        url_encode(&search),
        offset + PAGE
    );
    let body = html! {
        form method="get" action="/manager/users" id="search" {
            p { label for="search-login" { (page.say("mgrLogin")) } " "
                input id="search-login" name="search" value=(search);
                " " button type="submit" { (page.say("mgrSearch")) } }
        } "\n"
        table id="users" {
            thead { tr {
                th scope="col" { (page.say("mgrLogin")) }
                th scope="col" { (page.say("mgrState")) }
                th scope="col" { (page.say("mgrScheme")) }
            } }
            tbody { "\n" @for u in rows.iter().take(PAGE) { (row(&page, u)) "\n" } }
        } "\n"
        @if rows.is_empty() { p id="nousers" { (page.say("mgrNoUser")) } "\n" }
        @if more { p { a id="next" href=(next) { (page.say("mgrNextPage")) } } "\n" }
        (add_form(ctx, &page, said))
    };
    Ok(ctx.render("mgrUsers", body))
}

fn row(page: &Page, u: &UserRow) -> Markup {
    html! {
        tr {
            td { a href={ "/manager/users/" (url_encode(&u.login)) } { (u.login) } }
            td { (state(page, u.locked)) }
            td { (u.scheme) }
        }
    }
}

fn state(page: &Page, locked: bool) -> crate::web::page::Word {
    page.say(if locked { "mgrLocked" } else { "mgrActive" })
}

fn add_form(ctx: &Ctx, page: &Page, said: Option<&str>) -> Markup {
    html! {
        h2 id="add" { (page.say("mgrAddUser")) } "\n"
        @if let Some(msg) = said { (super::alert(&ctx.page(), msg)) }
        form method="post" action="/manager/users" id="add-user" {
            "\n" (ctx.token_field()) "\n"
            p { label for="login" { (page.say("mgrLogin")) } " " input id="login" name="login" required autocomplete="off"; } "\n"
            (password_fields(page)) "\n"
            @for col in columns(ctx) {
                p { label for={ "attr-" (col) } { (col) } " " input id={ "attr-" (col) } name={ "attr-" (col) }; } "\n"
            }
            p { button type="submit" { (page.say("mgrAddUser")) } } "\n"
        } "\n"
    }
}

fn password_fields(page: &Page) -> Markup {
    html! {
        p { label for="newpassword" { (page.say("newPassword")) } " "
            input id="newpassword" name="newpassword" type="password" required autocomplete="new-password"; } "\n"
        p { label for="confirmpassword" { (page.say("confirmPwd")) } " "
            input id="confirmpassword" name="confirmpassword" type="password" required autocomplete="new-password"; }
    }
}

/// The new password of a form, checked: the same twice, and the policy; the message otherwise.
fn new_password(ctx: &Ctx) -> std::result::Result<String, String> {
    let page = ctx.page();
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default();
    let (new, confirm) = (form("newpassword"), form("confirmpassword"));
    if new.is_empty() {
        return Err(page.raw("mgrPasswordEmpty"));
    }
    if new != confirm {
        return Err(crate::web::messages::text(page.lang, 34));
    }
    let policy = &ctx.conf.area::<crate::password::Settings>().policy;
    policy.check(&new).map_err(|b| {
        let (key, n) = b.message();
        crate::web::messages::fill(&page.raw(key), &[("n", &n.to_string())])
    })?;
    Ok(new)
}

/// `POST /manager/users`: adds a user.
fn add(ctx: &Ctx, users: &Users) -> Result<Response> {
    let login = ctx
        .req
        .form_param("login")
        .unwrap_or_default()
        .trim()
        .to_string();
    if login.is_empty() || login.chars().any(char::is_control) {
        let msg = ctx.page().raw("mgrLoginInvalid");
        return list(ctx, users, Some(&msg));
    }
    let password = match new_password(ctx) {
        Ok(p) => p,
        Err(msg) => return list(ctx, users, Some(&msg)),
    };
    let mut attrs = Map::new();
    for col in columns(ctx) {
        let v = ctx
            .req
            .form_param(&format!("attr-{col}"))
            .unwrap_or_default();
        if !v.trim().is_empty() {
            attrs.insert(col, json!(v.trim()));
        }
    }
    match users.add(&login, Secret::Clear(password), &attrs) {
        Ok(()) => {}
        Err(Error::Conflict(_)) => {
            let text = ctx.page().raw("mgrUserExists");
            let msg = crate::web::messages::fill(&text, &[("login", &login)]);
            return list(ctx, users, Some(&msg));
        }
        Err(e) => return Err(e),
    }
    ctx.audit("manager_user_add", &[("user", &shown(&login))]);
    let said = Said::new("mgrUserAdded").with("login", &login);
    Ok(done(
        ctx,
        &format!("/manager/users/{}", url_encode(&login)),
        said,
    ))
}

/// `POST /manager/users/<login>`: `action` = `password`, `lock` or `unlock`.
fn act(ctx: &Ctx, users: &Users, login: &str) -> Result<Response> {
    let action = ctx.req.form_param("action").unwrap_or_default();
    let found = match action.as_str() {
        "password" => {
            let password = match new_password(ctx) {
                Ok(p) => p,
                Err(msg) => return view(ctx, users, login, Some(&msg)),
            };
            users.set_password(login, &password)?
        }
        "lock" => users.lock(login, true)?,
        "unlock" => users.lock(login, false)?,
        _ => return Err(Error::bad("Unknown action")),
    };
    if !found {
        return Err(Error::not_found("No such user"));
    }
    let ended = match action.as_str() {
        "unlock" => None,
        _ => crate::password::end_sessions(ctx.app, login, None),
    };
    let event = format!("manager_user_{action}");
    let count = ended.map_or_else(String::new, |n| n.to_string());
    let mut fields = vec![("user", shown(login))];
    if action != "unlock" {
        fields.push(("ended", count));
    }
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ctx.audit(&event, &fields);
    let key = match action.as_str() {
        "password" => "mgrPasswordReset",
        "lock" => "mgrUserLocked",
        _ => "mgrUserUnlocked",
    };
    let said = Said::new(key).with("login", login);
    Ok(done(
        ctx,
        &format!("/manager/users/{}", url_encode(login)),
        said,
    ))
}

/// One user: the row, and the reset and lock forms.
fn view(ctx: &Ctx, users: &Users, login: &str, said: Option<&str>) -> Result<Response> {
    let page = ctx.page();
    let u = users
        .show(login)?
        .ok_or_else(|| Error::not_found("No such user"))?;
    let body = html! {
        h2 { (u.login) } "\n"
        @if let Some(msg) = said { (super::alert(&page, msg)) }
        table id="user" { tbody {
            "\n"
            tr { th scope="row" { (page.say("mgrState")) } td id="state" { (state(&page, u.locked)) } } "\n"
            tr { th scope="row" { (page.say("mgrScheme")) } td id="scheme" { (u.scheme) } } "\n"
            @for (k, v) in &u.attrs {
                tr { th scope="row" { (k) } td { (value_text(v)) } } "\n"
            }
        } } "\n"
        (user_forms(ctx, &page, &u))
        p { a href="/manager/users" { (page.say("mgrAllUsers")) } } "\n"
    };
    Ok(ctx.render("mgrUsers", body))
}

/// One user's forms: the password reset, and the lock or the unlock.
fn user_forms(ctx: &Ctx, page: &Page, u: &UserRow) -> Markup {
    let base = format!("/manager/users/{}", url_encode(&u.login));
    let (lock_action, lock_word) = match u.locked {
        true => ("unlock", "mgrUnlock"),
        false => ("lock", "mgrLock"),
    };
    html! {
        h3 { (page.say("mgrResetPassword")) } "\n"
        form method="post" action=(base) id="reset" {
            (ctx.token_field()) input type="hidden" name="action" value="password"; "\n"
            (password_fields(page)) "\n"
            p { button type="submit" { (page.say("mgrResetPassword")) } } "\n"
        } "\n"
        form method="post" action=(base) id="lock" {
            (ctx.token_field()) input type="hidden" name="action" value=(lock_action);
            p { button type="submit" { (page.say(lock_word)) } }
        } "\n"
    }
}

fn value_text(v: &Value) -> String {
    crate::config::value_string(v)
}

/// A login fit for an audit line.
fn shown(login: &str) -> String {
    login.chars().filter(|c| !c.is_control()).take(64).collect()
}
