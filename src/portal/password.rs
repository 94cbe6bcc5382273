//! `POST /` with `newpassword`: the connected user changes their password, as LemonLDAP::NG
//! 2.16's portal takes it (`Password/Base.pm`, run for an authenticated user on the portal's
//! own path): the fields `oldpassword`, `newpassword`, `confirmpassword`; the decision is
//! `crate::password::change`'s.
//!
//! A JSON client gets LemonLDAP::NG's answer: `{"result":1,"error":"35"}` when changed,
//! `{"result":0,"error":"N"}` with 400 when refused (34 mismatch, 27 old password missing, 39
//! wrong, 29 too short, 28 quality, 100/101 characters not allowed, 20 no password backend,
//! 86 locked, with `lockTime` and `Retry-After` as the login's lock), `{"result":1,"error":"0"}`
//! when there is no password module (nothing changed, as LemonLDAP::NG without one). A JSON
//! post from another site is refused (`cross_site`), as the JSON login is.
//!
//! A browser posts the menu's form with its token (bound to the session): a refusal shows the
//! menu with the tab saying why; a change redirects to the menu (post/redirect/get) with a
//! token that lets it say so and how many other sessions were ended. Without a session the
//! post is a login, as LemonLDAP::NG takes it.
use super::menu::{self, password::Said};
use super::session::{self, CookieState};
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::http::{Request, Response};
use crate::password::{Form, Outcome};
use crate::rules::Env;
use crate::sso::SsoSession;
use crate::web::csrf;
use serde_json::json;

/// The query key of the redirect after a change (its token) and of the count it shows.
const CHANGED: &str = "pwdchanged";
const ENDED: &str = "ended";

/// Serves the post.
pub fn post(app: &App, conf: &Conf, req: &Request) -> Result<Response> {
    let CookieState::Valid(s) = session::from_request(app, conf, req)? else {
        return super::login::post(app, req, conf);
    };
    let json = req.wants_json();
    if json && super::cross_site::refused(conf, req) {
        return Ok(super::cross_site_refusal(conf, req));
    }
    if !json {
        let token = req.form_param("token");
        if let Err(why) = csrf::check_for(conf, token.as_deref(), &menu::password::binding(&s)) {
            let code = match why {
                csrf::Refusal::Missing => 81,
                csrf::Refusal::Expired => 82,
            };
            return menu::with_password(app, conf, req, &s, Said::Token(code));
        }
    }
    let (new, confirm) = (
        req.form_param("newpassword"),
        req.form_param("confirmpassword"),
    );
    let old = req.form_param("oldpassword").filter(|o| !o.is_empty());
    let form = Form {
        new: new.as_deref().unwrap_or_default(),
        confirm: confirm.as_deref().unwrap_or_default(),
        old: old.as_deref(),
    };
    let env = Env::from_request(
        req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        &req.ip(),
    );
    let outcome = crate::password::change(app, conf, &s, &env, &req.ip(), form)?;
    if json {
        return Ok(json_answer(outcome));
    }
    match outcome {
        Outcome::Nothing => Ok(Response::redirect(&conf.portal)),
        Outcome::Changed(ended) => Ok(Response::redirect(&changed_url(conf, &s, ended))),
        Outcome::Refused(r) => menu::with_password(app, conf, req, &s, Said::Refused(r)),
        Outcome::Locked(secs) => Ok(menu::with_password(app, conf, req, &s, Said::Locked(secs))?
            .with_header("Retry-After", secs.to_string())),
    }
}

/// The menu of `GET /`, saying that the password was changed when the query carries the
/// redirect's token for this session.
pub fn menu_page(app: &App, conf: &Conf, req: &Request, s: &SsoSession) -> Result<Response> {
    let Some(token) = req.query_param(CHANGED) else {
        return menu::page(app, conf, req, s);
    };
    let ended = req.query_param(ENDED).unwrap_or_default();
    let binding = menu::password::changed_binding(s, &ended);
    if csrf::check_for(conf, Some(token.as_str()), &binding).is_err() {
        return menu::page(app, conf, req, s);
    }
    let said = Said::Changed(ended.parse().ok());
    menu::with_password(app, conf, req, s, said)
}

/// Where a browser goes after a change: the menu's password tab, with the token that lets it
/// say so.
fn changed_url(conf: &Conf, s: &SsoSession, ended: Option<usize>) -> String {
    let ended = ended.map_or_else(|| "unknown".into(), |n| n.to_string());
    let token = csrf::issue_for(conf, &menu::password::changed_binding(s, &ended));
    format!("{}?{CHANGED}={token}&{ENDED}={ended}#password", conf.portal)
}

/// LemonLDAP::NG's JSON answer of a change.
fn json_answer(outcome: Outcome) -> Response {
    match outcome {
        Outcome::Nothing => Response::json(200, &json!({"result": 1, "error": "0"})),
        Outcome::Changed(_) => Response::json(200, &json!({"result": 1, "error": "35"})),
        Outcome::Refused(r) => {
            Response::json(400, &json!({"result": 0, "error": r.code().to_string()}))
        }
        Outcome::Locked(secs) => {
            let body = json!({"result": 0, "error": "86", "lockTime": secs});
            Response::json(400, &body).with_header("Retry-After", secs.to_string())
        }
    }
}
