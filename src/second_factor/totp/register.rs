//! Registering a TOTP device, LemonLDAP::NG 2.16's `2F/Register/TOTP.pm`: `start` (its
//! `getkey`) makes a secret and keeps it server-side in a registration record (the store's
//! `pending` kind, `sfRegisterTimeout` seconds, bound to the user), whose id is the form's
//! token: the secret a client posts back is never trusted. `confirm` (its `verify`) checks a
//! code of that secret and the device's name, then adds the device (`_secret` stored as
//! `totp2fEncryptSecret` says). One TOTP device per user, as LemonLDAP::NG has it. A
//! registration abandoned halfway leaves nothing but its record, which expires.
use super::{code, first_use, storable, Settings, KIND};
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::second_factor::devices::{self, Device};
use crate::storage::{Kind, Session};
use serde_json::{json, Map, Value};

/// A registration started: what the page shows.
pub struct Started {
    /// The record's id, posted back with the code.
    pub token: String,
    /// The base32 secret (lower case, as stored).
    pub secret: String,
    /// The issuer shown in the authenticator (`totp2fIssuer`, else the portal's host).
    pub issuer: String,
    /// The `otpauth://` URI the QR code holds.
    pub uri: String,
}

/// Why a confirmation did not register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// No such registration for this user, or expired (LemonLDAP::NG's `PE82`).
    Expired,
    /// No code posted (`missingCode`).
    MissingCode,
    /// The code is not the secret's now (`badCode`).
    BadCode,
    /// The name has characters other than letters, digits, `_`, `-` and spaces (`badName`).
    BadName,
    /// The user has a TOTP device already (`totpExistingKey`).
    Exists,
    /// `max2FDevices` reached (`maxNumberOf2FDevicesReached`).
    TooMany,
}

impl Refused {
    /// LemonLDAP::NG's message key for it (its JSON `error` and the page's translated text).
    pub fn key(self) -> &'static str {
        match self {
            Refused::Expired => "PE82",
            Refused::MissingCode => "missingCode",
            Refused::BadCode => "badCode",
            Refused::BadName => "badName",
            Refused::Exists => "totpExistingKey",
            Refused::TooMany => "maxNumberOf2FDevicesReached",
        }
    }
}

/// Starts a registration for the user `trace`; `Err(Exists)` when a device is there already.
pub fn start(
    app: &App,
    conf: &Conf,
    trace: &str,
    ttl: i64,
) -> Result<std::result::Result<Started, Refused>> {
    let list = devices::load(app, trace)?;
    if list.iter().any(|d| d.kind().eq_ignore_ascii_case(KIND)) {
        return Ok(Err(Refused::Exists));
    }
    let secret = code::base32_encode(&crate::util::random_bytes(20));
    let token = crate::util::random_hex(32);
    let mut rec = Session::new();
    rec.insert("_exp".into(), json!(crate::util::now() + ttl.max(1)));
    rec.insert("_type".into(), json!("totpregister"));
    rec.insert("_totp2fSecret".into(), json!(secret));
    rec.insert("user".into(), json!(trace));
    app.sessions(Kind::Pending)
        .put(Kind::Pending, &token, &rec)?;
    let settings = conf.area::<Settings>();
    let issuer = settings
        .issuer
        .clone()
        .unwrap_or_else(|| host_of(&conf.portal));
    let uri = uri(&issuer, trace, &secret, &settings);
    Ok(Ok(Started {
        token,
        secret,
        issuer,
        uri,
    }))
}

