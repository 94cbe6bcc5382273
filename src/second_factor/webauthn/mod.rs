//! WebAuthn, LemonLDAP::NG 2.16's `2F/WebAuthn.pm` and `Lib/WebAuthn.pm`: a device of type
//! `WebAuthn` holds `_credentialId`, `_credentialPublicKey` and `_signCount`
//! (`protocol::device`). The check page asks the browser for an assertion over a fresh
//! challenge kept in the pending login; the answer (`credential`) is verified by `protocol`
//! (W3C WebAuthn §7.2): client data, relying party, flags, signature, then the counter, which
//! must move forward (a counter that does not is refused and logged as a possible clone).
//! The relying party is the portal's host (`RelyingParty::from_portal`); `userVerification`
//! is `webauthn2fUserVerification`. `register` adds devices.
pub mod protocol;
pub mod register;

use super::devices::Device;
use super::factor::{Factor, Form, Verdict};
use super::pending::Pending;
use crate::app::App;
use crate::config::{value_string, Conf};
use crate::error::Result;
use protocol::device::Device as Record;
use protocol::{AssertionResponse, Expected, Refused, RelyingParty, Stored, UserVerification};
use serde_json::{json, Map, Value};

/// The device type.
pub const KIND: &str = protocol::device::TYPE;
/// The persistent session's key of the user handle (`Lib/WebAuthn.pm`).
pub const USER_HANDLE_KEY: &str = "_webAuthnUserHandle";

/// The WebAuthn factor.
pub struct WebAuthn;

/// WebAuthn's own keys (beyond the generic `webauthn2f*` ones), checked at load.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The portal's host and origin (`None`: the portal URL has no host a browser accepts as
    /// a relying party; the factor then refuses every ceremony, logged).
    pub rp: Option<RelyingParty>,
    /// `webauthnRpName` (LemonLDAP::NG's default: `LemonLDAP::NG`).
    pub rp_name: String,
    /// `webauthnDisplayNameAttr || portalUserAttr || whatToTrace || _user`: the attribute
    /// the authenticator shows as the account's display name.
    pub display_name_attr: String,
    /// `webauthn2fUserVerification` (`preferred`).
    pub user_verification: UserVerification,
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> std::result::Result<Self, String> {
        let text = |k: &str| {
            raw.get(k)
                .map(value_string)
                .filter(|v| !v.trim().is_empty())
        };
        let uv = text("webauthn2fUserVerification").unwrap_or_else(|| "preferred".into());
        let user_verification = UserVerification::parse(uv.trim()).ok_or_else(|| {
            format!("webauthn2fUserVerification = {uv}: discouraged, preferred or required")
        })?;
        let display_name_attr = ["webauthnDisplayNameAttr", "portalUserAttr", "whatToTrace"]
            .iter()
            .find_map(|k| text(k))
            .unwrap_or_else(|| "_user".into());
        Ok(Settings {
            rp: text("portal").and_then(|p| RelyingParty::from_portal(p.trim())),
            rp_name: text("webauthnRpName").unwrap_or_else(|| "LemonLDAP::NG".into()),
            display_name_attr,
            user_verification,
        })
    }
}

impl Settings {
    /// The relying party, or the refusal logged when the portal URL gives none.
    pub fn rp(&self) -> Option<&RelyingParty> {
        if self.rp.is_none() {
            crate::log::error(
                "webauthn2f: the portal URL has no host to serve as relying party id",
            );
        }
        self.rp.as_ref()
    }
}

