//! WebAuthn's relying-party checks (W3C Web Authentication Level 2, §7), on plain bytes and
//! text, with no HTTP and no storage: a registration ceremony's response becomes a credential
//! to keep (`verify_registration`, §7.1), an authentication ceremony's response is checked
//! against a kept credential (`verify_assertion`, §7.2). The parts: `client_data` (the browser's
//! `clientDataJSON`), `auth_data` (the authenticator's data), `cose` (credential public keys:
//! ES256, RS256, EdDSA, signatures through `ring`), `attestation` (`none` and packed self
//! attestation; every other format refused by name), `credential` (the browser's JSON answer,
//! as LemonLDAP::NG's script sends it), `options` (what the browser is asked), `device` (the
//! `_2fDevices` record, in LemonLDAP::NG's encodings). Which user owns which credential and the
//! challenges kept between two requests are the second-factor step's business.
mod attestation;
mod auth_data;
mod client_data;
mod cose;
mod credential;
pub mod device;
pub mod options;

#[cfg(test)]
mod tests;

pub use cose::{Alg, CoseKey};
pub use credential::{AssertionResponse, RegistrationResponse};

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::fmt;

/// Base64url as WebAuthn and LemonLDAP::NG write it: no padding; padding accepted on input
/// (Perl's `decode_base64url` accepts it too).
pub const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The relying party as the browser sees it: its id (the portal's host name, without port)
/// and its origin (scheme, host and port, as `clientDataJSON.origin` carries it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelyingParty {
    pub id: String,
    pub origin: String,
}

impl RelyingParty {
    /// The relying party of a portal URL (`portal`): `https://auth.example.com:8443/` has the id
    /// `auth.example.com` and the origin `https://auth.example.com:8443`; a default port is
    /// left out of the origin, as browsers do. `None` when the URL has no usable host.
    pub fn from_portal(portal: &str) -> Option<RelyingParty> {
        let (scheme, rest) = portal.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "https" && scheme != "http" {
            return None;
        }
        let authority = rest.split(['/', '?', '#']).next()?.to_ascii_lowercase();
        if authority.is_empty() || authority.contains('@') || authority.starts_with('[') {
            return None;
        }
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => (h, Some(p)),
            Some(_) => return None,
            None => (authority.as_str(), None),
        };
        let default = matches!(
            (scheme.as_str(), port),
            ("https", Some("443")) | ("http", Some("80"))
        );
        let origin = match port {
            Some(p) if !default => format!("{scheme}://{host}:{p}"),
            _ => format!("{scheme}://{host}"),
        };
        Some(RelyingParty {
            id: host.to_string(),
            origin,
        })
    }
}

/// `userVerification` (§5.8.6), as `webauthn2fUserVerification` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserVerification {
    /// `discouraged`
    Discouraged,
    /// `preferred` (LemonLDAP::NG's default)
    Preferred,
    /// `required`: the UV flag must be set.
    Required,
}

impl UserVerification {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            UserVerification::Discouraged => "discouraged",
            UserVerification::Preferred => "preferred",
            UserVerification::Required => "required",
        }
    }

    /// The value of a wire string; `None` for anything else.
    pub fn parse(s: &str) -> Option<UserVerification> {
        match s {
            "discouraged" => Some(UserVerification::Discouraged),
            "preferred" => Some(UserVerification::Preferred),
            "required" => Some(UserVerification::Required),
            _ => None,
        }
    }
}

/// Why a ceremony's response was refused. Every variant is the client's fault or a refusal of
/// policy; none carries a secret, so each may be logged as it is.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// A part did not parse: which part, and why.
    Malformed(&'static str, String),
    /// `clientDataJSON.type` is not the ceremony's.
    Type(String),
    /// `clientDataJSON.challenge` is not the one issued.
    Challenge,
    /// `clientDataJSON.origin` is not the portal's.
    Origin(String),
    /// Cross-origin iframes and token binding are not accepted.
    Context(&'static str),
    /// The authenticator's `rpIdHash` is not the hash of the relying party's id.
    RpIdHash,
    /// The User Present flag is not set.
    UserNotPresent,
    /// User verification is required and the UV flag is not set.
    UserNotVerified,
    /// An attestation statement format this relying party does not verify.
    AttestationFormat(String),
    /// A COSE algorithm, key type or curve outside ES256, RS256 and EdDSA.
    Algorithm(String),
    /// A signature (assertion or self attestation) that does not verify.
    Signature,
    /// The credential is not among those offered for this ceremony.
    UnknownCredential,
    /// The authenticator's counter did not move forward: the credential may have been cloned.
    Counter { stored: u64, received: u32 },
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Malformed(what, why) => write!(f, "malformed {what}: {why}"),
            Refused::Type(t) => write!(f, "clientDataJSON type {t:?} is not this ceremony's"),
            Refused::Challenge => f.write_str("challenge is not the one issued"),
            Refused::Origin(o) => write!(f, "origin {o:?} is not the portal's"),
            Refused::Context(c) => write!(f, "{c} is not accepted"),
            Refused::RpIdHash => f.write_str("rpIdHash is not the hash of the relying party id"),
            Refused::UserNotPresent => f.write_str("user presence flag not set"),
            Refused::UserNotVerified => f.write_str("user verification required and not done"),
            Refused::AttestationFormat(fmt) => {
                write!(f, "attestation format {fmt:?} not supported (none, packed self only)")
            }
            Refused::Algorithm(a) => write!(f, "unsupported key: {a} (ES256, RS256, EdDSA only)"),
            Refused::Signature => f.write_str("signature does not verify"),
            Refused::UnknownCredential => f.write_str("credential not registered for this user"),
            Refused::Counter { stored, received } => write!(
                f,
                "signature counter {received} not above the stored {stored}: possible cloned authenticator"
            ),
        }
    }
}

