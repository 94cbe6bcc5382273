//! The menu's password tab (`ChangePassword`, LemonLDAP::NG's `password.tpl` and
//! `passwordpolicy.tpl`): the form posted to the portal (`oldpassword` when
//! `portalRequireOldPassword` holds for the user, `newpassword`, `confirmpassword`, the token
//! bound to the session), the policy in force listed above the fields before the user types
//! (each rule in its own words; `minlength` too), and what the last post came to: the refused
//! rule in its own words, the lock, or the change and the other sessions it ended. Shown only
//! with `passwordDB = DBI`. The post is `portal::password`'s.
use crate::config::{value_string, Conf};
use crate::password::policy::{Broken, Policy, Special};
use crate::password::{self, Backend, Refusal};
use crate::rules::Env;
use crate::storage::Session;
use crate::web::Page;
use maud::{html, Markup};
use serde_json::{Map, Value};

/// What the tab says of the last post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    /// Nothing was posted.
    Nothing,
    /// The change was refused.
    Refused(Refusal),
    /// The brute-force lock refuses for this many seconds.
    Locked(i64),
    /// The form's token was missing (81) or stale (82).
    Token(u16),
    /// Changed; this many other sessions ended (`None`: they could not be listed).
    Changed(Option<usize>),
}

/// The tab's content.
#[derive(Debug)]
pub struct Form {
    require_old: bool,
    policy: Option<Policy>,
    said: Said,
}

impl Form {
    /// The tab for the user `attrs` (no tab without `passwordDB = DBI`).
    pub(super) fn of(
        conf: &Conf,
        attrs: &Map<String, Value>,
        env: &Env,
        said: Said,
    ) -> Option<Form> {
        if conf.area::<password::Settings>().backend != Backend::Dbi {
            return None;
        }
        let (require_old, policy) = password::form_of(conf, attrs, env);
        Some(Form {
            require_old,
            policy,
            said,
        })
    }
}

/// What the form's token is bound to: this SSO session and the password change.
pub fn binding(s: &Session) -> String {
    let sid = s.get("_session_id").map(value_string).unwrap_or_default();
    format!("menu-password:{sid}")
}

/// What the page says after a change, bound to the session and the count shown (the
/// redirect's query carries both: a link cannot make the page say it).
pub fn changed_binding(s: &Session, ended: &str) -> String {
    format!("{}:changed:{ended}", binding(s))
}

/// The tab's section.
pub(super) fn render(page: &Page, form: &Form, token: &str) -> Markup {
    let min = form.policy.as_ref().map_or(0, |p| p.min_size);
    html! {
        section id="password" {
            "\n" h2 { (page.say("changePwd")) } "\n"
            (said(page, form.said)) "\n"
            form method="post" action=(page.portal()) id="formpass" {
                "\n"
                input type="hidden" name="token" value=(token); "\n"
                @if form.require_old {
                    p { label for="oldpassword" { (page.say("currentPwd")) } " "
                        input id="oldpassword" name="oldpassword" type="password" required autocomplete="current-password"; } "\n"
                }
                (policy(page, form.policy.as_ref()))
                p { label for="newpassword" { (page.say("newPassword")) } " "
                    @if min > 0 {
                        input id="newpassword" name="newpassword" type="password" required autocomplete="new-password" minlength=(min) aria-describedby="ppolicy";
                    } @else {
                        input id="newpassword" name="newpassword" type="password" required autocomplete="new-password" aria-describedby="ppolicy";
                    }
                } "\n"
                p { label for="confirmpassword" { (page.say("confirmPwd")) } " "
                    input id="confirmpassword" name="confirmpassword" type="password" required autocomplete="new-password"; } "\n"
                p.actions { button type="submit" id="changepassword" { (page.say("changePwdSubmit")) } } "\n"
            } "\n"
        } "\n"
    }
}

/// The policy's rules, each in its own words (`passwordpolicy.tpl`).
fn policy(page: &Page, p: Option<&Policy>) -> Markup {
    let Some(p) = p.filter(|p| p.is_set()) else {
        return html! { p id="ppolicy" class="ppolicy" { (page.say("passwordPolicyNone")) } "\n" };
    };
    let n = |v: usize| v.to_string();
    let mut items: Vec<(&str, String)> = Vec::new();
    for (key, v) in [
        ("ppMinSize", p.min_size),
        ("ppMinLower", p.min_lower),
        ("ppMinUpper", p.min_upper),
        ("ppMinDigit", p.min_digit),
        ("ppMinSpeChar", p.min_special),
    ] {
        if v > 0 {
            items.push((key, n(v)));
        }
    }
    match (&p.special, p.allowed_specials()) {
        (Special::Only(c), _) if c.is_empty() => items.push(("ppNoSpecial", String::new())),
        (_, Some(list)) => items.push(("ppAllowedSpecial", list)),
        (Special::All, None) if p.min_special > 0 => items.push(("ppAnySpecial", String::new())),
        _ => {}
    }
    html! {
        div id="ppolicy" class="ppolicy" {
            p { (page.say("passwordPolicy")) } "\n"
            ul {
                @for (key, v) in &items {
                    li data-rule=(key) { (page.say_fill(key, &[("n", v.as_str()), ("list", v.as_str())])) } "\n"
                }
            }
        } "\n"
    }
}

/// The message of the last post: an alert for a refusal, a status for the change.
fn said(page: &Page, said: Said) -> Markup {
    let alert = |code: u16, text: Markup| {
        html! { div class="error" id="pwdmsg" role="alert" trmsg=(code) { p { (text) } } }
    };
    match said {
        Said::Nothing => html! {},
        Said::Token(code) => alert(code, html! { (page.say_error(code)) }),
        Said::Locked(s) => alert(
            86,
            html! {
                (page.say_error(86)) " " span #locktime { (s) } " " (page.say("seconds")) "."
            },
        ),
        Said::Refused(Refusal::Policy(b)) => alert(b.code(), broken(page, b)),
        Said::Refused(r) => alert(r.code(), html! { (page.say_error(r.code())) }),
        Said::Changed(ended) => {
            let others = match ended {
                Some(0) => page.say("pwdNoOtherSession"),
                Some(n) => page.say_fill("pwdOthersEnded", &[("count", &n.to_string())]),
                None => page.say("pwdOthersUnknown"),
            };
            html! {
                div class="message" id="pwdmsg" role="status" trmsg="35" {
                    p { (page.say_error(35)) } p id="pwdothers" { (others) }
                }
            }
        }
    }
}

/// A broken rule of the policy in its own words.
fn broken(page: &Page, b: Broken) -> Markup {
    let (key, n) = b.message();
    html! { (page.say_fill(key, &[("n", &n.to_string())])) }
}
