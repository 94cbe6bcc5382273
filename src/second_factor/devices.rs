//! The registered devices of a user: the `_2fDevices` key of the persistent session, a JSON
//! text holding an array of objects, exactly as LemonLDAP::NG 2.16's `Lib/2fDevices.pm`
//! writes it (`to_json`). Every device has `type`, `name` and `epoch` (the registration time,
//! which names the device for removal together with its type); each type adds its own
//! fields (TOTP: `_secret`; WebAuthn: `_credentialId`, `_credentialPublicKey`, `_signCount`).
//! A device is kept as its whole JSON object, so fields Limette does not know survive a
//! write. A value that does not parse is logged and counts as no device at all (never a
//! panic, never a bypass); an element without a type or an epoch is skipped, logged.
//! Writes are read-modify-write of the persistent session under one process lock.
use crate::app::App;
use crate::error::Result;
use crate::storage::{Kind, Session};
use serde_json::{json, Map, Value};
use std::sync::Mutex;

/// The key of the devices in the persistent session.
pub const KEY: &str = "_2fDevices";

/// Serializes the read-modify-write of a user's devices in this process.
static WRITE: Mutex<()> = Mutex::new(());

/// One registered device: its JSON object as stored.
#[derive(Clone, PartialEq)]
pub struct Device(pub Map<String, Value>);

impl std::fmt::Debug for Device {
    /// Names the device only: its fields hold secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Device({} {:?} {})",
            self.kind(),
            self.name(),
            self.epoch()
        )
    }
}

impl Device {
    /// A new device of `kind` named `name`, registered at `epoch`, with its own fields.
    pub fn new(kind: &str, name: &str, epoch: i64, fields: Map<String, Value>) -> Device {
        let mut m = fields;
        m.insert("type".into(), json!(kind));
        m.insert("name".into(), json!(name));
        m.insert("epoch".into(), json!(epoch));
        Device(m)
    }

    /// Its `type` (`TOTP`, `WebAuthn`...).
    pub fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// Its name, as the user gave it.
    pub fn name(&self) -> String {
        self.0
            .get("name")
            .map(crate::config::value_string)
            .unwrap_or_default()
    }

    /// Its registration time (a number, or its decimal text as some writers store it).
    pub fn epoch(&self) -> i64 {
        self.0
            .get("epoch")
            .and_then(crate::config::as_i64)
            .unwrap_or(0)
    }

    /// A text field of the device (`_secret`, `_credentialId`...).
    pub fn text(&self, field: &str) -> Option<&str> {
        self.0.get(field).and_then(Value::as_str)
    }

    /// Whether this device is the one named by `kind` and `epoch` (LemonLDAP::NG compares both
    /// as text).
    pub fn is(&self, kind: &str, epoch: &str) -> bool {
        self.kind() == kind && self.epoch().to_string() == epoch.trim()
    }
}

/// The devices a persistent session holds; a malformed value is logged and gives none.
pub fn of(ps: &Session) -> Vec<Device> {
    parse(ps.get(KEY)).unwrap_or_else(|why| {
        let who = ps
            .get("_session_uid")
            .map(crate::config::value_string)
            .unwrap_or_default();
        let who: String = who.chars().filter(|c| !c.is_control()).take(64).collect();
        crate::log::error(&format!(
            "corrupted persistent session of {who} ({KEY}): {why}; no usable second factor"
        ));
        Vec::new()
    })
}

/// Parses a `_2fDevices` value: absent or empty is no device; a JSON text (or, from tolerant
/// writers, an array) of objects. Elements without a `type` or an `epoch` are skipped.
pub fn parse(v: Option<&Value>) -> std::result::Result<Vec<Device>, String> {
    let list = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(Vec::new()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => a,
            Ok(_) => return Err("not an array".into()),
            Err(e) => return Err(format!("not JSON: {e}")),
        },
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err("neither a JSON text nor an array".into()),
    };
    let mut out = Vec::new();
    for d in list {
        match d {
            Value::Object(m) if valid(&m) => out.push(Device(m)),
            _ => crate::log::warn(&format!("{KEY}: an element without type or epoch skipped")),
        }
    }
    Ok(out)
}

/// A device has a text `type` and an `epoch`.
fn valid(m: &Map<String, Value>) -> bool {
    let typed = m
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty());
    typed && m.get("epoch").and_then(crate::config::as_i64).is_some()
}

