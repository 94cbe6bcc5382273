//! A WebAuthn device as LemonLDAP::NG 2.16 keeps it in the persistent session's `_2fDevices`
//! (`Portal/2F/Register/WebAuthn.pm`, `Lib/2fDevices.pm`): `type` "WebAuthn", `name`, `epoch`
//! (seconds), `_credentialId` (base64url of the credential id, no padding), `_credentialPublicKey`
//! (base64url of the COSE key as the authenticator wrote it) and `_signCount` (a number). A
//! record that does not read so is no usable device: the caller logs it and skips it.
use super::B64;
use base64::Engine;
use serde_json::{json, Value};

/// The `type` of WebAuthn devices.
pub const TYPE: &str = "WebAuthn";

/// One WebAuthn device read from `_2fDevices`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub name: String,
    /// The registration time, which names the device (removal goes by type and epoch).
    pub epoch: i64,
    /// `_credentialId`, base64url without padding (as the browser names the credential).
    pub credential_id: String,
    /// The COSE key (decoded from `_credentialPublicKey`).
    pub public_key: Vec<u8>,
    pub sign_count: u64,
}

impl Device {
    /// Reads a `_2fDevices` entry of type WebAuthn; `Err` says what is wrong with it (the
    /// entries of other types are not asked).
    pub fn from_value(v: &Value) -> Result<Device, String> {
        let text = |k: &str| v.get(k).and_then(Value::as_str);
        if text("type") != Some(TYPE) {
            return Err("not a WebAuthn device".into());
        }
        let id = text("_credentialId").ok_or("no _credentialId")?;
        let id = B64
            .decode(id)
            .map_err(|_| "_credentialId is not base64url")?;
        let key = text("_credentialPublicKey").ok_or("no _credentialPublicKey")?;
        let public_key = B64
            .decode(key)
            .map_err(|_| "_credentialPublicKey is not base64url")?;
        Ok(Device {
            name: text("name").unwrap_or_default().to_string(),
            epoch: number(v.get("epoch")).ok_or("no epoch")?,
            credential_id: B64.encode(id),
            public_key,
            // Perl may write the counter as a number or as a string of digits.
            sign_count: number(v.get("_signCount")).map_or(0, |n| n.max(0) as u64),
        })
    }

    /// The `_2fDevices` entry, in LemonLDAP::NG's members and encodings.
    pub fn to_value(&self) -> Value {
        json!({
            "type": TYPE,
            "name": self.name,
            "epoch": self.epoch,
            "_credentialId": self.credential_id,
            "_credentialPublicKey": B64.encode(&self.public_key),
            "_signCount": self.sign_count,
        })
    }
}

/// An integer written as a JSON number or as a string of digits.
fn number(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_written_by_lemonldap_ng_reads_and_writes_back_the_same() {
        // As Portal/2F/Register/WebAuthn.pm stores it (to_json of the hash; counter a number).
        let llng = json!({"_credentialId": "OP7uIK5xDtfdLLPq6WC0gEpT-Iu42gzqiOzO-Oe9ZFQ",
            "_credentialPublicKey": "pQECAyYgASFYIIt0m7qlhhuE0EnIE3YoafafNTcgpWuMVTmkt6jQMOYeIlggQVTw8s1L9FgghBLDdjciNcuNAcDycxOmeyvlpOGKJuA",
            "_signCount": 12, "type": "WebAuthn", "name": "MyFidoKey", "epoch": 1700000000});
        let d = Device::from_value(&llng).unwrap();
        assert_eq!(
            (d.sign_count, d.epoch, d.name.as_str()),
            (12, 1_700_000_000, "MyFidoKey")
        );
        assert_eq!(d.to_value(), llng);
        let mut as_text = llng.clone();
        as_text["_signCount"] = json!("12");
        as_text["epoch"] = json!("1700000000");
        assert_eq!(Device::from_value(&as_text).unwrap(), d);
    }

    #[test]
    fn broken_records_are_not_devices() {
        for bad in [
            json!({"type": "TOTP", "epoch": 1, "_secret": "x"}),
            json!({"type": "WebAuthn", "epoch": 1, "_credentialPublicKey": "pQ"}),
            json!({"type": "WebAuthn", "epoch": 1, "_credentialId": "%%", "_credentialPublicKey": "pQ"}),
            json!({"type": "WebAuthn", "_credentialId": "AA", "_credentialPublicKey": "pQ"}),
            json!("WebAuthn"),
        ] {
            assert!(Device::from_value(&bad).is_err(), "{bad}");
        }
    }
}
