//! The browser's answer to a ceremony, as the page's script (and LemonLDAP::NG's
//! `webauthn-ui.js`) posts it in the `credential` parameter: the `PublicKeyCredential` as
//! JSON, its binary members in base64url (§5.1, `toJSON`'s shape). Decoded here into bytes.
use super::{Refused, B64};
use base64::Engine;
use serde::Deserialize;

/// A registration ceremony's answer (`navigator.credentials.create`).
#[derive(Debug)]
pub struct RegistrationResponse {
    /// The credential id, base64url, as the browser names it.
    pub id: String,
    pub client_data_json: Vec<u8>,
    pub attestation_object: Vec<u8>,
}

/// An authentication ceremony's answer (`navigator.credentials.get`).
#[derive(Debug)]
pub struct AssertionResponse {
    /// The credential id, base64url without padding: compared with the kept `_credentialId`.
    pub id: String,
    pub client_data_json: Vec<u8>,
    pub authenticator_data: Vec<u8>,
    pub signature: Vec<u8>,
    /// The user handle, base64url, when the authenticator returned one.
    pub user_handle: Option<String>,
}

#[derive(Deserialize)]
struct Raw {
    id: String,
    #[serde(rename = "rawId", default)]
    raw_id: Option<String>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    response: RawResponse,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawResponse {
    #[serde(rename = "clientDataJSON")]
    client_data_json: String,
    #[serde(default)]
    attestation_object: Option<String>,
    #[serde(default)]
    authenticator_data: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    user_handle: Option<String>,
}

impl RegistrationResponse {
    /// Decodes the posted JSON.
    pub fn from_json(json: &str) -> Result<RegistrationResponse, Refused> {
        let raw = parse(json)?;
        Ok(RegistrationResponse {
            client_data_json: b64("clientDataJSON", &raw.response.client_data_json)?,
            attestation_object: b64("attestationObject", need(&raw.response.attestation_object)?)?,
            id: raw.id,
        })
    }
}

impl AssertionResponse {
    /// Decodes the posted JSON.
    pub fn from_json(json: &str) -> Result<AssertionResponse, Refused> {
        let raw = parse(json)?;
        let r = &raw.response;
        let user_handle = match r.user_handle.as_deref() {
            None | Some("") => None,
            Some(h) => Some(B64.encode(b64("userHandle", h)?)),
        };
        Ok(AssertionResponse {
            client_data_json: b64("clientDataJSON", &r.client_data_json)?,
            authenticator_data: b64("authenticatorData", need(&r.authenticator_data)?)?,
            signature: b64("signature", need(&r.signature)?)?,
            user_handle,
            id: raw.id,
        })
    }
}

/// Parses the JSON and checks the members common to both answers.
fn parse(json: &str) -> Result<Raw, Refused> {
    let raw: Raw =
        serde_json::from_str(json).map_err(|e| Refused::Malformed("credential", e.to_string()))?;
    if raw.kind.as_deref().is_some_and(|k| k != "public-key") {
        return Err(Refused::Malformed(
            "credential",
            "type is not public-key".into(),
        ));
    }
    // The id is the base64url of the raw id (§5.1); a client that sends both sends them equal.
    let id = b64("id", &raw.id)?;
    if id.is_empty() {
        return Err(Refused::Malformed("credential", "empty id".into()));
    }
    if let Some(r) = raw.raw_id.as_deref() {
        if b64("rawId", r)? != id {
            return Err(Refused::Malformed("credential", "id is not rawId".into()));
        }
    }
    // Written again without padding, as `_credentialId` keeps it.
    Ok(Raw {
        id: B64.encode(id),
        ..raw
    })
}

fn need(v: &Option<String>) -> Result<&str, Refused> {
    v.as_deref()
        .ok_or_else(|| Refused::Malformed("credential", "a response member is missing".into()))
}

fn b64(what: &'static str, v: &str) -> Result<Vec<u8>, Refused> {
    B64.decode(v)
        .map_err(|e| Refused::Malformed(what, format!("not base64url: {e}")))
}
