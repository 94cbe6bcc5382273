//! The trait every second factor implements (the list of them is `list::FACTORS`). A factor is
//! the domain half of LemonLDAP::NG's `2F/<Name>.pm` (checking) plus `2F/Register/<Name>.pm`
//! (registering): plain values in, a verdict out, no HTTP. Its pages are the portal's
//! (`crate::portal::second_factor`, one `FactorPages` per prefix).
use super::devices::Device;
use super::pending::Pending;
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::storage::Session;
use serde_json::Value;

/// The fields of a posted form or JSON body, as `(name, value)` pairs.
pub type Form<'a> = &'a [(String, String)];

/// What a factor says of the answer to its check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Proven: the login goes on (the device used, for the audit).
    Pass(String),
    /// Wrong: counted as a failed login by the brute-force lock (portal error 96).
    Wrong,
    /// The answer is missing (portal error 2: nothing counted).
    Empty,
}

/// One second factor.
pub trait Factor: Sync {
    /// Its prefix: the keys' (`totp2f*`) and the paths' (`/totp2fcheck`,
    /// `/2fregisters/totp`).
    fn prefix(&self) -> &'static str;

    /// The `type` of its devices in `_2fDevices` (`TOTP`, `WebAuthn`).
    fn kind(&self) -> &'static str;

    /// The `amr` values (RFC 8176) an ID token carries once it passed: `otp`; `hwk` or
    /// `swk`... `mfa` is added by the engine.
    fn amr(&self) -> &'static [&'static str];

    /// Whether a device of this factor's type is usable: its own fields parse (a device that
    /// does not is no device: never a bypass).
    fn usable(&self, conf: &Conf, device: &Device) -> bool;

    /// What the check page needs beyond the token, stored in `p.state` when it must be
    /// remembered (a WebAuthn challenge); also the JSON answer's `"sf"` data. `None`: nothing.
    fn challenge(&self, _app: &App, _conf: &Conf, _p: &mut Pending) -> Result<Option<Value>> {
        Ok(None)
    }

    /// Checks the answer posted to `/<prefix>2fcheck` against the user's usable devices of
    /// this type (`devices`, never empty). The engine counted and locked already; the
    /// factor only says right or wrong, and keeps any state (a used code, a signature
    /// counter) in the persistent session or the store itself.
    fn verify(
        &self,
        app: &App,
        conf: &Conf,
        p: &Pending,
        devices: &[Device],
        form: Form,
    ) -> Result<Verdict>;
}

/// The session's `_whatToTrace`: the user a factor's devices belong to.
pub fn trace(s: &Session) -> String {
    s.get("_whatToTrace")
        .map(crate::config::value_string)
        .unwrap_or_default()
}

/// The session attributes a factor's activation rule is evaluated on: the session built,
/// with the persistent session's `_2fDevices` (LemonLDAP::NG copies the persistent session
/// into it; Limette stores no device in the SSO session).
pub fn rule_attrs(s: &Session, devices_value: Option<&Value>) -> Session {
    let mut attrs = s.clone();
    if let Some(v) = devices_value {
        attrs.insert(super::devices::KEY.into(), v.clone());
    }
    attrs
}
