//! The login: check the credentials against the directory, build the SSO session, let the
//! hold (`Hold`: the notifications to accept, as the router gives it) keep it back if needed,
//! then store it and release the cookie. The portal does not know the notifications area.
use super::{login_page, pages, pending_url, session, session::CookieState};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, PortalCode, Result};
use crate::http::{Request, Response};
use crate::sso::history::{self, Verdict};
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
    // A JSON login carries no token: a browser that says it comes from elsewhere is refused
    // (login CSRF: the victim signed in as the attacker).
    if json && super::cross_site::refused(conf, req) {
        return Ok(super::cross_site_refusal(conf, req));
    }
    if let CookieState::Valid(_) = session::from_request(app, conf, req)? {
        // Already authenticated: LemonLDAP::NG refuses a second login on the same session.
        if json {
            return Err(Error::Portal {
                code: PortalCode::Error,
                status: 400,
            });
        }
        return Ok(Response::redirect(
            &pending_url(conf, req).unwrap_or_else(|| conf.portal.clone()),
        ));
    }
    if !json && conf.require_token {
        if let Some(code) = refuse_token(app, conf, req)? {
            return Ok(login_page(conf, req, code, 400));
        }
    }
    let (Some(user), Some(password)) = (req.form_param("user"), req.form_param("password")) else {
        return Ok(login_page(conf, req, PortalCode::Error, 401));
    };
    match verify(app, conf, req, &user, &password)? {
        Verified::Session(s) => finish(app, conf, req, s, pending_url(conf, req), hold),
        Verified::Refused(code, status) => Ok(login_page(conf, req, code, status)),
        Verified::Locked(seconds) => Ok(locked_page(conf, req, seconds)),
    }
}

/// The login without a browser, for the OpenID Connect password grant (the router gives it to
/// the provider): the same checks as the form (`userControl`, directory, brute-force lock,
/// login history), then the hold (held notifications refuse it: LemonLDAP::NG's process stops
/// there too), then the session is stored, without a cookie. `None`: refused.
pub fn without_browser(
    app: &App,
    conf: &Conf,
    req: &Request,
    user: &str,
    password: &str,
    hold: Hold,
) -> Result<Option<Session>> {
    let Verified::Session(s) = verify(app, conf, req, user, password)? else {
        return Ok(None);
    };
    if hold(app, conf, req, &s, None)?.is_some() {
        return Ok(None);
    }
    let settings = conf.area::<history::Settings>();
    let mut s = s;
    if let Some(h) = history::record_success(app, &settings, &s)? {
        s.insert(history::KEY.into(), h);
    }
    crate::sso::store(app, &s)?;
    let text = |k: &str| {
        s.get(k)
            .map(crate::config::value_string)
            .unwrap_or_default()
    };
    audit_login(true, &text("_whatToTrace"), &text("ipAddr"), &text("_auth"));
    Ok(Some(s))
}

/// What checking a user name and password gave.
enum Verified {
    /// The session built for the user (not stored yet).
    Session(Session),
    /// Refused with this portal error and status.
    Refused(PortalCode, u16),
    /// Refused by the brute-force lock for this many seconds.
    Locked(i64),
}

/// LemonLDAP::NG's `extractFormInfo`, `authenticate`, `getUser` and the brute-force lock: the
/// checks of a login, failures audited and counted in the user's history.
fn verify(app: &App, conf: &Conf, req: &Request, user: &str, password: &str) -> Result<Verified> {
    let user = user.trim().to_string();
    if user.is_empty() || password.is_empty() {
        return Ok(Verified::Refused(PortalCode::FormEmpty, 401));
    }
    if user.len() > MAX_USER || !user_allowed(conf, &user) {
        return Ok(Verified::Refused(PortalCode::MalformedUser, 401));
    }
    if password.len() > MAX_PASSWORD {
        return Ok(Verified::Refused(PortalCode::BadCredentials, 401));
    }
    let dir = crate::directory::for_conf(conf);
    let (right, attrs) = match check_credentials(conf, &user, password) {
        Ok(v) => v,
        Err(Error::Portal { code, status }) => return Ok(Verified::Refused(code, status)),
        Err(e) => return Err(e),
    };
    let addr = req.ip();
    let Some(attrs) = attrs else {
        // An unknown user has no history to count in (LemonLDAP::NG stops at getUser).
        audit_login(false, &user, &addr, dir.name());
        return Ok(Verified::Refused(PortalCode::BadCredentials, 401));
    };
    let s = session::build(conf, req, &user, &attrs, dir.name());
    let trace = s
        .get("_whatToTrace")
        .map(crate::config::value_string)
        .unwrap_or_else(|| user.clone());
    let settings = conf.area::<history::Settings>();
    match history::judge(app, &settings, &s, right)? {
        Verdict::Pass => Ok(Verified::Session(s)),
        Verdict::Failed(_) => {
            audit_login(false, &trace, &addr, dir.name());
            Ok(Verified::Refused(PortalCode::BadCredentials, 401))
        }
        Verdict::Locked(w) => {
            let secs = w.seconds.to_string();
            let user = sanitize(&trace);
            let fields = [
                ("user", user.as_str()),
                ("address", &addr),
                ("seconds", &secs),
            ];
            crate::log::audit("lock", &fields);
            Ok(Verified::Locked(w.seconds))
        }
    }
}

