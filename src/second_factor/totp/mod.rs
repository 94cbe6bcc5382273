//! TOTP, LemonLDAP::NG 2.16's `2F/TOTP.pm` and `Common/TOTP.pm`: a device of type `TOTP`
//! holds `_secret`, the base32 secret, in clear or, with `totp2fEncryptSecret`, as
//! `{llngcrypt}` followed by the configuration key's cipher of it (`Common/Crypto.pm`, key
//! `totp2fKey || key`; either form is read whatever the setting). A code is right when it is
//! the code of one of the `totp2fRange` steps around now (`totp2fInterval` seconds,
//! `totp2fDigits` digits). Beyond LemonLDAP::NG, a code is refused when it was used already
//! (RFC 6238 5.2): each accepted time step leaves a marker in the store, created atomically,
//! living as long as the window. `code` computes, `register` adds devices.
pub mod code;
pub mod register;

use super::devices::Device;
use super::factor::{Factor, Form, Verdict};
use super::pending::Pending;
use crate::app::App;
use crate::config::{int_setting, truthy, Conf};
use crate::error::Result;
use crate::storage::{Kind, Session};
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::Sha256;

/// The device type.
pub const KIND: &str = "TOTP";
/// The marker of an encrypted secret (`Common/TOTP.pm`'s `PREFIX`).
const CRYPT_PREFIX: &str = "{llngcrypt}";

/// The TOTP factor.
pub struct Totp;

/// TOTP's own keys (`totp2f*` beyond the generic ones), checked at load.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `totp2fInterval` (30).
    pub interval: i64,
    /// `totp2fRange` (1).
    pub range: i64,
    /// `totp2fDigits` (6).
    pub digits: u32,
    /// `totp2fIssuer` (`None`: the portal's host).
    pub issuer: Option<String>,
    /// `totp2fEncryptSecret`.
    pub encrypt: bool,
    /// `totp2fKey` (`None`: the configuration's `key`).
    key: Option<String>,
}

impl Settings {
    /// The key secrets are encrypted with.
    pub fn key<'a>(&'a self, conf: &'a Conf) -> &'a str {
        self.key.as_deref().unwrap_or(&conf.key)
    }
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> std::result::Result<Self, String> {
        let interval = int_setting(raw, "totp2fInterval")?.unwrap_or(30);
        let range = int_setting(raw, "totp2fRange")?.unwrap_or(1);
        let digits = int_setting(raw, "totp2fDigits")?.unwrap_or(6);
        if !(1..=3600).contains(&interval) {
            return Err(format!(
                "totp2fInterval = {interval}: between 1 and 3600 seconds"
            ));
        }
        if !(0..=10).contains(&range) {
            return Err(format!("totp2fRange = {range}: between 0 and 10 steps"));
        }
        if !(6..=10).contains(&digits) {
            return Err(format!("totp2fDigits = {digits}: between 6 and 10 digits"));
        }
        let text = |k: &str| {
            raw.get(k)
                .map(crate::config::value_string)
                .filter(|v| !v.trim().is_empty())
        };
        Ok(Settings {
            interval,
            range,
            digits: digits as u32,
            issuer: text("totp2fIssuer"),
            encrypt: truthy(raw.get("totp2fEncryptSecret")),
            key: text("totp2fKey"),
        })
    }
}

impl Factor for Totp {
    fn prefix(&self) -> &'static str {
        "totp"
    }

    fn kind(&self) -> &'static str {
        KIND
    }

    fn amr(&self) -> &'static [&'static str] {
        &["otp"]
    }

    fn usable(&self, conf: &Conf, device: &Device) -> bool {
        let settings = conf.area::<Settings>();
        secret_of(&settings, conf, device).is_some()
    }

    fn verify(
        &self,
        app: &App,
        conf: &Conf,
        p: &Pending,
        devices: &[Device],
        form: Form,
    ) -> Result<Verdict> {
        let code = field(form, "code");
        if code.is_empty() {
            return Ok(Verdict::Empty);
        }
        let settings = conf.area::<Settings>();
        let trace = super::factor::trace(&p.session);
        for d in devices {
            let Some(key) = secret_of(&settings, conf, d) else {
                continue;
            };
            let now = crate::util::now();
            let (interval, range, digits) = (settings.interval, settings.range, settings.digits);
            let Some(step) = code::matching_step(&key, &code, now, interval, range, digits) else {
                continue;
            };
            if !first_use(app, conf, &settings, &trace, step)? {
                crate::log::notice("totp2f: a code used already was refused");
                return Ok(Verdict::Wrong);
            }
            return Ok(Verdict::Pass(d.name()));
        }
        Ok(Verdict::Wrong)
    }
}

/// A posted field, trimmed.
pub fn field(form: Form, name: &str) -> String {
    form.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default()
}

/// The secret bytes of a device: `_secret` decrypted when it is, then base32-decoded. `None`
/// (logged): missing, undecryptable or not base32.
pub fn secret_of(settings: &Settings, conf: &Conf, d: &Device) -> Option<Vec<u8>> {
    let stored = d.text("_secret")?;
    let clear = match stored.strip_prefix(CRYPT_PREFIX) {
        Some(ct) => match crate::crypto::secret::decrypt(settings.key(conf), ct) {
            Ok(t) => t,
            Err(_) => {
                crate::log::error("totp2f: unable to decrypt a TOTP secret");
                return None;
            }
        },
        None => stored.to_string(),
    };
    let key = code::base32_decode(&clear).filter(|k| !k.is_empty());
    if key.is_none() {
        crate::log::error("totp2f: bad characters in a TOTP secret");
    }
    key
}

/// The stored form of a new base32 secret: encrypted when `totp2fEncryptSecret` says so.
pub fn storable(settings: &Settings, conf: &Conf, secret: &str) -> String {
    if settings.encrypt {
        format!(
            "{CRYPT_PREFIX}{}",
            crate::crypto::secret::encrypt(settings.key(conf), secret)
        )
    } else {
        secret.to_string()
    }
}

/// Marks the time step `step` used for `trace`; `false` when it was used already. The
/// marker's id is a MAC of the user and the step (no name in the store), it lives for the
/// whole window.
pub fn first_use(
    app: &App,
    conf: &Conf,
    settings: &Settings,
    trace: &str,
    step: i64,
) -> Result<bool> {
    let Ok(mut m) = Hmac::<Sha256>::new_from_slice(conf.key.as_bytes()) else {
        return Ok(false);
    };
    m.update(format!("totp-used:{trace}:{step}").as_bytes());
    let id = crate::util::hex(&m.finalize().into_bytes());
    let mut rec = Session::new();
    let life = (2 * settings.range + 2) * settings.interval;
    rec.insert("_exp".into(), json!(crate::util::now() + life));
    rec.insert("_type".into(), json!("totpused"));
    app.sessions(Kind::Pending).create(Kind::Pending, &id, &rec)
}
