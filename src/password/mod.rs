//! A connected user changes their password, as LemonLDAP::NG 2.16's password modules do it
//! (`Password/Base.pm`, `_modifyPassword`), on the user table of `passwordDB = DBI`
//! (`directory::dbi`): the new password twice, the old one when `portalRequireOldPassword`
//! holds for the user, the policy (`policy`) when `passwordPolicyActivation` holds. Limette
//! adds two things: the old password is checked under the brute-force lock, a wrong one
//! counted as a failed login (`login::authenticate::judge`), and a changed password ends the
//! user's other SSO sessions.
//!
//! `Settings` is the area's typed configuration; `change` decides, the portal's handler
//! (`portal::password`) encodes. With `passwordDB = Null` the steps run as LemonLDAP::NG's
//! `Password::Null` runs them and end in its error 20 (no password backend); with any other
//! module (Demo, REST) there is no password module: nothing is changed, as LemonLDAP::NG
//! without one. No HTTP here.
pub mod policy;

use crate::app::App;
use crate::config::{value_string, AreaSettings, Conf};
use crate::error::Result;
use crate::login::authenticate::{self, Judged};
use crate::rules::{Env, Rule};
use crate::sso::SsoSession;
use crate::storage::{Kind, Session};
use policy::{Broken, Policy};
use serde_json::{json, Map, Value};

/// Where passwords are changed (`passwordDB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `DBI`: the user table.
    Dbi,
    /// `Null`: LemonLDAP::NG's module that changes nothing (error 20).
    Null,
    /// Any other (Demo, REST, unset): no password module; the menu has no password tab.
    None,
}

/// The password change's settings, parsed when the configuration is built.
#[derive(Debug)]
pub struct Settings {
    /// `passwordDB`.
    pub backend: Backend,
    /// `portalRequireOldPassword` (default 1), compiled.
    pub require_old: Rule,
    /// `passwordPolicyActivation` (default 1), compiled.
    pub activation: Rule,
    /// The policy's rules.
    pub policy: Policy,
}

impl AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> std::result::Result<Settings, String> {
        let backend = match raw.get("passwordDB").map(value_string).as_deref() {
            Some("DBI") => Backend::Dbi,
            Some("Null") => Backend::Null,
            _ => Backend::None,
        };
        Ok(Settings {
            backend,
            require_old: bool_or_expr(raw, "portalRequireOldPassword")?,
            activation: bool_or_expr(raw, "passwordPolicyActivation")?,
            policy: Policy::from_conf(raw)?,
        })
    }
}

/// A `boolOrExpr` key whose LemonLDAP::NG default is 1: absent is true, empty or `0` false,
/// anything else a rule that must compile (the configuration is refused otherwise, naming it).
fn bool_or_expr(raw: &Map<String, Value>, key: &str) -> std::result::Result<Rule, String> {
    let text = raw.get(key).map_or_else(|| "1".into(), value_string);
    match text.trim() {
        "" | "0" => Ok(Rule::deny()),
        "1" => Ok(Rule::accept()),
        t => Rule::parse(t).map_err(|e| format!("{key} = {t} does not parse: {e}")),
    }
}

/// What the user sent: the form's `newpassword`, `confirmpassword` and `oldpassword`.
#[derive(Debug, Clone, Copy)]
pub struct Form<'a> {
    /// `newpassword`.
    pub new: &'a str,
    /// `confirmpassword`.
    pub confirm: &'a str,
    /// `oldpassword`, when sent and not empty.
    pub old: Option<&'a str>,
}

/// Why a change was refused: each with LemonLDAP::NG's portal error (`code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// PE_PASSWORD_MISMATCH (34): the two new passwords differ.
    Mismatch,
    /// PE_PP_MUST_SUPPLY_OLD_PASSWORD (27): the old password is required and missing.
    OldMissing,
    /// PE_BADOLDPASSWORD (39): the old password is wrong.
    BadOld,
    /// The policy: its rule and error.
    Policy(Broken),
    /// PE_NO_PASSWORD_BE (20): `passwordDB = Null`.
    NoBackend,
    /// PE_ERROR (24): the user is no longer in the table.
    Gone,
}

