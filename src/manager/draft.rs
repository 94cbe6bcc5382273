//! A console form sent after the administrator's session ended: its values are kept on the
//! server while the administrator signs in again, then offered back on the same page.
//!
//! `keep`: a `POST` under `/manager/` whose SSO cookie names a session that no longer lives,
//! with a token that this very session's console page issued (`csrf::check_session_bound` on
//! the old id: a form forged elsewhere, or sent without a cookie, keeps nothing), has its
//! fields stored in the session store (kind `pending`, as a pending login, for
//! [`LIFETIME`] seconds) under a random id carried by a host-only `HttpOnly` cookie, never in
//! a URL; then the login form, which comes back to the form's page. Never kept: the token,
//! any field whose name holds `password` or `secret`, on the editor its secret keys (by the
//! editor's own notion: left out, the stored value stays); nothing at all beyond [`MAX_FIELDS`]
//! fields or [`MAX_BYTES`] bytes. `take`: the page the login comes back to finds the record
//! (same path), removes it and clears the cookie; the console's frame shows its values in a
//! form to check, edit and send again with a fresh token (`Ctx::render`), each under the label
//! its form gave it (`draft_labels`).
use super::draft_labels::{editor_field, Form, Look};
use crate::app::App;
use crate::config::Conf;
use crate::http::{Method, Request, Response};
use crate::storage::Kind;
use crate::util;
use crate::web::{cookies, csrf, Page};
use maud::{html, Markup};
use serde_json::{json, Value};

/// The cookie naming a kept form.
pub const COOKIE: &str = "limettedraft";

/// How long a kept form waits for its administrator, in seconds.
pub const LIFETIME: i64 = 3600;

/// The most fields kept.
pub const MAX_FIELDS: usize = 64;

/// The most bytes kept (names and values).
pub const MAX_BYTES: usize = 32 * 1024;

/// A form kept across a sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The path it was posted to (`/manager/...`).
    pub path: String,
    /// Its fields, in order, without the token and secrets.
    pub fields: Vec<(String, String)>,
}

/// The login form that comes back to the form's page, with the form kept when `req` is a
/// console form of the session its SSO cookie names, now ended (else `None`: the usual
/// sign-in).
pub fn keep(app: &App, conf: &Conf, req: &Request) -> Option<Response> {
    if req.method != Method::Post {
        return None;
    }
    let old = cookies::sso_id(conf, req)?;
    let token = req.form_param("token");
    let binding = format!("manager:{old}");
    csrf::check_session_bound(conf, token.as_deref(), &binding).ok()?;
    let draft = Draft {
        path: req.path.clone(),
        fields: kept_fields(&req.path, req.form())?,
    };
    let id = util::random_hex(32);
    let rec = json!({"_exp": util::now() + LIFETIME, "draft": {"path": draft.path, "fields": draft.fields}});
    let Value::Object(rec) = rec else {
        return None;
    };
    if let Err(e) = app.sessions(Kind::Pending).put(Kind::Pending, &id, &rec) {
        crate::log::warn(&format!(
            "console: cannot keep a form across the sign-in: {e}"
        ));
        return None;
    }
    let back = format!("{}{}", conf.portal, req.path.trim_start_matches('/'));
    let resp = crate::portal::login_redirect(conf, req, &back)
        .with_cookies(&cookies::clear_sso(conf))
        .with_cookie(&cookies::portal_cookie(conf, COOKIE, &id, false));
    Some(resp)
}

/// The form kept for the page `req` asks (a `GET` of its path), removed from the store, and
/// the cookie that clears it (whenever the request has one).
pub fn take(app: &App, conf: &Conf, req: &Request) -> (Option<Draft>, Option<String>) {
    let Some(id) = req.cookie(COOKIE).filter(|v| v != "0") else {
        return (None, None);
    };
    if req.method != Method::Get {
        return (None, None);
    }
    let clear = Some(cookies::portal_cookie(conf, COOKIE, "0", true));
    let store = app.sessions(Kind::Pending);
    let rec = match crate::sso::is_session_id(&id) {
        true => store.get(Kind::Pending, &id).ok().flatten(),
        false => None,
    };
    let Some(draft) = rec.as_ref().and_then(read) else {
        return (None, clear);
    };
    if draft.path != req.path {
        return (None, None); // another page's: it waits for its own
    }
    // Taken once: the page holds the values from now on.
    match store.take(Kind::Pending, &id) {
        Ok(Some(_)) => (Some(draft), clear),
        _ => (None, clear),
    }
}

