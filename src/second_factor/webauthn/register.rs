//! Registering a WebAuthn device, LemonLDAP::NG 2.16's `2F/Register/WebAuthn.pm`: `start`
//! (its `registrationchallenge`) makes the creation options over a fresh challenge and keeps
//! them server-side in a registration record (the store's `pending` kind,
//! `sfRegisterTimeout` seconds, bound to the user), whose id is the `state_id` posted back;
//! `confirm` (its `registration`) takes that record (single use), verifies the browser's
//! answer (W3C WebAuthn §7.1, `protocol::verify_registration`) and adds the device with
//! LemonLDAP::NG's fields. A registration abandoned halfway leaves only its record, which
//! expires. The user handle (`_webAuthnUserHandle`) is made on the first registration.
use super::protocol::{
    self, device::Device as Record, options, Expected, Registered, RegistrationResponse, B64,
};
use super::{Settings, USER_HANDLE_KEY};
use crate::app::App;
use crate::config::{value_string, Conf};
use crate::error::Result;
use crate::second_factor::devices::{self, Device};
use crate::storage::{Kind, Session};
use base64::Engine;
use serde_json::{json, Value};

/// The `_type` of a registration record.
const RECORD_TYPE: &str = "webauthnregister";

/// A registration started: the record's id and the options for the browser.
pub struct Started {
    /// `state_id`, posted back with the answer.
    pub state_id: String,
    /// The creation options (`request`).
    pub request: Value,
}

/// Why a registration did not add a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// No such registration for this user, or expired (`PE82`).
    Expired,
    /// The answer is missing or does not verify (`webAuthnRegisterFailed`); the reason is
    /// for the log.
    Failed(String),
    /// The credential is registered already (`webauthnAlreadyRegistered`).
    Exists,
    /// The name has characters other than letters, digits, `_`, `-` and spaces (`badName`).
    BadName,
    /// `max2FDevices` reached (`maxNumberOf2FDevicesReached`).
    TooMany,
}

impl Refused {
    /// LemonLDAP::NG's message key for it (its JSON `error` and the page's translated text).
    pub fn key(&self) -> &'static str {
        match self {
            Refused::Expired => "PE82",
            Refused::Failed(_) => "webAuthnRegisterFailed",
            Refused::Exists => "webauthnAlreadyRegistered",
            Refused::BadName => "badName",
            Refused::TooMany => "maxNumberOf2FDevicesReached",
        }
    }
}

/// Starts a registration for the user `trace` whose session attributes are `attrs`.
pub fn start(app: &App, conf: &Conf, trace: &str, attrs: &Session, ttl: i64) -> Result<Started> {
    let settings = conf.area::<Settings>();
    let handle = user_handle(app, trace)?;
    let exclude: Vec<String> = devices::load(app, trace)?
        .iter()
        .filter_map(super::record)
        .map(|r| r.credential_id)
        .collect();
    let display = attrs
        .get(&settings.display_name_attr)
        .map(value_string)
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| trace.to_string());
    let user = options::User {
        name: trace,
        display_name: &display,
        handle: &handle,
    };
    let challenge = options::challenge();
    let uv = settings.user_verification;
    let request = options::creation(&settings.rp_name, &user, &challenge, uv, &exclude);
    let state_id = crate::util::random_hex(32);
    let mut rec = Session::new();
    rec.insert("_exp".into(), json!(crate::util::now() + ttl.max(1)));
    rec.insert("_type".into(), json!(RECORD_TYPE));
    rec.insert("user".into(), json!(trace));
    rec.insert("challenge".into(), json!(challenge));
    app.sessions(Kind::Pending)
        .put(Kind::Pending, &state_id, &rec)?;
    Ok(Started { state_id, request })
}

/// Confirms a registration: the answer `credential` to the record `state_id`, the device's
/// `name`. The device added, or why not.
pub fn confirm(
    app: &App,
    conf: &Conf,
    trace: &str,
    state_id: &str,
    credential: &str,
    name: &str,
) -> Result<std::result::Result<Device, Refused>> {
    let Some(challenge) = take_record(app, trace, state_id)? else {
        return Ok(Err(Refused::Expired));
    };
    let reg = match verified(conf, &challenge, credential) {
        Ok(reg) => reg,
        Err(refused) => return Ok(Err(refused)),
    };
    let sf = conf.area::<crate::second_factor::Settings>();
    let name = if name.trim().is_empty() {
        "MyWebAuthn"
    } else {
        name.trim()
    };
    let Some(name) = crate::second_factor::totp::register::checked_name(name, sf.max_name_len)
    else {
        return Ok(Err(Refused::BadName));
    };
    let record = Record {
        name,
        epoch: crate::util::now(),
        credential_id: B64.encode(&reg.credential_id),
        public_key: reg.public_key,
        sign_count: u64::from(reg.sign_count),
    };
    let Value::Object(fields) = record.to_value() else {
        return Ok(Err(Refused::Failed("record".into())));
    };
    let device = Device(fields);
    let id = record.credential_id;
    let added = devices::add_unless(app, trace, &device, sf.max_devices, |d| {
        super::record(d).is_some_and(|r| r.credential_id == id)
    })?
    .map_err(|why| match why {
        devices::NotAdded::Exists => Refused::Exists,
        devices::NotAdded::TooMany => Refused::TooMany,
    });
    Ok(added.map(|()| device))
}

/// §7.1 on the answer `credential` to the registration whose challenge was `challenge`.
fn verified(
    conf: &Conf,
    challenge: &str,
    credential: &str,
) -> std::result::Result<Registered, Refused> {
    let settings = conf.area::<Settings>();
    let rp = settings
        .rp()
        .ok_or_else(|| Refused::Failed("the portal URL has no host".into()))?;
    let exp = Expected {
        rp,
        challenge,
        user_verification: settings.user_verification,
    };
    RegistrationResponse::from_json(credential)
        .and_then(|resp| protocol::verify_registration(&exp, &resp))
        .map_err(|why| Refused::Failed(why.to_string()))
}

/// The user's handle, made and kept on first use.
fn user_handle(app: &App, trace: &str) -> Result<String> {
    if let Some(h) = super::user_handle(app, trace)? {
        return Ok(h);
    }
    let handle = options::user_handle();
    let (pid, mut ps) = crate::sso::persistent(app, trace)?;
    ps.insert(USER_HANDLE_KEY.into(), json!(handle));
    app.sessions(Kind::Persistent)
        .put(Kind::Persistent, &pid, &ps)?;
    Ok(handle)
}

/// Takes the user's live registration record (single use); its challenge.
fn take_record(app: &App, trace: &str, state_id: &str) -> Result<Option<String>> {
    if !crate::sso::is_session_id(state_id) {
        return Ok(None);
    }
    let Some(rec) = app.sessions(Kind::Pending).take(Kind::Pending, state_id)? else {
        return Ok(None);
    };
    let live = rec.get("_exp").and_then(crate::config::as_i64).unwrap_or(0) >= crate::util::now();
    let ours = rec.get("_type").and_then(Value::as_str) == Some(RECORD_TYPE)
        && rec.get("user").and_then(Value::as_str) == Some(trace);
    Ok((live && ours)
        .then(|| {
            rec.get("challenge")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .flatten())
}
