//! The consent step of `/oauth2/authorize`: skipped for RPs that bypass it, remembered per
//! user, RP and scope set in the persistent session (`sso::consents`: `_oidcConsents` as
//! LemonLDAP::NG keeps and checks it), otherwise a page in the user's language with the RP's
//! display name and logo, the signed-in account, each scope as a sentence (LemonLDAP::NG's
//! `oidcGiveConsent`: known scopes by their message, others as "other information" with the
//! name) and the raw scope names in small print, and a CSRF-protected form that posts the
//! authorization request back with `confirm=1` (accept) or `confirm=-1` (refuse).
use super::request::AuthRequest;
use crate::app::App;
use crate::config::Conf;
use crate::error::{OAuthCode, Result};
use crate::http::{Method, Request, Response};
use crate::oidc::base::{self, Params};
use crate::oidc::settings::Rp;
use crate::sso::consents;
use crate::storage::Session;
use crate::web::{csrf, Page};
use maud::{html, Markup};

/// What the consent step decided.
#[derive(Debug)]
pub enum Outcome {
    /// Go on and issue the code.
    Granted,
    /// Show this page.
    Ask(Response),
    /// Redirect the error to the client.
    Refused(OAuthCode),
}

/// Decides the consent step for a user with an SSO session.
pub fn decide(
    app: &App,
    conf: &Conf,
    req: &Request,
    rp: &Rp,
    ar: &AuthRequest,
    s: &Session,
    p: &Params,
) -> Result<Outcome> {
    if rp.bypass_consent {
        return Ok(Outcome::Granted);
    }
    let trace = s
        .get("_whatToTrace")
        .map(crate::config::value_string)
        .unwrap_or_default();
    let binding = binding(s, rp);
    let posted = req.method == Method::Post;
    let token_ok = posted && csrf::check_for(conf, p.get("token"), &binding).is_ok();
    // A genuine answer left open too long: the page says so and asks again.
    let stale =
        posted && p.get("confirm").is_some() && csrf::is_stale(conf, p.get("token"), &binding);
    match p.get("confirm") {
        Some("1") if token_ok => {
            consents::remember(app, &trace, &rp.name, &ar.scope)?;
            return Ok(Outcome::Granted);
        }
        Some("-1") if token_ok => return Ok(Outcome::Refused(OAuthCode::AccessDenied)),
        _ => {}
    }
    let forced = ar.prompt.iter().any(|x| x == "consent");
    let (_, persistent) = crate::sso::persistent(app, &trace)?;
    if !forced && consents::covers(&consents::of(&persistent), &rp.name, &ar.scope) {
        return Ok(Outcome::Granted);
    }
    if ar.prompt.iter().any(|x| x == "none") {
        return Ok(Outcome::Refused(OAuthCode::ConsentRequired));
    }
    // Once confirmed, the form's answer redirects to the relying party: its origin joins the
    // page's form-action, as LemonLDAP::NG adds the URL a form leads to.
    Ok(Outcome::Ask(
        Response::html(
            200,
            page(
                conf,
                req,
                s,
                rp,
                ar,
                p,
                Form {
                    binding: &binding,
                    stale,
                    bar: Some(crate::account::header(app, conf, req, s)),
                },
            ),
        )
        .with_form_target(&ar.redirect_uri),
    ))
}

/// What a consent token is bound to: this user's SSO session and this RP.
fn binding(s: &Session, rp: &Rp) -> String {
    let sid = s
        .get("_session_id")
        .map(crate::config::value_string)
        .unwrap_or_default();
    format!("oidc-consent:{sid}:{}", rp.client_id)
}

/// The consent form's token binding, whether the answer came back too old, and the page's
/// account bar.
struct Form<'a> {
    binding: &'a str,
    stale: bool,
    bar: Option<crate::web::page::Header>,
}

fn page(
    conf: &Conf,
    req: &Request,
    s: &Session,
    rp: &Rp,
    ar: &AuthRequest,
    p: &Params,
    form: Form,
) -> String {
    let frame = base::frame(conf, req, Some(s)).with_header(form.bar);
    let hidden =
        p.0.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "confirm" | "token" | "prompt" | "max_age"));
    let body = html! {
        h1 { (frame.say("consentTitle")) } "\n"
        @if form.stale { (crate::web::page::stale_notice(&frame)) }
        @if let Some(u) = &rp.icon { img src=(u) alt="" width="64" height="64"; "\n" }
        h2 id="consent" { (frame.say_fill("consent", &[("app", &rp.display_name)])) } "\n"
        ul class="scopes" { (sentences(&frame, &ar.scope)) } "\n"
        form method="post" action={ (conf.portal) "oauth2/authorize" } {
            "\n"
            @for (k, v) in hidden { input type="hidden" name=(k) value=(v); "\n" }
            input type="hidden" name="token" value=(csrf::issue_for(conf, form.binding)); "\n"
            p class="actions" {
                button type="submit" name="confirm" value="1" { (frame.say("accept")) } "\n"
                button type="submit" name="confirm" value="-1" class="secondary" { (frame.say("refuse")) }
            } "\n"
        }
    };
    frame.render_markup(&frame.raw("consentTitle"), body)
}

/// The message of a standard scope (LemonLDAP::NG's `oidcGiveConsent` list).
fn scope_message(scope: &str) -> Option<&'static str> {
    Some(match scope {
        "openid" => "yourIdentity",
        "profile" => "yourProfile",
        "email" => "yourEmail",
        "address" => "yourAddress",
        "phone" => "yourPhone",
        "offline_access" => "yourOffline",
        _ => return None,
    })
}

/// One list item per requested scope: its sentence, the raw name in small print.
fn sentences(page: &Page, scope: &str) -> Markup {
    html! {
        @for name in scope.split_whitespace() {
            li data-scope=(name) {
                (page.say(scope_message(name).unwrap_or("anotherInformation")))
                " " small { "(" (name) ")" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf() -> Conf {
        Conf::of_json(serde_json::json!({"cfgNum": 1, "portal": "http://p/"}))
    }

    #[test]
    fn each_scope_reads_as_a_sentence_with_its_name() {
        let c = conf();
        let fr = Page::new(&c, &Request::new(Method::Get, "/?lang=fr"));
        let html = sentences(&fr, "openid email custom").into_string();
        assert!(
            html.contains("Connaître votre identité <small>(openid)</small>"),
            "{html}"
        );
        assert!(html.contains("Connaître votre adresse électronique <small>(email)</small>"));
        assert!(html.contains("Une autre information : <small>(custom)</small>"));
        let en = Page::new(&c, &Request::new(Method::Get, "/"));
        assert_eq!(sentences(&en, "a<b").0.matches("<li").count(), 1);
        assert!(sentences(&en, "a<b").0.contains("(a&lt;b)"));
    }
}