impl Refusal {
    /// LemonLDAP::NG's portal error.
    pub fn code(self) -> u16 {
        match self {
            Refusal::Mismatch => 34,
            Refusal::OldMissing => 27,
            Refusal::BadOld => 39,
            Refusal::Policy(b) => b.code(),
            Refusal::NoBackend => 20,
            Refusal::Gone => 24,
        }
    }
}

/// How a change ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// PE_PASSWORD_OK (35): changed; this many other SSO sessions of the user were ended
    /// (`None`: the session store cannot list them).
    Changed(Option<usize>),
    /// Refused, nothing changed.
    Refused(Refusal),
    /// Refused by the brute-force lock for this many seconds (PE_WAIT, 86).
    Locked(i64),
    /// No password module (`Backend::None`), or no new password: nothing to do (PE_OK).
    Nothing,
}

/// What the form shows before the user types: whether the old password is asked, and the
/// policy when it applies to this user.
pub fn form_of(conf: &Conf, s: &Session, env: &Env) -> (bool, Option<Policy>) {
    let st = conf.area::<Settings>();
    let policy = st.activation.eval_with(s, env).then(|| st.policy.clone());
    (st.require_old.eval_with(s, env), policy)
}

/// `_modifyPassword`: the checks in LemonLDAP::NG's order, then the change, then the user's
/// other sessions ended. `client` is the request's address (the failed attempt's history).
pub fn change(
    app: &App,
    conf: &Conf,
    s: &SsoSession,
    env: &Env,
    client: &str,
    form: Form,
) -> Result<Outcome> {
    let st = conf.area::<Settings>();
    if st.backend == Backend::None || form.new.is_empty() {
        return Ok(Outcome::Nothing);
    }
    if form.new != form.confirm {
        return Ok(Outcome::Refused(Refusal::Mismatch));
    }
    let login = s.get("_user").map(value_string).unwrap_or_default();
    if st.require_old.eval_with(s, env) {
        if let Some(stop) = check_old(app, conf, s, client, &login, form.old)? {
            return Ok(stop);
        }
    }
    if st.activation.eval_with(s, env) {
        if let Err(broken) = st.policy.check(form.new) {
            return Ok(Outcome::Refused(Refusal::Policy(broken)));
        }
    }
    if st.backend == Backend::Null {
        return Ok(Outcome::Refused(Refusal::NoBackend));
    }
    if !users(conf)?.set_password(&login, form.new)? {
        return Ok(Outcome::Refused(Refusal::Gone));
    }
    let ended = end_sessions(app, &login, Some(s.id()));
    let user: String = s
        .trace()
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect();
    let count = ended.map_or_else(|| "unknown".into(), |n| n.to_string());
    let fields = [
        ("user", user.as_str()),
        ("address", client),
        ("ended", count.as_str()),
    ];
    crate::log::audit("password_changed", &fields);
    Ok(Outcome::Changed(ended))
}

/// The old password, under the brute-force lock (a wrong one is a failed login of the
/// user's history): `None` to go on, else how the change stops.
fn check_old(
    app: &App,
    conf: &Conf,
    s: &SsoSession,
    client: &str,
    login: &str,
    old: Option<&str>,
) -> Result<Option<Outcome>> {
    let Some(old) = old else {
        return Ok(Some(Outcome::Refused(Refusal::OldMissing)));
    };
    let right = match conf.area::<Settings>().backend {
        Backend::Dbi => users(conf)?.password_ok(login, old)?,
        _ => true, // Password::Null's confirm
    };
    let mut attempt = (**s).clone();
    attempt.insert("ipAddr".into(), json!(client));
    Ok(
        match authenticate::judge(app, conf, client, &attempt, right)? {
            Judged::Pass => None,
            Judged::Refused(..) => Some(Outcome::Refused(Refusal::BadOld)),
            Judged::Locked(seconds) => Some(Outcome::Locked(seconds)),
        },
    )
}

