//! `GET|POST /oauth2/logout` (OpenID Connect RP-Initiated Logout 1.0): ends the SSO session
//! and goes back to the RP's registered `post_logout_redirect_uri` with its `state`, through a
//! page that loads the front-channel logout URLs of the RPs the session used, if any.
//!
//! No cross-site logout: the session ends only when the user confirms on a page of the portal
//! (a form posted back with a CSRF token bound to the session), or, with the RP's
//! `oidcRPMetaDataOptionsLogoutBypassConfirm`, when `id_token_hint` is a valid ID token of
//! the current session (section 2: "the OP MUST ask the End-User [...] if the supplied ID
//! Token does not belong to the current OP session"). LemonLDAP::NG 2.16 asks too unless the
//! RP bypasses, but reads the hint's `azp` without verifying it; Limette verifies the hint
//! (signature with the RP's algorithm and key, issuer, `aud`/`azp`) and refuses a forged one,
//! and binds it to the session by `sub` and `sid`. An expired hint is still a hint (section
//! 2: the OP SHOULD accept it). An unregistered URI or a forged hint is refused before
//! anything is ended or asked. A self-registered relying party (`register-*`, which anyone may
//! add when registration is on) is sent back to its URI only with a verified hint issued to it.
//!
//! The folder holds every way an RP hears of a session's end: this endpoint, the front and
//! back channels run when a session ends however it ends (`channels`), and the check-session
//! page (`check_session`). It imports only the shared modules; `authorize` imports it for
//! `session_state`.
pub mod channels;
pub mod check_session;

use crate::app::Reach;
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use crate::oidc::base::{self, Params};
use crate::oidc::claims;
use crate::oidc::keys::jwt;
use crate::oidc::settings::{self, Rp, Settings};
use crate::sso::{CookieState, SsoSession};
use crate::util;
use crate::web::{self, cookies, csrf};
use maud::html;
use serde_json::{json, Value};

/// `/oauth2/logout`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let p = base::params(req);
    let settings = conf.area::<Settings>();
    let ask = read(&settings, &base::issuer(conf), &p).map_err(Error::bad)?;
    let sso_id = cookies::sso_id(conf, req);
    let CookieState::Valid(s) = crate::sso::from_cookie(app, conf, sso_id.as_deref())? else {
        // No session to end: nothing a cross-site request could harm.
        return Ok(done(conf, req, &ask, &[]).with_cookies(&cookies::clear_sso(conf)));
    };
    let binding = binding(&s);
    let wants_confirm = req.method == Method::Post && p.get("confirm") == Some("1");
    let token_ok = wants_confirm && csrf::check_for(conf, p.get("token"), &binding).is_ok();
    let how = if token_ok {
        "confirmed"
    } else if ask.bypass(&s, &conf.key) {
        "id_token_hint"
    } else {
        // A confirmation posted without a valid token (cross-site, forged) is refused; one
        // left open too long says so and asks again.
        let stale = wants_confirm && csrf::is_stale(conf, p.get("token"), &binding);
        let status = if wants_confirm && !stale { 403 } else { 200 };
        let frame = base::frame(conf, req, Some(&s))
            .with_header(Some(crate::account::header(app, conf, req, &s)));
        return Ok(Response::html(
            status,
            page(&frame, &ask, &p, &binding, stale),
        ));
    };
    let reach = match req.wants_json() {
        true => Reach::ServerOnly,
        false => Reach::Browser,
    };
    let frames = crate::sso::logout(app, &s, reach)?;
    let client = ask.rp.map_or("", |rp| rp.client_id.as_str());
    // `sso::logout` wrote the `logout` line; this one says how the relying party asked.
    crate::log::audit(
        "oidc_logout",
        &[("user", &s.trace()), ("client", client), ("by", how)],
    );
    Ok(done(conf, req, &ask, &frames).with_cookies(&cookies::clear_sso(conf)))
}

/// A checked logout request: the RP it came from, the verified hint, where to go afterwards.
#[derive(Debug)]
pub struct Ask<'a> {
    /// The RP named by the hint or `client_id`.
    pub rp: Option<&'a Rp>,
    /// The verified `id_token_hint`.
    pub hint: Option<Hint<'a>>,
    /// The registered `post_logout_redirect_uri` with `state`; `None`: the portal's page.
    pub target: Option<String>,
}

