//! The login: check the credentials against the directory, build the SSO session, let the
//! hold (`Hold`: the notifications to accept, as the router gives it) keep it back if needed,
//! then store it and release the cookie. The portal does not know the notifications area.
use super::{login_page, pages, pending_url, session, session::CookieState};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, PortalCode, Result};
use crate::http::{Request, Response};
use crate::storage::Session;
use crate::web::{cookies, csrf};
use serde_json::{json, Map, Value};

/// Longest login name: with `userControl`, what makes a name well-formed (PE_MALFORMEDUSER
/// above); no directory is asked about a longer one, and it never reaches a session.
pub const MAX_USER: usize = 255;
/// Longest password handed to a directory (PE_BADCREDENTIALS above, as a wrong one).
pub const MAX_PASSWORD: usize = 4096;

/// `POST /` or `POST /oauth2/` with `user` and `password`.
pub fn post(app: &App, req: &Request, conf: &Conf, hold: Hold) -> Result<Response> {
    let json = req.wants_json();
    if let CookieState::Valid(s) = session::from_request(app, conf, req)? {
        // Already authenticated: LemonLDAP::NG refuses a second login on the same session.
        if json {
            return Err(Error::Portal {
                code: PortalCode::Error,
                status: 400,
            });
        }
        return Ok(match pending_url(conf, req) {
            Some(u) => Response::redirect(&u),
            None => Response::html(200, pages::landing(conf, &s)),
        });
    }
    if !json && conf.get_bool("requireToken") {
        if let Err(r) = csrf::check(conf, req.form_param("token").as_deref()) {
            let code = if r == csrf::Refusal::Missing {
                PortalCode::NoToken
            } else {
                PortalCode::TokenExpired
            };
            return Ok(login_page(conf, req, code, 400));
        }
    }
    let (Some(user), Some(password)) = (req.form_param("user"), req.form_param("password")) else {
        return Ok(login_page(conf, req, PortalCode::Error, 401));
    };
    let user = user.trim().to_string();
    if user.is_empty() || password.is_empty() {
        return Ok(login_page(conf, req, PortalCode::FormEmpty, 401));
    }
    if user.len() > MAX_USER || !user_allowed(conf, &user) {
        return Ok(login_page(conf, req, PortalCode::MalformedUser, 401));
    }
    if password.len() > MAX_PASSWORD {
        return Ok(login_page(conf, req, PortalCode::BadCredentials, 401));
    }
    let attrs = match authenticate(conf, &user, &password) {
        Ok(a) => a,
        Err(Error::Portal { code, status }) => return Ok(login_page(conf, req, code, status)),
        Err(e) => return Err(e),
    };
    let dir = crate::directory::for_conf(conf);
    let s = session::build(conf, req, &user, &attrs, dir.name());
    finish(app, conf, req, s, pending_url(conf, req), hold)
}

/// Checks credentials and returns the user's attributes. Wrong password or unknown user:
/// portal error 5; directory failure: portal error 24 (logged).
pub fn authenticate(conf: &Conf, user: &str, password: &str) -> Result<Map<String, Value>> {
    let dir = crate::directory::for_conf(conf);
    let bad = || Error::portal(PortalCode::BadCredentials, 401);
    let fail = |e: Error| {
        crate::log::error(&format!("directory failure for a login: {e}"));
        Error::portal(PortalCode::Error, 401)
    };
    if user.len() > 255 || !dir.authenticate(user, password).map_err(fail)? {
        crate::log::notice(&format!("bad credentials for {}", sanitize(user)));
        return Err(bad());
    }
    dir.user_info(user).map_err(fail)?.ok_or_else(bad)
}

/// What may hold a successful login back before its SSO session exists, answering itself
/// (`Some`), or let it through (`None`): the notifications to accept
/// (`notifications::portal::intercept`, given by the router). It gets the session built and
/// the URL the client goes to afterwards; it releases the login later with `release`.
pub type Hold = fn(&App, &Conf, &Request, &Session, Option<&str>) -> Result<Option<Response>>;

/// Ends a successful login: the hold may keep the session back (and answers itself);
/// otherwise the session is stored, the cookie set, and the client sent on.
pub fn finish(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: Session,
    url: Option<String>,
    hold: Hold,
) -> Result<Response> {
    if let Some(resp) = hold(app, conf, req, &s, url.as_deref())? {
        return Ok(resp);
    }
    release(app, conf, req, &s, url.as_deref())
}

/// Stores the session and answers with the SSO cookie: JSON `{"result":1,"error":"0","id":..}`,
/// a redirect to the pending URL, or the landing page.
pub fn release(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &Session,
    url: Option<&str>,
) -> Result<Response> {
    let id = crate::sso::store(app, s)?;
    crate::log::notice(&format!(
        "user {} authenticated",
        sanitize(
            &s.get("_whatToTrace")
                .map(crate::config::value_string)
                .unwrap_or_default()
        )
    ));
    let resp = if req.wants_json() {
        Response::json(200, &json!({"result": 1, "error": "0", "id": id}))
    } else if let Some(u) = url {
        Response::redirect(u)
    } else {
        Response::html(200, pages::landing(conf, s))
    };
    Ok(resp.with_cookie(&cookies::sso(conf, &id)))
}

/// LemonLDAP::NG's `userControl`: the login name must match the pattern (unanchored, as Perl's
/// `=~`). A pattern that does not compile refuses everybody; the start-up gate refuses it first.
pub fn user_allowed(conf: &Conf, user: &str) -> bool {
    let pattern = conf.get_str("userControl");
    regex_lite::Regex::new(&pattern).is_ok_and(|re| re.is_match(user))
}

/// A user name fit for a log line.
fn sanitize(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(64).collect()
}