/// The user table of the configuration.
fn users(conf: &Conf) -> Result<crate::directory::dbi::Users> {
    crate::directory::dbi::Users::open(&conf.area::<crate::directory::dbi::Settings>())
}

/// Ends every SSO session of `login` (`_user`) but `except`, their relying parties told as
/// at a logout: after a password change, a reset or a lock. `None` when the session store
/// cannot list its sessions (logged).
pub fn end_sessions(app: &App, login: &str, except: Option<&str>) -> Option<usize> {
    let store = app.sessions(Kind::Global);
    let ids = match store.ids(Kind::Global) {
        Ok(ids) => ids,
        Err(e) => {
            crate::log::warn(&format!(
                "cannot list the sessions of a user to end them: {e}"
            ));
            return None;
        }
    };
    let mut ended = 0;
    for id in ids.iter().filter(|id| Some(id.as_str()) != except) {
        let theirs = match store.get(Kind::Global, id) {
            Ok(Some(o)) => o.get("_user").map(value_string).as_deref() == Some(login),
            _ => false,
        };
        match theirs.then(|| crate::sso::end(app, id)) {
            Some(Ok(true)) => ended += 1,
            Some(Err(e)) => crate::log::warn(&format!("cannot end a session of a user: {e}")),
            _ => {}
        }
    }
    Some(ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(v: Value) -> std::result::Result<Settings, String> {
        Settings::from_conf(v.as_object().unwrap())
    }

    #[test]
    fn the_keys_and_their_defaults() {
        let s = settings(json!({})).unwrap();
        assert_eq!(s.backend, Backend::None);
        let user = json!({"_user": "bob"}).as_object().cloned().unwrap();
        let env = Env::empty();
        assert!(s.require_old.eval_with(&user, env), "default 1");
        assert!(s.activation.eval_with(&user, env), "default 1");
        let s = settings(json!({
            "passwordDB": "DBI", "portalRequireOldPassword": "0",
            "passwordPolicyActivation": "$_user eq \"alice\""
        }))
        .unwrap();
        assert_eq!(s.backend, Backend::Dbi);
        assert!(!s.require_old.eval_with(&user, env));
        assert!(!s.activation.eval_with(&user, env));
        assert_eq!(
            settings(json!({"passwordDB": "Null"})).unwrap().backend,
            Backend::Null
        );
        assert_eq!(
            settings(json!({"passwordDB": "Demo"})).unwrap().backend,
            Backend::None
        );
        assert!(!settings(json!({"portalRequireOldPassword": ""}))
            .unwrap()
            .require_old
            .eval_with(&user, env));
    }

    #[test]
    fn a_rule_that_does_not_parse_refuses_the_configuration() {
        let e = settings(json!({"portalRequireOldPassword": "$uid eq"})).unwrap_err();
        assert!(
            e.starts_with("portalRequireOldPassword = $uid eq does not parse"),
            "{e}"
        );
        let e = settings(json!({"passwordPolicyMinDigit": "x"})).unwrap_err();
        assert_eq!(e, "passwordPolicyMinDigit = x is not an integer");
    }

    #[test]
    fn each_refusal_has_lemonldap_ng_s_error() {
        let codes: Vec<u16> = [
            Refusal::Mismatch,
            Refusal::OldMissing,
            Refusal::BadOld,
            Refusal::Policy(Broken::Size(8)),
            Refusal::NoBackend,
            Refusal::Gone,
        ]
        .iter()
        .map(|r| r.code())
        .collect();
        assert_eq!(codes, [34, 27, 39, 29, 20, 24]);
    }
}