/// The login form's token, checked and spent (LemonLDAP::NG's `extractFormInfo`): none is
/// PE_NOTOKEN (81); a forged, stale or already used one is PE_TOKENEXPIRED (82). The page
/// answering either carries a new token.
fn refuse_token(app: &App, conf: &Conf, req: &Request) -> Result<Option<PortalCode>> {
    let token = req.form_param("token");
    Ok(match csrf::check(conf, token.as_deref()) {
        Err(csrf::Refusal::Missing) => Some(PortalCode::NoToken),
        Err(csrf::Refusal::Expired) => Some(PortalCode::TokenExpired),
        Ok(()) => {
            let token = token.unwrap_or_default();
            (!crate::sso::form_token::spend(app, conf, &token)?).then_some(PortalCode::TokenExpired)
        }
    })
}

/// Checks the password and fetches the user (LemonLDAP::NG's `authenticate` and `getUser`):
/// whether the password is right, and the user's attributes (`None`: no such user). A
/// directory failure is portal error 24 (logged).
fn check_credentials(
    conf: &Conf,
    user: &str,
    password: &str,
) -> Result<(bool, Option<Map<String, Value>>)> {
    let dir = crate::directory::for_conf(conf);
    let fail = |e: Error| {
        crate::log::error(&format!("directory failure for a login: {e}"));
        Error::portal(PortalCode::Error, 401)
    };
    let right = dir.authenticate(user, password).map_err(fail)?;
    let attrs = dir.user_info(user).map_err(fail)?;
    if !right {
        crate::log::notice(&format!("bad credentials for {}", sanitize(user)));
    }
    Ok((right && attrs.is_some(), attrs))
}

/// The answer to a login refused by the brute-force lock: portal error 86 and the seconds
/// left, on the page (without the form, as LemonLDAP::NG shows it) and in JSON (`lockTime`,
/// which LemonLDAP::NG 2.16 does not send, and `Retry-After`).
fn locked_page(conf: &Conf, req: &Request, seconds: i64) -> Response {
    let resp = if req.wants_json() {
        let body = json!({"result": 0, "error": PortalCode::Wait.as_str(), "lockTime": seconds});
        super::with_sso_challenge(Response::json(401, &body), 401, &conf.portal)
    } else {
        let page = pages::frame(conf, req, None);
        Response::html(200, pages::locked(&page, seconds))
    };
    resp.with_header("Retry-After", seconds.to_string())
}

/// The audit line of a failed login: the user, the client's address, the module.
fn audit_login(ok: bool, user: &str, addr: &str, module: &str) {
    crate::metrics::login(ok);
    let user = sanitize(user);
    let fields = [
        ("user", user.as_str()),
        ("address", addr),
        ("module", module),
    ];
    crate::log::audit(if ok { "login" } else { "login_failed" }, &fields);
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
/// else a redirect to the pending URL or to the portal's landing page (post/redirect/get: the
/// answer to a posted form is never a page a reload would post again). The login is recorded in the user's
/// history (and the history copied into the session, as LemonLDAP::NG does); a session this
/// login replaces (the browser's SSO cookie, or the one a re-authentication set aside in
/// [`crate::sso::RENEW_COOKIE`]) is ended on the server, so its id is worth nothing any more.
pub fn release(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &Session,
    url: Option<&str>,
) -> Result<Response> {
    let settings = conf.area::<history::Settings>();
    let mut s = s.clone();
    if let Some(h) = history::record_success(app, &settings, &s)? {
        s.insert(history::KEY.into(), h);
    }
    let id = crate::sso::store(app, &s)?;
    let text = |k: &str| {
        s.get(k)
            .map(crate::config::value_string)
            .unwrap_or_default()
    };
    audit_login(true, &text("_whatToTrace"), &text("ipAddr"), &text("_auth"));
    let replaced = end_replaced(app, conf, req, &id)?;
    let resp = if req.wants_json() {
        Response::json(200, &json!({"result": 1, "error": "0", "id": id}))
    } else {
        Response::redirect(url.unwrap_or(&conf.portal))
    };
    let state = crate::sso::browser_state(&conf.key, &id);
    let resp = resp.with_cookies(&cookies::sso(conf, &id, &state));
    Ok(if replaced {
        let clear = cookies::portal_cookie(conf, crate::sso::RENEW_COOKIE, "0", true);
        resp.with_cookie(&clear)
    } else {
        resp
    })
}

/// Ends the live sessions the request names besides `new_id` (its SSO cookie, the session a
/// re-authentication set aside); `true` when the request carried a set-aside one.
fn end_replaced(app: &App, conf: &Conf, req: &Request, new_id: &str) -> Result<bool> {
    let renew = req
        .cookie(crate::sso::RENEW_COOKIE)
        .filter(|v| !v.is_empty() && v != "0");
    for old in [cookies::sso_id(conf, req), renew.clone()]
        .into_iter()
        .flatten()
    {
        if old == new_id {
            continue;
        }
        if let Some(old) = crate::sso::lookup(app, conf, &old)? {
            // The login answers with a redirect: no page for front-channel iframes.
            crate::sso::logout(app, &old, crate::app::Reach::ServerOnly)?;
            let user = sanitize(&old.trace());
            crate::log::audit("session_replaced", &[("user", &user)]);
        }
    }
    Ok(renew.is_some())
}

/// LemonLDAP::NG's `userControl`: the login name must match the pattern (unanchored, as Perl's
/// `=~`). A pattern that does not compile refuses everybody; the start-up gate refuses it first.
pub fn user_allowed(conf: &Conf, user: &str) -> bool {
    let directory = conf.area::<crate::directory::Settings>();
    directory
        .user_control
        .as_ref()
        .is_some_and(|re| re.is_match(user))
}

/// A user name fit for a log line.
fn sanitize(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(64).collect()
}