/// The value `_2fDevices` takes for these devices: the JSON text LemonLDAP::NG writes.
pub fn encode(devices: &[Device]) -> Value {
    let list: Vec<Value> = devices.iter().map(|d| Value::Object(d.0.clone())).collect();
    Value::String(Value::Array(list).to_string())
}

/// The user's devices (by `whatToTrace` value), read from the persistent session.
pub fn load(app: &App, trace: &str) -> Result<Vec<Device>> {
    let (_, ps) = crate::sso::persistent(app, trace)?;
    Ok(of(&ps))
}

/// Why [`add_unless`] added nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAdded {
    /// A device like it is there already.
    Exists,
    /// The user has `sfMaxDevices`-many devices already (`max`).
    TooMany,
}

/// Adds `device` to the user's devices unless one of them is `like` it or there are `max`
/// already: a registration's last step, one write under the devices' lock.
pub fn add_unless(
    app: &App,
    trace: &str,
    device: &Device,
    max: usize,
    like: impl Fn(&Device) -> bool,
) -> Result<std::result::Result<(), NotAdded>> {
    update(app, trace, |list| {
        if list.iter().any(&like) {
            return (false, Err(NotAdded::Exists));
        }
        if list.len() >= max {
            return (false, Err(NotAdded::TooMany));
        }
        list.push(device.clone());
        (true, Ok(()))
    })
}

/// Changes the user's devices atomically in this process: `change` gets the devices and says
/// whether to write them; returns what it returned.
pub fn update<T>(
    app: &App,
    trace: &str,
    change: impl FnOnce(&mut Vec<Device>) -> (bool, T),
) -> Result<T> {
    let _serial = WRITE.lock().unwrap_or_else(|p| p.into_inner());
    let (pid, mut ps) = crate::sso::persistent(app, trace)?;
    let mut list = of(&ps);
    let (write, out) = change(&mut list);
    if write {
        ps.insert(KEY.into(), encode(&list));
        app.sessions(Kind::Persistent)
            .put(Kind::Persistent, &pid, &ps)?;
    }
    Ok(out)
}

/// Adds a device; `false` (nothing written) when the user holds `max` devices already.
#[allow(dead_code)] // Part of the factors' contract: TOTP checks more and uses `update`.
pub fn add(app: &App, trace: &str, device: Device, max: usize) -> Result<bool> {
    update(app, trace, |list| {
        if list.len() >= max {
            return (false, false);
        }
        list.push(device);
        (true, true)
    })
}

/// Removes the device of that type and epoch; the removed device, if there was one.
pub fn remove(app: &App, trace: &str, kind: &str, epoch: &str) -> Result<Option<Device>> {
    update(app, trace, |list| {
        let Some(i) = list.iter().position(|d| d.is(kind, epoch)) else {
            return (false, None);
        };
        (true, Some(list.remove(i)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_llng_writes_and_writes_it_back() {
        let text = r#"[{"_secret":"JBSWY3DPEHPK3PXP","type":"TOTP","name":"MyTOTP","epoch":1700000000,"x":1}]"#;
        let v = json!(text);
        let list = parse(Some(&v)).unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(
            (list[0].kind(), list[0].name(), list[0].epoch()),
            ("TOTP", "MyTOTP".into(), 1700000000)
        );
        assert_eq!(list[0].text("_secret"), Some("JBSWY3DPEHPK3PXP"));
        let again = encode(&list);
        assert_eq!(parse(Some(&again)).unwrap(), list);
        assert!(list[0].is("TOTP", "1700000000") && !list[0].is("WebAuthn", "1700000000"));
    }

    #[test]
    fn malformed_values_give_no_device() {
        for bad in [
            json!("{"),
            json!("{\"type\":\"TOTP\"}"),
            json!(42),
            json!({"a": 1}),
        ] {
            assert!(parse(Some(&bad)).is_err(), "{bad}");
        }
        let mut ps = Session::new();
        ps.insert(KEY.into(), json!("not json"));
        assert!(of(&ps).is_empty());
        let partial = json!(r#"[{"type":"TOTP"},"x",{"type":"TOTP","epoch":"12","name":"a"}]"#);
        let list = parse(Some(&partial)).unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].epoch(), 12);
        assert!(parse(None).unwrap().is_empty() && parse(Some(&json!(""))).unwrap().is_empty());
    }
}
