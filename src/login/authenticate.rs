//! Authenticate, the pipeline's second step: the password checked and the user fetched from
//! the directory module (LemonLDAP::NG's `authenticate` and `getUser`), then the brute-force
//! lock judged on the session built for the user (it counts in the user's login history, which
//! the built session names). Failures are audited; it stores nothing but the history.
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, PortalCode, Result};
use crate::sso::history::{self, Verdict};
use crate::storage::Session;
use serde_json::{Map, Value};

/// What the directory said of a name and password.
pub enum Known {
    /// The user exists: whether the password is right, and the user's attributes.
    User(bool, Map<String, Value>),
    /// Refused with this portal error and status (no such user, a directory failure).
    Refused(PortalCode, u16),
}

/// Asks the directory; an unknown user is refused here (LemonLDAP::NG stops at `getUser`:
/// no history to count in).
pub fn directory(conf: &Conf, client: &str, user: &str, password: &str) -> Result<Known> {
    let dir = crate::directory::for_conf(conf);
    let (right, attrs) = match check_credentials(conf, user, password) {
        Ok(v) => v,
        Err(Error::Portal { code, status }) => return Ok(Known::Refused(code, status)),
        Err(e) => return Err(e),
    };
    let Some(attrs) = attrs else {
        audit_login(false, user, client, dir.name());
        return Ok(Known::Refused(PortalCode::BadCredentials, 401));
    };
    Ok(Known::User(right, attrs))
}

/// What the brute-force lock said of a built session.
pub enum Judged {
    /// Let through.
    Pass,
    /// Refused with this portal error and status.
    Refused(PortalCode, u16),
    /// Refused by the lock for this many seconds.
    Locked(i64),
}

/// The brute-force lock and the failed login's count (LemonLDAP::NG's `BruteForceProtection`).
/// `user` names the login in the audit when the session has no `_whatToTrace`.
pub fn judge(app: &App, conf: &Conf, client: &str, s: &Session, right: bool) -> Result<Judged> {
    let module = crate::directory::for_conf(conf).name();
    let trace = s
        .get("_whatToTrace")
        .map(crate::config::value_string)
        .unwrap_or_else(|| user_of(s));
    let settings = conf.area::<history::Settings>();
    match history::judge(app, &settings, s, right)? {
        Verdict::Pass => Ok(Judged::Pass),
        Verdict::Failed(_) => {
            audit_login(false, &trace, client, module);
            Ok(Judged::Refused(PortalCode::BadCredentials, 401))
        }
        Verdict::Locked(w) => {
            let secs = w.seconds.to_string();
            let user = sanitize(&trace);
            let fields = [
                ("user", user.as_str()),
                ("address", client),
                ("seconds", &secs),
            ];
            crate::log::audit("lock", &fields);
            Ok(Judged::Locked(w.seconds))
        }
    }
}

/// Checks the password and fetches the user: whether the password is right, and the user's
/// attributes (`None`: no such user). A directory failure is portal error 24 (logged); a
/// directory out of reach (the DBI database stopped) is `Error::Unavailable`, answered 503
/// with `Retry-After`: never a wrong password.
fn check_credentials(
    conf: &Conf,
    user: &str,
    password: &str,
) -> Result<(bool, Option<Map<String, Value>>)> {
    let dir = crate::directory::for_conf(conf);
    let fail = |e: Error| {
        crate::log::error(&format!("directory failure for a login: {e}"));
        match e {
            Error::Unavailable(_) => e,
            _ => Error::portal(PortalCode::Error, 401),
        }
    };
    let right = dir.authenticate(user, password).map_err(fail)?;
    let attrs = dir.user_info(user).map_err(fail)?;
    if !right {
        crate::log::notice(&format!("bad credentials for {}", sanitize(user)));
    }
    Ok((right && attrs.is_some(), attrs))
}

/// The audit line of a login, and its count: the user, the client's address, the module.
pub(super) fn audit_login(ok: bool, user: &str, addr: &str, module: &str) {
    crate::metrics::login(ok);
    let user = sanitize(user);
    let fields = [
        ("user", user.as_str()),
        ("address", addr),
        ("module", module),
    ];
    crate::log::audit(if ok { "login" } else { "login_failed" }, &fields);
}

/// The login name a session was built for.
fn user_of(s: &Session) -> String {
    s.get("_user")
        .map(crate::config::value_string)
        .unwrap_or_default()
}

/// A user name fit for a log line.
pub(super) fn sanitize(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(64).collect()
}
