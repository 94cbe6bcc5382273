//! The options a ceremony sends the browser (`PublicKeyCredentialCreationOptions` §5.4,
//! `PublicKeyCredentialRequestOptions` §5.5), in the JSON LemonLDAP::NG's pages and script use
//! (binary members in base64url): the same `request` object its `/2fregisters/webauthn/*`
//! answers and its `webauthn2fcheck` page carry. Challenges and user handles are made here.
use super::{Alg, UserVerification, B64};
use base64::Engine;
use serde_json::{json, Value};

/// A fresh challenge: 32 random bytes, base64url (as LemonLDAP::NG's `generateChallenge`).
pub fn challenge() -> String {
    B64.encode(crate::util::random_bytes(32))
}

/// A fresh user handle: 64 random bytes, base64url (§14.6.1, as LemonLDAP::NG's
/// `_generate_user_handle`), kept in the persistent session's `_webAuthnUserHandle`.
pub fn user_handle() -> String {
    B64.encode(crate::util::random_bytes(64))
}

/// Who registers: the account's name and display name, and its user handle.
pub struct User<'a> {
    pub name: &'a str,
    pub display_name: &'a str,
    pub handle: &'a str,
}

/// The creation options of a registration. `exclude` lists the user's credential ids already
/// registered (the authenticator then refuses to register the same key twice).
pub fn creation(
    rp_name: &str,
    user: &User,
    challenge: &str,
    uv: UserVerification,
    exclude: &[String],
) -> Value {
    let params: Vec<Value> = Alg::OFFERED
        .iter()
        .map(|a| json!({"type": "public-key", "alg": a.number()}))
        .collect();
    json!({
        "rp": {"name": rp_name},
        "user": {"name": user.name, "id": user.handle, "displayName": user.display_name},
        "challenge": challenge,
        "pubKeyCredParams": params,
        "excludeCredentials": descriptors(exclude),
        "authenticatorSelection": {"userVerification": uv.as_str()},
        "attestation": "none",
    })
}

/// The request options of an authentication: the user's credentials, the user verification
/// asked for.
pub fn request(challenge: &str, allow: &[String], uv: UserVerification) -> Value {
    json!({
        "challenge": challenge,
        "allowCredentials": descriptors(allow),
        "userVerification": uv.as_str(),
    })
}

fn descriptors(ids: &[String]) -> Vec<Value> {
    ids.iter()
        .map(|id| json!({"type": "public-key", "id": id}))
        .collect()
}
