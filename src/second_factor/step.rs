//! The engine: what LemonLDAP::NG 2.16's `2F/Engines/Default.pm` does in `run`, `_choice`
//! and `Main/SecondFactor.pm::_verify`. After the first factor ([`ask`]): expired devices
//! (`<prefix>2fTTL`) are removed, the factors whose activation rule holds for the user are
//! found; one is asked directly, several give a choice, none with `sfRequired` sends the user
//! to registration, none without it lets the login through. The answer ([`check`]) takes the
//! pending login (single use), refuses a locked user before any check, counts a wrong answer
//! in the brute-force lock, and on success sets the session's `_2f` and, when the factor has
//! one, its `authenticationLevel`. It decides; the portal renders.
use super::devices::{self, Device};
use super::factor::{rule_attrs, Factor, Form, Verdict};
use super::list::by_prefix;
use super::pending::{self, Pending, Purpose};
use super::settings::{Activation, Module, Settings};
use crate::app::App;
use crate::config::Conf;
use crate::error::{PortalCode, Result};
use crate::sso::history::{self, Verdict as Lock};
use crate::storage::Session;
use serde_json::{json, Value};

/// The session key naming the factor that passed (LemonLDAP::NG's `_2f`: the prefix).
pub const PASSED_KEY: &str = "_2f";