impl Factor for WebAuthn {
    fn prefix(&self) -> &'static str {
        "webauthn"
    }

    fn kind(&self) -> &'static str {
        KIND
    }

    fn amr(&self) -> &'static [&'static str] {
        &["hwk"]
    }

    fn usable(&self, _conf: &Conf, device: &Device) -> bool {
        match read(device) {
            Ok(_) => true,
            Err(why) => {
                let name = shown(&device.name());
                crate::log::warn(&format!("webauthn2f: device {name:?} is not usable: {why}"));
                false
            }
        }
    }

    fn challenge(&self, app: &App, conf: &Conf, p: &mut Pending) -> Result<Option<Value>> {
        let settings = conf.area::<Settings>();
        let trace = super::factor::trace(&p.session);
        let ids: Vec<String> = super::devices::load(app, &trace)?
            .iter()
            .filter_map(record)
            .map(|r| r.credential_id)
            .collect();
        let request = protocol::options::request(
            &protocol::options::challenge(),
            &ids,
            settings.user_verification,
        );
        p.state.insert("webauthn".into(), request.clone());
        Ok(Some(json!({ "request": request })))
    }

    fn verify(
        &self,
        app: &App,
        conf: &Conf,
        p: &Pending,
        devices: &[Device],
        form: Form,
    ) -> Result<Verdict> {
        let credential = field(form, "credential");
        if credential.is_empty() {
            return Ok(Verdict::Empty);
        }
        let trace = super::factor::trace(&p.session);
        match check(app, conf, p, devices, &credential) {
            Ok((record, sign_count)) => {
                store_count(app, &trace, &record.credential_id, sign_count)?;
                crate::log::info(&format!(
                    "webauthn2f: signature verified with count {sign_count} for {}",
                    shown(&trace)
                ));
                Ok(Verdict::Pass(record.name))
            }
            Err(why) => {
                let who = shown(&trace);
                if matches!(why, Refused::Counter { .. }) {
                    crate::log::warn(&format!("webauthn2f: {why} (user {who})"));
                } else {
                    crate::log::notice(&format!("webauthn2f: assertion refused for {who}: {why}"));
                }
                Ok(Verdict::Wrong)
            }
        }
    }
}

/// A user name as the log shows it: no control characters, at most 64 characters.
pub fn shown(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(64).collect()
}

/// A posted field, trimmed.
pub fn field(form: Form, name: &str) -> String {
    form.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default()
}

/// The WebAuthn record of a device, when it reads as one and its key parses.
pub fn record(d: &Device) -> Option<Record> {
    read(d).ok()
}

/// The WebAuthn record of a device, or what is wrong with it.
fn read(d: &Device) -> std::result::Result<Record, String> {
    let r = Record::from_value(&Value::Object(d.0.clone()))?;
    protocol::CoseKey::parse(&r.public_key).map_err(|e| e.to_string())?;
    Ok(r)
}

/// §7.2 for the pending login `p`: the credential named must be one offered (step 5) and the
/// user's (step 6), the user handle the user's when given; then the protocol's checks.
fn check(
    app: &App,
    conf: &Conf,
    p: &Pending,
    devices: &[Device],
    credential: &str,
) -> std::result::Result<(Record, u32), Refused> {
    let settings = conf.area::<Settings>();
    let rp = settings
        .rp()
        .ok_or(Refused::Context("a portal without host"))?;
    let request = p.state.get("webauthn").ok_or(Refused::Challenge)?;
    let challenge = request["challenge"].as_str().unwrap_or_default();
    let resp = AssertionResponse::from_json(credential)?;
    let offered = request["allowCredentials"]
        .as_array()
        .is_some_and(|a| a.iter().any(|c| c["id"].as_str() == Some(resp.id.as_str())));
    let record = devices
        .iter()
        .filter_map(record)
        .find(|r| r.credential_id == resp.id)
        .filter(|_| offered)
        .ok_or(Refused::UnknownCredential)?;
    if let Some(handle) = &resp.user_handle {
        let trace = super::factor::trace(&p.session);
        let mine = user_handle(app, &trace).ok().flatten();
        if mine.as_deref() != Some(handle.as_str()) {
            return Err(Refused::Context("a user handle of another account"));
        }
    }
    let exp = Expected {
        rp,
        challenge,
        user_verification: settings.user_verification,
    };
    let stored = Stored {
        public_key: &record.public_key,
        sign_count: record.sign_count,
    };
    let asserted = protocol::verify_assertion(&exp, &stored, &resp)?;
    Ok((record, asserted.sign_count))
}

/// Keeps the new counter of the device `credential_id` (`update2fDevice ... _signCount`).
fn store_count(app: &App, trace: &str, credential_id: &str, count: u32) -> Result<()> {
    super::devices::update(app, trace, |list| {
        let found = list.iter_mut().find(|d| {
            d.kind() == KIND && record(d).is_some_and(|r| r.credential_id == credential_id)
        });
        match found {
            Some(d) => {
                d.0.insert("_signCount".into(), json!(count));
                (true, ())
            }
            None => (false, ()),
        }
    })
}

/// The user's handle (`_webAuthnUserHandle`), if there is one.
pub fn user_handle(app: &App, trace: &str) -> Result<Option<String>> {
    let (_, ps) = crate::sso::persistent(app, trace)?;
    Ok(ps
        .get(USER_HANDLE_KEY)
        .map(value_string)
        .filter(|h| !h.is_empty()))
}