/// A credential a registration ceremony created, as it is kept: LemonLDAP::NG keeps the id and
/// the COSE key each in base64url (`_credentialId`, `_credentialPublicKey`) and the counter
/// (`_signCount`).
#[derive(Debug, PartialEq, Eq)]
pub struct Registered {
    pub credential_id: Vec<u8>,
    /// The COSE key, byte for byte as the authenticator wrote it.
    pub public_key: Vec<u8>,
    pub alg: Alg,
    pub sign_count: u32,
    pub user_verified: bool,
    /// `none` or `packed` (self attestation).
    pub attestation: &'static str,
}

/// What a ceremony expects: the relying party, the challenge issued (base64url, as sent to the
/// browser and as `clientDataJSON` carries it) and the user verification asked for.
pub struct Expected<'a> {
    pub rp: &'a RelyingParty,
    pub challenge: &'a str,
    pub user_verification: UserVerification,
}

/// Checks a registration ceremony's response (§7.1) and returns the credential to keep.
pub fn verify_registration(
    exp: &Expected,
    resp: &RegistrationResponse,
) -> Result<Registered, Refused> {
    // §7.1 steps 5 to 10: the client data.
    client_data::check(&resp.client_data_json, "webauthn.create", exp)?;
    // Step 11: hash of the client data.
    let client_data_hash = Sha256::digest(&resp.client_data_json);
    // Step 12: the attestation object.
    let att = attestation::Object::parse(&resp.attestation_object)?;
    let data = auth_data::AuthData::parse(att.auth_data)?;
    // Steps 13 to 15: rpIdHash, UP, UV.
    check_flags_and_rp(&data, exp)?;
    let acd = data
        .attested
        .as_ref()
        .ok_or_else(|| Refused::Malformed("authenticator data", "no attested credential".into()))?;
    // The credential the browser names is the one the authenticator attested.
    if B64.decode(&resp.id).ok().as_deref() != Some(acd.credential_id) {
        return Err(Refused::Malformed(
            "credential",
            "id is not the attested one".into(),
        ));
    }
    // Steps 18 and 19: the attestation statement (step 16, the algorithm, is checked by
    // parsing the key: only the algorithms offered in pubKeyCredParams parse).
    let fmt = att.verify(att.auth_data, &client_data_hash, &acd.key)?;
    Ok(Registered {
        credential_id: acd.credential_id.to_vec(),
        public_key: acd.public_key.to_vec(),
        alg: acd.key.alg(),
        sign_count: data.sign_count,
        user_verified: data.user_verified(),
        attestation: fmt,
    })
}

/// A kept credential, as the assertion check needs it.
pub struct Stored<'a> {
    /// The COSE key as registered.
    pub public_key: &'a [u8],
    pub sign_count: u64,
}

/// What a verified assertion says.
#[derive(Debug, PartialEq, Eq)]
pub struct Asserted {
    /// The counter to keep from now on.
    pub sign_count: u32,
    pub user_verified: bool,
}

/// Checks an authentication ceremony's response (§7.2) against the credential it names; which
/// credential that is (steps 5 and 6) the caller decided from `resp.id`.
pub fn verify_assertion(
    exp: &Expected,
    stored: &Stored,
    resp: &AssertionResponse,
) -> Result<Asserted, Refused> {
    // Step 7: the credential's public key.
    let key = CoseKey::parse(stored.public_key)?;
    // Steps 10 to 14: the client data.
    client_data::check(&resp.client_data_json, "webauthn.get", exp)?;
    // Steps 15 to 17: rpIdHash, UP, UV.
    let data = auth_data::AuthData::parse(&resp.authenticator_data)?;
    check_flags_and_rp(&data, exp)?;
    // Steps 19 and 20: the signature over authData || SHA-256(clientDataJSON).
    let mut signed = resp.authenticator_data.clone();
    signed.extend_from_slice(&Sha256::digest(&resp.client_data_json));
    key.verify(&signed, &resp.signature)?;
    // Step 21: the signature counter, as LemonLDAP::NG checks it (Authen::WebAuthn): when
    // either is non-zero, the new one must be above the stored one.
    let received = data.sign_count;
    if (received > 0 || stored.sign_count > 0) && u64::from(received) <= stored.sign_count {
        return Err(Refused::Counter {
            stored: stored.sign_count,
            received,
        });
    }
    Ok(Asserted {
        sign_count: received,
        user_verified: data.user_verified(),
    })
}

/// §7.1 steps 13 to 15, §7.2 steps 15 to 17.
fn check_flags_and_rp(data: &auth_data::AuthData, exp: &Expected) -> Result<(), Refused> {
    let want = Sha256::digest(exp.rp.id.as_bytes());
    if data.rp_id_hash != want.as_slice() {
        return Err(Refused::RpIdHash);
    }
    if !data.user_present() {
        return Err(Refused::UserNotPresent);
    }
    if exp.user_verification == UserVerification::Required && !data.user_verified() {
        return Err(Refused::UserNotVerified);
    }
    Ok(())
}
