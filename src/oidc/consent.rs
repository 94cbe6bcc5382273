//! The consent step of `/oauth2/authorize`: skipped for RPs that bypass it, remembered per
//! user and RP in the persistent session (`_oidcConsents`, a JSON list of `{rp, epoch, scope}`
//! as LemonLDAP::NG keeps it), otherwise a page with the scopes and a CSRF-protected form that
//! posts the authorization request back with `confirm=1` (accept) or `confirm=-1` (refuse).
use super::authorize::AuthRequest;
use super::{Params, Rp};
use crate::app::App;
use crate::config::Conf;
use crate::error::{OAuthCode, Result};
use crate::http::{Method, Request, Response};
use crate::storage::{Kind, Session};
use crate::util::{self, html_escape};
use crate::web::csrf;
use serde_json::{json, Value};

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
    let token_ok =
        req.method == Method::Post && csrf::check_for(conf, p.get("token"), &binding).is_ok();
    match p.get("confirm") {
        Some("1") if token_ok => {
            remember(app, &trace, &rp.name, &ar.scope)?;
            return Ok(Outcome::Granted);
        }
        Some("-1") if token_ok => return Ok(Outcome::Refused(OAuthCode::AccessDenied)),
        _ => {}
    }
    let forced = ar.prompt.iter().any(|x| x == "consent");
    if !forced && covered(&consents(app, &trace)?, &rp.name, &ar.scope) {
        return Ok(Outcome::Granted);
    }
    if ar.prompt.iter().any(|x| x == "none") {
        return Ok(Outcome::Refused(OAuthCode::ConsentRequired));
    }
    // Once confirmed, the form's answer redirects to the relying party: its origin joins the
    // page's form-action, as LemonLDAP::NG adds the URL a form leads to.
    Ok(Outcome::Ask(
        Response::html(200, page(conf, req, s, rp, ar, p, &binding))
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

/// True when a remembered consent for this RP covers every requested scope.
pub fn covered(list: &[Value], rp: &str, scope: &str) -> bool {
    list.iter().any(|c| {
        let given: Vec<&str> = c
            .get("scope")
            .and_then(Value::as_str)
            .unwrap_or("")
            .split_whitespace()
            .collect();
        c.get("rp").and_then(Value::as_str) == Some(rp)
            && scope.split_whitespace().all(|s| given.contains(&s))
    })
}

fn consents(app: &App, trace: &str) -> Result<Vec<Value>> {
    let (_, ps) = crate::sso::persistent(app, trace)?;
    Ok(parse_list(ps.get("_oidcConsents")))
}

/// LemonLDAP::NG stores the list as a JSON string; accept an array too.
fn parse_list(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn remember(app: &App, trace: &str, rp: &str, scope: &str) -> Result<()> {
    let (id, mut ps) = crate::sso::persistent(app, trace)?;
    let mut list: Vec<Value> = parse_list(ps.get("_oidcConsents"));
    list.retain(|c| c.get("rp").and_then(Value::as_str) != Some(rp));
    list.push(json!({"rp": rp, "epoch": util::now(), "scope": scope}));
    ps.insert(
        "_oidcConsents".into(),
        json!(Value::Array(list).to_string()),
    );
    app.sessions(Kind::Persistent)
        .put(Kind::Persistent, &id, &ps)
}

fn page(
    conf: &Conf,
    req: &Request,
    s: &Session,
    rp: &Rp,
    ar: &AuthRequest,
    p: &Params,
    binding: &str,
) -> String {
    let frame = super::frame(conf, req, Some(s));
    let hidden: String =
        p.0.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "confirm" | "token" | "prompt" | "max_age"))
            .map(|(k, v)| {
                format!(
                    "<input type=\"hidden\" name=\"{}\" value=\"{}\">\n",
                    html_escape(k),
                    html_escape(v)
                )
            })
            .collect();
    let scopes: String = ar
        .scope
        .split(' ')
        .map(|s| format!("<li>{}</li>", html_escape(s)))
        .collect::<Vec<_>>()
        .join("");
    let app = format!("<strong>{}</strong>", html_escape(&rp.name));
    let body = format!(
        "<h1>{}</h1>\n<p id=\"consent\">{}</p>\n\
<ul class=\"scopes\">{scopes}</ul>\n<form method=\"post\" action=\"{}oauth2/authorize\">\n{hidden}\
<input type=\"hidden\" name=\"token\" value=\"{}\">\n<p class=\"actions\">\
<button type=\"submit\" name=\"confirm\" value=\"1\">{}</button>\n\
<button type=\"submit\" name=\"confirm\" value=\"-1\" class=\"secondary\">{}</button></p>\n</form>",
        frame.word("consentTitle"),
        frame.fill("consent", &[("app", &app)]),
        html_escape(&conf.portal),
        html_escape(&csrf::issue_for(conf, binding)),
        frame.word("accept"),
        frame.word("refuse"),
    );
    frame.render(&frame.raw("consentTitle"), &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_consent_must_cover_the_scopes() {
        let list = parse_list(Some(&json!(
            r#"[{"rp":"a","epoch":1,"scope":"openid email"}]"#
        )));
        assert!(covered(&list, "a", "openid"));
        assert!(covered(&list, "a", "openid email"));
        assert!(!covered(&list, "a", "openid profile"));
        assert!(!covered(&list, "b", "openid"));
    }
}