/// Confirms a registration with a code; the device added.
pub fn confirm(
    app: &App,
    conf: &Conf,
    trace: &str,
    token: &str,
    code_text: &str,
    name: &str,
) -> Result<std::result::Result<Device, Refused>> {
    let Some(secret) = secret_of_record(app, trace, token)? else {
        return Ok(Err(Refused::Expired));
    };
    let code_text = code_text.trim();
    if code_text.is_empty() {
        return Ok(Err(Refused::MissingCode));
    }
    let sf = conf.area::<crate::second_factor::Settings>();
    let Some(name) = checked_name(name, sf.max_name_len) else {
        return Ok(Err(Refused::BadName));
    };
    let settings = conf.area::<Settings>();
    let key = code::base32_decode(&secret).unwrap_or_default();
    let now = crate::util::now();
    let (i, r, d) = (settings.interval, settings.range, settings.digits);
    let Some(step) = code::matching_step(&key, code_text, now, i, r, d) else {
        return Ok(Err(Refused::BadCode));
    };
    if !first_use(app, conf, &settings, trace, step)? {
        return Ok(Err(Refused::BadCode));
    }
    let mut fields = Map::new();
    fields.insert("_secret".into(), json!(storable(&settings, conf, &secret)));
    let device = Device::new(KIND, &name, now, fields);
    let added = devices::add_unless(app, trace, &device, sf.max_devices, |d| {
        d.kind().eq_ignore_ascii_case(KIND)
    })?
    .map_err(|why| match why {
        devices::NotAdded::Exists => Refused::Exists,
        devices::NotAdded::TooMany => Refused::TooMany,
    });
    if added.is_ok() {
        app.sessions(Kind::Pending).delete(Kind::Pending, token)?;
    }
    Ok(added.map(|()| device))
}

/// The secret of the user's live registration record.
fn secret_of_record(app: &App, trace: &str, token: &str) -> Result<Option<String>> {
    if !crate::sso::is_session_id(token) {
        return Ok(None);
    }
    let Some(rec) = app.sessions(Kind::Pending).get(Kind::Pending, token)? else {
        return Ok(None);
    };
    let live = rec.get("_exp").and_then(crate::config::as_i64).unwrap_or(0) >= crate::util::now();
    let ours = rec.get("_type").and_then(Value::as_str) == Some("totpregister")
        && rec.get("user").and_then(Value::as_str) == Some(trace);
    Ok((live && ours)
        .then(|| {
            rec.get("_totp2fSecret")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .flatten())
}

/// `Register/Base.pm::checkNameSfa`: empty is `MyTOTP`; `^[\w\s-]+$`; cut to `max` characters.
pub fn checked_name(name: &str, max: usize) -> Option<String> {
    let name = if name.is_empty() { "MyTOTP" } else { name };
    let ok = name
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c.is_whitespace());
    ok.then(|| name.chars().take(max.max(1)).collect())
}

/// The portal's host, as LemonLDAP::NG derives the default issuer.
fn host_of(portal: &str) -> String {
    let rest = portal.split_once("://").map_or(portal, |(_, r)| r);
    let host = rest.split(['/', ':']).next().unwrap_or(rest);
    host.to_string()
}

/// The `otpauth://totp/` URI of Google's key URI format, which authenticator apps read.
fn uri(issuer: &str, user: &str, secret: &str, s: &Settings) -> String {
    let enc = |t: &str| crate::util::url_encode(t);
    format!(
        "otpauth://totp/{}:{}?secret={}&issuer={}&digits={}&period={}",
        enc(issuer),
        enc(user),
        secret.to_ascii_uppercase(),
        enc(issuer),
        s.digits,
        s.interval
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_llng_checks_them() {
        assert_eq!(checked_name("", 20).as_deref(), Some("MyTOTP"));
        assert_eq!(checked_name("My phone", 20).as_deref(), Some("My phone"));
        assert_eq!(
            checked_name("a_very-long name of a phone", 6).as_deref(),
            Some("a_very")
        );
        assert!(checked_name("<script>", 20).is_none());
        assert!(checked_name("a\"b", 20).is_none());
    }

    #[test]
    fn issuer_is_the_portal_host() {
        assert_eq!(
            host_of("https://auth.example.com:8443/x"),
            "auth.example.com"
        );
        assert_eq!(host_of("http://localhost/"), "localhost");
    }
}