/// A verified `id_token_hint`: its RP and the claims that tie it to a session.
#[derive(Debug)]
pub struct Hint<'a> {
    /// The RP it was issued to (`azp`, else the first `aud`).
    pub rp: &'a Rp,
    /// Its `sub`.
    pub sub: String,
    /// Its `sid` (`sso::oidc_sid` of the session it was issued in).
    pub sid: Option<String>,
}

impl Ask<'_> {
    /// Whether the session may end without a confirmation: the RP bypasses it and the hint
    /// was issued in this very session (same `sub`, same `sid`).
    pub fn bypass(&self, s: &SsoSession, key: &str) -> bool {
        let Some(h) = &self.hint else {
            return false;
        };
        let sid = crate::sso::oidc_sid(key, s.id());
        let same_sid = h
            .sid
            .as_deref()
            .is_some_and(|x| util::ct_eq(x.as_bytes(), sid.as_bytes()));
        // The subject this RP was given (its UserIDAttr), as the hint carries it.
        let data = claims::data_for(s, &h.rp.client_id, &h.rp.name, "");
        let sub = h.rp.release.sub(&data);
        h.rp.logout_bypass_confirm && same_sid && sub.as_deref() == Some(h.sub.as_str())
    }
}

/// Checks the parameters; errors are shown (400).
pub fn read<'a>(
    settings: &'a Settings,
    iss: &str,
    p: &Params,
) -> std::result::Result<Ask<'a>, String> {
    if p.oversized() {
        return Err("A parameter is too long".into());
    }
    let hint = p
        .get("id_token_hint")
        .map(|h| check_hint(settings, iss, h))
        .transpose()?;
    let by_id = p
        .get("client_id")
        .map(|c| settings.rp(c).ok_or("Unknown client_id"))
        .transpose()?;
    // Section 2: with both, the client_id must be the hint's.
    if let (Some(h), Some(c)) = (&hint, by_id) {
        if h.rp.client_id != c.client_id {
            return Err("client_id does not match id_token_hint".into());
        }
    }
    let rp = hint.as_ref().map(|h| h.rp).or(by_id);
    let target = match p.get("post_logout_redirect_uri") {
        None => None,
        Some(uri) => {
            let rp = rp.ok_or("post_logout_redirect_uri needs id_token_hint or client_id")?;
            // Exact match against that RP's registration: never an open redirect.
            if !rp.post_logout_uris.iter().any(|u| u == uri) {
                return Err("post_logout_redirect_uri is not registered".into());
            }
            let state: Vec<(&str, &str)> =
                p.state().map(|s| vec![("state", s)]).unwrap_or_default();
            // Anyone may have registered a self-registered client's URIs: it is followed only
            // with a verified hint issued to that client (so after a login through it), else
            // the portal's page is shown, never an open redirect.
            let self_registered = rp.name.starts_with(settings::registration::PREFIX);
            let hinted = hint
                .as_ref()
                .is_some_and(|h| h.rp.client_id == rp.client_id);
            (hinted || !self_registered).then(|| base::with_params(uri, &state))
        }
    };
    Ok(Ask { rp, hint, target })
}