/// What the engine asks of a login.
pub enum Asked {
    /// One factor: its check page, with the factor's challenge data.
    Check(Pending, &'static dyn Factor, Option<Value>),
    /// Several: the user chooses (`/2fchoice`).
    Choice(Pending, Vec<&'static dyn Factor>),
    /// None usable and `sfRequired`: the user registers one first (`/2fregisters`).
    Register(Pending),
}

/// Why `ask` is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// A login, after its first factor.
    Login,
    /// A live session whose level is too low for a service (`sfOnlyUpgrade`, an RP's
    /// `AuthnLevel`): no factor for the user is portal error 103.
    Upgrade,
}

/// The engine's answer after the first factor.
pub enum Ask {
    /// Nothing to ask: the login goes on.
    Nothing,
    /// The login waits for the user.
    Asked(Box<Asked>),
    /// Refused with this portal error (an upgrade with no factor to give).
    Refused(PortalCode),
}

/// The second-factor step of a login (or of an upgrade) for the session `s`.
pub fn ask(app: &App, conf: &Conf, s: &Session, url: Option<&str>, why: Why) -> Result<Ask> {
    let settings = conf.area::<Settings>();
    if !settings.any() || (settings.only_upgrade && why == Why::Login) {
        return Ok(match why {
            Why::Upgrade if !settings.any() => Ask::Refused(PortalCode::NoSecondFactors),
            _ => Ask::Nothing,
        });
    }
    let trace = trace(s);
    let list = super::expiry::expire(app, &settings, s, &trace)?;
    let found = authorized(conf, &settings, s, &list);
    if found.is_empty() {
        let raw = raw_devices(&list);
        if settings
            .required
            .as_ref()
            .is_some_and(|r| r.eval(&rule_attrs(s, raw.as_ref())))
        {
            let ttl = settings.register_timeout;
            let p = pending::create(app, Purpose::Register, s.clone(), url, ttl)?;
            return Ok(Ask::Asked(Box::new(Asked::Register(p))));
        }
        return Ok(match why {
            Why::Upgrade => Ask::Refused(PortalCode::NoSecondFactors),
            Why::Login => Ask::Nothing,
        });
    }
    crate::log::info(&format!("second factor required for {}", shown(&trace)));
    let mut p = pending::create(app, Purpose::Check, s.clone(), url, settings.login_timeout)?;
    if let [only] = found.as_slice() {
        let data = only.challenge(app, conf, &mut p)?;
        pending::save(app, &p)?;
        return Ok(Ask::Asked(Box::new(Asked::Check(p, *only, data))));
    }
    Ok(Ask::Asked(Box::new(Asked::Choice(p, found))))
}

/// A factor chosen: the pending login, the factor, its challenge data.
pub type Chosen = (Pending, &'static dyn Factor, Option<Value>);

/// `/2fchoice`: the factor `prefix` chosen for the pending login `token`: its check page's
/// data, the pending login left in place. `None`: no such pending login, or a factor not
/// offered to this user.
pub fn choose(app: &App, conf: &Conf, token: &str, prefix: &str) -> Result<Option<Chosen>> {
    let Some(mut p) = pending::get(app, token, Purpose::Check)? else {
        return Ok(None);
    };
    let settings = conf.area::<Settings>();
    let list = devices::load(app, &trace(&p.session))?;
    let found = authorized(conf, &settings, &p.session, &list);
    let Some(f) = found.into_iter().find(|f| f.prefix() == prefix) else {
        return Ok(None);
    };
    let data = f.challenge(app, conf, &mut p)?;
    pending::save(app, &p)?;
    Ok(Some((p, f, data)))
}

/// What came of an answer to a factor's check.
pub enum Checked {
    /// Passed: the pending login, its session marked (`_2f`, level); the login goes on.
    Passed(Pending),
    /// Refused with this portal error and status; the pending login is gone.
    Refused(PortalCode, u16),
    /// The brute-force lock refuses for this many seconds.
    Locked(i64),
}

/// `/<prefix>2fcheck`: checks the answer `form` for the pending login `token`.
pub fn check(app: &App, conf: &Conf, prefix: &str, token: &str, form: Form) -> Result<Checked> {
    let settings = conf.area::<Settings>();
    let (Some(f), Some(module)) = (by_prefix(prefix), settings.module(prefix)) else {
        return Ok(Checked::Refused(PortalCode::Error, 400));
    };
    let Some(mut p) = pending::take(app, token, Purpose::Check)? else {
        return Ok(Checked::Refused(PortalCode::TokenExpired, 401));
    };
    let lock = conf.area::<history::Settings>();
    if let Lock::Locked(w) = history::judge(app, &lock, &p.session, true)? {
        return Ok(Checked::Locked(w.seconds));
    }
    let trace = trace(&p.session);
    let usable = usable(conf, f, &devices::load(app, &trace)?);
    let verdict = if usable.is_empty() {
        Verdict::Wrong
    } else {
        f.verify(app, conf, &p, &usable, form)?
    };
    let user = shown(&trace);
    match verdict {
        Verdict::Pass(device) => {
            let fields = [
                ("user", user.as_str()),
                ("factor", prefix),
                ("device", device.as_str()),
            ];
            crate::log::audit("second_factor", &fields);
            passed(&mut p.session, f, module);
            Ok(Checked::Passed(p))
        }
        Verdict::Empty => Ok(Checked::Refused(PortalCode::FormEmpty, 401)),
        Verdict::Wrong => {
            crate::log::audit(
                "second_factor_failed",
                &[("user", user.as_str()), ("factor", prefix)],
            );
            Ok(match history::judge(app, &lock, &p.session, false)? {
                Lock::Locked(w) => Checked::Locked(w.seconds),
                _ => Checked::Refused(PortalCode::BadOtp, 401),
            })
        }
    }
}

/// Marks a session whose factor `f` passed (a check, or a registration under
/// `sfRequired`): `_2f` is its prefix, and its level the factor's `AuthnLevel` if it has
/// one. (`crate::login::after_second_factor` then computes macros and groups again.)
pub fn passed(s: &mut Session, f: &dyn Factor, module: &Module) {
    s.insert(PASSED_KEY.into(), json!(f.prefix()));
    if let Some(level) = module.authn_level {
        s.insert("authenticationLevel".into(), json!(level));
    }
}

/// The `amr` values (RFC 8176) of a session: `pwd`, and once a factor passed its own values
/// and `mfa`.
pub fn amr(s: &Session) -> Vec<&'static str> {
    let mut out = vec!["pwd"];
    let factor = s
        .get(PASSED_KEY)
        .and_then(Value::as_str)
        .and_then(by_prefix);
    if let Some(f) = factor {
        out.extend_from_slice(f.amr());
        out.push("mfa");
    }
    out
}

/// The factors whose activation holds for the session, given its devices.
pub fn authorized(
    conf: &Conf,
    settings: &Settings,
    s: &Session,
    list: &[Device],
) -> Vec<&'static dyn Factor> {
    let raw = raw_devices(list);
    let attrs = rule_attrs(s, raw.as_ref());
    let mut out = Vec::new();
    for m in &settings.modules {
        let Some(f) = by_prefix(m.prefix) else {
            continue;
        };
        let on = match &m.activation {
            Activation::HasDevice => !usable(conf, f, list).is_empty(),
            // A rule that holds asks the factor even without a device (which then fails:
            // LemonLDAP::NG does the same; never a bypass).
            Activation::Rule(r) => r.eval(&attrs),
        };
        if on {
            out.push(f);
        }
    }
    out
}

/// The devices of the factor's type that it can use.
pub fn usable(conf: &Conf, f: &dyn Factor, list: &[Device]) -> Vec<Device> {
    list.iter()
        .filter(|d| d.kind().eq_ignore_ascii_case(f.kind()) && f.usable(conf, d))
        .cloned()
        .collect()
}

/// The devices as `_2fDevices` holds them, for rules (`None`: none).
fn raw_devices(list: &[Device]) -> Option<Value> {
    (!list.is_empty()).then(|| devices::encode(list))
}

pub use super::factor::trace;

/// A user name fit for a log line.
fn shown(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(64).collect()
}
