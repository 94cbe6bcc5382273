//! OpenID Connect Session Management 1.0: the `session_state` of an authorization answer
//! (section 3) and the OP iframe, `GET /oauth2/checksession.html` (section 3.2, LemonLDAP::NG's
//! `oidcServiceMetaDataCheckSessionURI` default), whose script (`/static/check_session.js`)
//! answers a relying party's `client_id session_state` message with `changed`, `unchanged` or
//! `error`.
//!
//! `session_state` is `base64(sha256(client_id " " origin " " opbs " " salt)) "." salt`: the
//! specification's example formula, where `origin` is the redirect URI's origin and `opbs` the
//! browser state, `sso::browser_state` of the session, which the browser-state cookie carries
//! (`web::cookies`). LemonLDAP::NG 2.16 hashes the session id instead, with no origin, while
//! its script hashes the origin and no id, so the two never agree (and its page reads the SSO
//! cookie, which `httpOnly` hides from scripts): the specification holds here, and the session
//! id never reaches a script.
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::response::origin_of;
use crate::http::Response;
use crate::oidc::settings;
use crate::sso::CookieState;
use crate::web::cookies;
use base64::Engine;
use maud::{html, DOCTYPE};
use sha2::{Digest, Sha256};

/// The `session_state` of an answer to `redirect_uri` in the session `session_id`, with a
/// fresh salt; `key` is the configuration's.
pub fn session_state(key: &str, client_id: &str, redirect_uri: &str, session_id: &str) -> String {
    // A redirect URI without a web origin (a native app's scheme) cannot frame the page:
    // its session_state is still well formed, and never matches.
    let origin = origin_of(redirect_uri).unwrap_or_default();
    let opbs = crate::sso::browser_state(key, session_id);
    compute(client_id, &origin, &opbs, &crate::util::random_hex(8))
}

/// The formula, on plain values (the check-session script computes the same in the browser).
fn compute(client_id: &str, origin: &str, opbs: &str, salt: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let hash = Sha256::digest(format!("{client_id} {origin} {opbs} {salt}").as_bytes());
    format!("{}.{salt}", b64.encode(hash))
}

/// `GET /oauth2/checksession.html`: the page relying parties frame, and only they (its
/// `frame-ancestors` are the origins of every redirect URI configured), never cached. A
/// request whose SSO cookie names no live session any more (expired, deleted elsewhere) gets
/// both cookies cleared, so the page answers `changed` from the start.
pub fn page(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if !req.method.is_read() {
        return Err(Error::MethodNotAllowed);
    }
    let body = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            head { meta charset="utf-8"; title { "Check session" } } "\n"
            body { script src="/static/check_session.js" data-cookie=(cookies::state_name(conf)) {} }
        } "\n"
    }
    .into_string();
    let redirect_uris: Vec<String> = conf
        .area::<settings::Settings>()
        .rps
        .iter()
        .flat_map(|rp| rp.redirect_uris.iter().cloned())
        .collect();
    let resp = Response::html(200, body).with_frame_ancestors(&redirect_uris);
    let state = crate::sso::from_cookie(app, conf, cookies::sso_id(conf, req).as_deref())?;
    Ok(match state {
        CookieState::Unknown => resp.with_cookies(&cookies::clear_sso(conf)),
        CookieState::Absent | CookieState::Valid(_) => resp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_state_is_the_specifications_formula() {
        // Computed apart: base64(sha256("app https://rp.example.com:8443 <opbs> <salt>")).
        let opbs = "0123456789abcdef0123456789abcdef";
        let salt = "1a2b3c4d5e6f7081";
        assert_eq!(
            compute("app", "https://rp.example.com:8443", opbs, salt),
            "3C549z0QHYhFYWzeDeOH2HGY/lDwgIcswt2/rYTW19c=.1a2b3c4d5e6f7081"
        );
        // Another origin, browser state or client gives another value.
        let base = compute("app", "https://rp.example.com", opbs, salt);
        assert_ne!(base, compute("app", "https://evil.example", opbs, salt));
        assert_ne!(base, compute("app", "https://rp.example.com", "00", salt));
        assert_ne!(base, compute("other", "https://rp.example.com", opbs, salt));
    }

    #[test]
    fn the_origin_is_the_redirect_uris_as_a_browser_names_it() {
        let opbs = crate::sso::browser_state("k", "sid");
        let ss = session_state("k", "app", "HTTPS://RP.example.com:443/cb?x=1", "sid");
        let (_, salt) = ss.split_once('.').unwrap();
        assert_eq!(ss, compute("app", "https://rp.example.com", &opbs, salt));
        assert_eq!(salt.len(), 16);
    }
}
