//! The login, one pipeline: identify (`identify`) -> authenticate against the directory
//! module (`authenticate`) -> build the session (`build`: attributes, macros, groups,
//! authentication level) -> the brute-force lock (`authenticate::judge`, which counts in the
//! history the built session names) -> the second factor (`second_factor`) -> grant (`grant`)
//! -> holds (`holds`: the notifications to accept) -> release (`release`: history, store,
//! replaced sessions). Every entry point calls it directly: the portal's form and JSON login
//! (`run`), the OpenID Connect password grant (`without_browser`), the answer to a hold's page
//! (`holds::notifications::answer`, then `release`). It decides and returns an `Outcome`; the
//! entry point's handler encodes it (pages, cookies, redirects, JSON). It reads the request
//! for the client's address, the headers rules see, and the cookies naming sessions a login
//! replaces; it writes no answer.
pub mod authenticate;
pub mod build;
pub mod grant;
pub mod holds;
pub mod identify;
pub mod macros;
pub mod release;
pub mod second_factor;

use crate::app::App;
use crate::config::Conf;
use crate::error::{PortalCode, Result};
use crate::http::Request;
use crate::storage::Session;
use authenticate::{Judged, Known};
pub use identify::Credentials;
use second_factor::Step;

/// How a login ended.
pub enum Outcome {
    /// Refused with this portal error and status.
    Refused(PortalCode, u16),
    /// Refused by the brute-force lock for this many seconds.
    Locked(i64),
    /// Kept back by a hold, or by the second factor: the user answers its page first.
    Held(holds::Held),
    /// The SSO session is stored: the answer carries its cookie.
    Released(release::Released),
}

/// The login of a browser or a JSON client, to `url` afterwards.
pub fn run(
    app: &App,
    conf: &Conf,
    req: &Request,
    c: Credentials,
    url: Option<&str>,
) -> Result<Outcome> {
    let s = match checked(app, conf, req, c)? {
        Ok(s) => s,
        Err(refused) => return Ok(refused),
    };
    if let Some(held) = held(app, conf, &s, url)? {
        return Ok(held);
    }
    Ok(Outcome::Released(release::release(
        app, conf, req, &s, url,
    )?))
}

/// The login without a browser, for the OpenID Connect password grant: the same steps as the
/// form (a login held back is refused: LemonLDAP::NG's process stops there too), then the
/// session is stored, without a cookie. `None`: refused.
pub fn without_browser(
    app: &App,
    conf: &Conf,
    req: &Request,
    c: Credentials,
) -> Result<Option<Session>> {
    let Ok(s) = checked(app, conf, req, c)? else {
        return Ok(None);
    };
    if held(app, conf, &s, None)?.is_some() {
        return Ok(None);
    }
    let (_, s) = release::store(app, conf, &s)?;
    Ok(Some(s))
}

/// The rest of a login held by its second factor once the factor passed (the portal's
/// `/<prefix>2fcheck`, a registration under `sfRequired`): grant, holds, release.
pub fn after_second_factor(
    app: &App,
    conf: &Conf,
    req: &Request,
    s: &Session,
    url: Option<&str>,
) -> Result<Outcome> {
    let mut s = s.clone();
    // The factor set its own level (its AuthnLevel): macros and groups see it.
    let base = crate::directory::for_conf(conf).authn_level();
    let level = s.get("authenticationLevel").and_then(crate::config::as_i64);
    if level.is_some_and(|l| l != base) {
        build::after_level_change(conf, req, &mut s);
    }
    if let Some(held) = granted_or_held(app, conf, &s, url)? {
        return Ok(held);
    }
    Ok(Outcome::Released(release::release(
        app, conf, req, &s, url,
    )?))
}

/// Identify, authenticate, build the session, the lock: the session built, or the refusal.
fn checked(
    app: &App,
    conf: &Conf,
    req: &Request,
    c: Credentials,
) -> Result<std::result::Result<Session, Outcome>> {
    let user = match identify::check(conf, c) {
        Ok(user) => user,
        Err((code, status)) => return Ok(Err(Outcome::Refused(code, status))),
    };
    let client = req.ip();
    let (right, attrs) = match authenticate::directory(conf, &client, &user, c.password)? {
        Known::User(right, attrs) => (right, attrs),
        Known::Refused(code, status) => return Ok(Err(Outcome::Refused(code, status))),
    };
    let module = crate::directory::for_conf(conf).name();
    let s = build::build(conf, req, &user, &attrs, module);
    Ok(match authenticate::judge(app, conf, &client, &s, right)? {
        Judged::Pass => Ok(s),
        Judged::Refused(code, status) => Err(Outcome::Refused(code, status)),
        Judged::Locked(seconds) => Err(Outcome::Locked(seconds)),
    })
}

/// The second factor, the grant and the holds: what keeps a checked login back, if anything.
fn held(app: &App, conf: &Conf, s: &Session, url: Option<&str>) -> Result<Option<Outcome>> {
    match second_factor::check(app, conf, s, url)? {
        Step::Hold(h) => return Ok(Some(Outcome::Held(h))),
        Step::Refused(code) => return Ok(Some(Outcome::Refused(code, 401))),
        Step::Continue => {}
    }
    granted_or_held(app, conf, s, url)
}

/// The grant and the holds: what keeps a login whose factors passed back, if anything.
fn granted_or_held(
    app: &App,
    conf: &Conf,
    s: &Session,
    url: Option<&str>,
) -> Result<Option<Outcome>> {
    if let Some((code, status)) = grant::check(conf, s) {
        return Ok(Some(Outcome::Refused(code, status)));
    }
    Ok(holds::first(app, conf, s, url)?.map(Outcome::Held))
}