/// An ID token this provider issued, in these numbered checks: 1. `azp` (else the first
/// `aud`) names a known RP; 2. the signature verifies with that RP's algorithm, pinned: HS*
/// with its secret (constant time), the others with whichever published key (current or
/// retired) the header's `kid` names; 3. `iss` is ours; 4. `aud` names that RP. Expiry is not
/// checked (RP-Initiated Logout 1.0, section 2: hints are often old).
fn check_hint<'a>(
    settings: &'a Settings,
    iss: &str,
    hint: &str,
) -> std::result::Result<Hint<'a>, String> {
    let bad = || "Invalid id_token_hint".to_string();
    let unverified = jwt::peek_claims(hint).ok_or_else(bad)?;
    let azp = unverified.get("azp").and_then(Value::as_str);
    let first_aud = unverified
        .get("aud")
        .and_then(|a| a.get(0).or(Some(a)))
        .and_then(Value::as_str);
    // 1.
    let rp = azp
        .or(first_aud)
        .and_then(|c| settings.rp(c))
        .ok_or_else(bad)?;
    // 2.
    let key = match rp.id_alg.key_kind() {
        Some(_) => {
            let header = jwt::peek_header(hint).ok_or_else(bad)?;
            let kid = header.get("kid").and_then(Value::as_str).ok_or_else(bad)?;
            jwt::VerifyKey::Public(settings.keys.find(kid, util::now()).ok_or_else(bad)?)
        }
        None => jwt::VerifyKey::Secret(rp.secret.expose()),
    };
    let claims = jwt::verify(hint, rp.id_alg, key).map_err(|_| bad())?;
    // 3.
    if claims.get("iss").and_then(Value::as_str) != Some(iss) {
        return Err(bad());
    }
    // 4.
    let aud_ok = match claims.get("aud") {
        Some(Value::String(a)) => *a == rp.client_id,
        Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(&rp.client_id)),
        _ => false,
    };
    if !aud_ok {
        return Err(bad());
    }
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(Hint {
        rp,
        sub: text("sub").unwrap_or_default(),
        sid: text("sid"),
    })
}

/// What a confirmation token is bound to: this SSO session and this action.
fn binding(s: &SsoSession) -> String {
    format!("oidc-logout:{}", s.id())
}

/// After the logout (or with no session): the registered URI, else the portal's page. With
/// front-channel logout URLs (`frames`) to load, the browser first gets a page that loads them
/// in hidden iframes, then goes on to the URI by itself (Front-Channel Logout 1.0, section 4).
fn done(conf: &Conf, req: &Request, ask: &Ask, frames: &[String]) -> Response {
    let frame = base::frame(conf, req, None);
    let title = frame.raw("logoutTitle");
    let signed_out = html! {
        h1 { (frame.say("logoutTitle")) } "\n"
        div class="message" role="status" id="loggedout" { p { (frame.say("signedOut")) } } "\n"
    };
    let iframes = web::logout_frames(frames);
    let resp = match &ask.target {
        Some(url) if frames.is_empty() => Response::redirect(url),
        Some(url) => Response::html(
            200,
            frame.render_then(&title, html! { (signed_out) (iframes) }, 2, url),
        ),
        None if req.wants_json() => Response::json(200, &json!({"result": 1})),
        None => Response::html(
            200,
            frame.render_markup(
                &title,
                html! {
                    (signed_out)
                    p { a class="button" href=(conf.portal) { (frame.say("signInAgain")) } } "\n"
                    (iframes)
                },
            ),
        ),
    };
    resp.with_frame_sources(frames)
}

/// The confirmation page: a form that posts the request back with `confirm=1` and a token
/// bound to the session (valid `formTimeout` seconds); "stay signed in" goes to the portal.
fn page(frame: &web::Page, ask: &Ask, p: &Params, binding: &str, stale: bool) -> String {
    const KEPT: [&str; 4] = [
        "id_token_hint",
        "post_logout_redirect_uri",
        "state",
        "client_id",
    ];
    let hidden = KEPT.iter().filter_map(|k| p.get(k).map(|v| (k, v)));
    let asker = match ask.rp {
        Some(rp) => frame.say_around("logoutAskedByApp", "app", html! { strong { (rp.name) } }),
        None => html! { (frame.say("logoutAskedByPage")) },
    };
    let portal = frame.portal();
    let body = html! {
        h1 { (frame.say("logoutTitle")) } "\n"
        @if stale { (web::page::stale_notice(frame)) }
        p id="logout-confirm" { (asker) " " (frame.say("logoutConfirm")) } "\n"
        form method="post" action={ (portal) "oauth2/logout" } {
            "\n"
            @for (k, v) in hidden { input type="hidden" name=(k) value=(v); "\n" }
            input type="hidden" name="token" value=(csrf::issue_for(frame.conf(), binding)); "\n"
            p class="actions" {
                button type="submit" name="confirm" value="1" { (frame.say("logout")) } "\n"
                a class="button secondary" href=(portal) { (frame.say("stayConnected")) }
            } "\n"
        }
    };
    frame.render_markup(&frame.raw("logoutTitle"), body)
}

#[cfg(test)]
mod tests;