/// The kept form on its page: what happened, which form it was, and its values in a form that
/// sends them again (`token`: the page's fresh token field), each under the label the original
/// form gave it in the page's language (`look`; a value of several lines, or a long one, in a
/// text area; a ticked check box as one), the form's own workings (`action`, `base`, the
/// editor's view) hidden but carried.
pub fn markup(page: &Page, draft: &Draft, token: Markup) -> Markup {
    let form = Form::of(&draft.path);
    let what = form.action_word(&draft.fields).map(|(key, fill)| {
        let values: Vec<(&str, &str)> = fill.iter().map(|(k, v)| (*k, v.as_str())).collect();
        page.say_fill(key, &values).0
    });
    html! {
        section.message #resume aria-labelledby="resume-title" {
            h2 #resume-title { (page.say("mgrDraftTitle")) } "\n"
            p role="status" { (page.say("mgrDraftKept")) } "\n"
            @if let Some(what) = what { p #resume-what { (page.say_fill("mgrDraftForm", &[("form", &what)])) } "\n" }
            form method="post" action=(draft.path) id="resume-form" {
                (token)
                @for (i, (k, v)) in draft.fields.iter().enumerate() {
                    @let id = format!("resume-{i}");
                    @match form.look(page, k) {
                        Look::Hidden => { input type="hidden" name=(k) value=(v); }
                        Look::Check(label) => {
                            p.check { input type="checkbox" id=(id) name=(k) value=(v) checked; " " label for=(id) { (label) } } "\n"
                        }
                        Look::Text(label) if v.contains('\n') || v.chars().count() > 80 => {
                            p { label for=(id) { (label) } " " textarea id=(id) name=(k) { (v) } } "\n"
                        }
                        Look::Text(label) => {
                            p { label for=(id) { (label) } " " input id=(id) name=(k) value=(v); } "\n"
                        }
                    }
                }
                p { button type="submit" { (page.say("mgrDraftSend")) } }
            }
        } "\n"
    }
}

/// The fields worth keeping, or `None` when too many or too large.
fn kept_fields(path: &str, form: Vec<(String, String)>) -> Option<Vec<(String, String)>> {
    let editor = Form::of(path) == Form::Editor;
    let secret = |k: &str| match editor_field(k).filter(|_| editor) {
        // The editor's own notion: a number or a flag named like a secret is none, and a
        // secret left out keeps the stored value when the form is sent again.
        Some((entry, _)) => super::editor::secret(entry),
        None => {
            let k = k.to_ascii_lowercase();
            k == "token" || k == "confirm" || k.contains("password") || k.contains("secret")
        }
    };
    let kept: Vec<(String, String)> = form.into_iter().filter(|(k, _)| !secret(k)).collect();
    let bytes: usize = kept.iter().map(|(k, v)| k.len() + v.len()).sum();
    (!kept.is_empty() && kept.len() <= MAX_FIELDS && bytes <= MAX_BYTES).then_some(kept)
}

/// A stored record as a draft, if live and well formed.
fn read(rec: &crate::storage::Session) -> Option<Draft> {
    let exp = rec.get("_exp").and_then(crate::config::as_i64)?;
    if exp < util::now() {
        return None;
    }
    let d = rec.get("draft")?;
    let path = d.get("path")?.as_str()?.to_string();
    let fields = serde_json::from_value(d.get("fields")?.clone()).ok()?;
    Some(Draft { path, fields })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_oversized_forms_are_not_kept() {
        let f = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        let path = "/manager/notifications";
        let kept = kept_fields(
            path,
            f(&[
                ("token", "t"),
                ("newpassword", "p"),
                ("client_secret", "s"),
                ("uid", "dwho"),
            ]),
        );
        assert_eq!(kept, Some(f(&[("uid", "dwho")])));
        assert_eq!(kept_fields(path, f(&[("token", "t")])), None);
        let big = "x".repeat(MAX_BYTES);
        assert_eq!(kept_fields(path, f(&[("text", &big)])), None);
        // The editor's secrets by the editor's notion: the shared key and a private key are
        // left out, a count named like a password is kept.
        let edited = f(&[
            ("k.key", "k"),
            ("k.oidcServicePrivateKeySig", "-----BEGIN"),
            ("k.passwordPolicyMinSize", "8"),
            ("shown", "passwordPolicyMinSize"),
        ]);
        let kept = kept_fields("/manager/conf/edit", edited);
        let want = f(&[
            ("k.passwordPolicyMinSize", "8"),
            ("shown", "passwordPolicyMinSize"),
        ]);
        assert_eq!(kept, Some(want));
    }
}
