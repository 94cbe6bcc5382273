//! The handler's decision for one request, in LemonLDAP::NG's order (`Handler::Main::Run::run`
//! and `grant`): maintenance first; `skip` answers without looking at the cookie; then the
//! session, asked lazily; without one `unprotect` opens and anything else sends to the login;
//! with one the level (`(?#AuthnLevel=N)`, then `vhostAuthnLevel`), then the rule decide, and a
//! granted request gets `whatToTrace`, `customToTrace` and the `exportedHeaders` evaluated on
//! the session. A value holding a control character (CR, LF, ...) is refused: the request is
//! denied rather than a header passed on. Plain values in, a [`Verdict`] out: no HTTP here.
use super::settings::Settings;
use super::vhost::{Access, Vhost};
use crate::error::Result;
use crate::rules::Env;
use crate::sso::SsoSession;
use std::sync::Arc;

/// What the web server asks about.
pub struct Ask<'a> {
    /// The `Host` the client sent (with its port, if any).
    pub host: &'a str,
    /// The access-control URI: path and query, as the web server routed on it.
    pub uri: &'a str,
    /// The request's variables for `$ENV{...}`.
    pub env: &'a Env,
}

/// The decision.
#[derive(Debug)]
pub enum Verdict {
    /// A session may go on: what the application is told.
    Grant(Granted),
    /// No session needed (`skip`, or `unprotect` without one): the exported headers' names,
    /// which the web server must not pass from the client.
    Open(Vec<String>),
    /// No live session: to the portal's login, back here after.
    Login,
    /// A logout rule: the session ends, then the portal, then `to` (the portal's own page
    /// when `None`).
    Logout(Arc<SsoSession>, Option<String>),
    /// Denied; the reason is for the log.
    Forbidden(String),
    /// The virtual host (or every one) is in maintenance.
    Maintenance,
}

/// What a granted request tells the application.
#[derive(Debug, PartialEq)]
pub struct Granted {
    /// The session's `whatToTrace` attribute (`Lm-Remote-User`).
    pub user: String,
    /// Its `customToTrace` attribute, when set and not empty (`Lm-Remote-Custom`).
    pub custom: Option<String>,
    /// The exported headers, sorted by name.
    pub headers: Vec<(String, String)>,
}

/// Decides for `ask`; `session` gives the live session the request's cookie names, and is
/// called at most once, only when the rules need it. `epoch` is now (`date()`).
pub fn decide(
    s: &Settings,
    ask: &Ask,
    session: impl FnOnce() -> Result<Option<Arc<SsoSession>>>,
    epoch: i64,
) -> Result<Verdict> {
    let name = s.resolve(ask.host);
    let vhost = s.vhosts.get(&name);
    if vhost
        .and_then(|v| v.options.maintenance)
        .unwrap_or(s.maintenance)
    {
        return Ok(Verdict::Maintenance);
    }
    let Some(v) = vhost else {
        // As LemonLDAP::NG: the user signs in first, then is refused.
        return Ok(match session()? {
            Some(_) => Verdict::Forbidden(format!("{name} is no virtual host of locationRules")),
            None => Verdict::Login,
        });
    };
    if let Some(why) = v.broken.first() {
        return Ok(Verdict::Forbidden(format!(
            "virtual host {name} denies every request: {why}"
        )));
    }
    let (access, location_level) = v.route(ask.uri);
    if matches!(access, Access::Skip) {
        return Ok(Verdict::Open(names(v)));
    }
    let Some(session) = session()? else {
        return Ok(match access {
            Access::Unprotect => Verdict::Open(names(v)),
            _ => Verdict::Login,
        });
    };
    let need = location_level.or(v.options.authn_level);
    if let Some(why) = under_level(&session, need) {
        return Ok(Verdict::Forbidden(format!("{why} {name}{} asks", ask.uri)));
    }
    let allowed = match access {
        Access::Rule(r) => r.eval_in(&session, ask.env, epoch),
        Access::Unprotect | Access::Skip => true,
        Access::Logout(to) => return Ok(Verdict::Logout(session, to.clone())),
    };
    if !allowed {
        return Ok(Verdict::Forbidden(format!(
            "the rule of {name}{} denies",
            ask.uri
        )));
    }
    Ok(granted(s, v, &session, ask.env, epoch))
}

/// The answer to a granted request, or a refusal when a value would break its header.
fn granted(s: &Settings, v: &Vhost, session: &SsoSession, env: &Env, epoch: i64) -> Verdict {
    let attr = |k: &str| session.get(k).map(crate::config::value_string);
    let user = attr(&s.what_to_trace).unwrap_or_default();
    let custom = s
        .custom_to_trace
        .as_deref()
        .and_then(attr)
        .filter(|c| !c.is_empty());
    let mut headers = Vec::with_capacity(v.headers.len());
    for (name, expr) in &v.headers {
        let value = expr
            .as_ref()
            .and_then(|e| e.value_at(session, env, epoch))
            .unwrap_or_default();
        headers.push((name.clone(), value));
    }
    let shown = [("Lm-Remote-User", &user)].into_iter();
    let custom_shown = custom.iter().map(|c| ("Lm-Remote-Custom", c));
    let exported = headers.iter().map(|(n, v)| (n.as_str(), v));
    for (name, value) in shown.chain(custom_shown).chain(exported) {
        if value.chars().any(char::is_control) {
            return Verdict::Forbidden(format!(
                "the value of header {name} holds a control character: refused"
            ));
        }
    }
    Verdict::Grant(Granted {
        user,
        custom,
        headers,
    })
}

/// Why the session's `authenticationLevel` is under the level asked (none asked: 0 or unset).
fn under_level(session: &SsoSession, need: Option<i64>) -> Option<String> {
    let need = need.filter(|n| *n != 0)?;
    let have = session
        .get("authenticationLevel")
        .and_then(crate::config::as_i64)
        .unwrap_or(0);
    (have < need).then(|| format!("authentication level {have} under the {need}"))
}

/// The exported headers' names of a virtual host.
fn names(v: &Vhost) -> Vec<String> {
    v.headers.iter().map(|(n, _)| n.clone()).collect()
}

#[cfg(test)]
mod tests;
