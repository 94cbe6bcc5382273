//! The browser's `clientDataJSON` (§5.8.1): its type, challenge and origin checked against
//! what the ceremony expects (§7.1 steps 5 to 10, §7.2 steps 9 to 14).
use super::{Expected, Refused};
use crate::util::ct_eq;
use serde::Deserialize;

/// The members checked; the others (`topOrigin`, extensions of browsers) are ignored, as the
/// specification asks.
#[derive(Deserialize)]
struct ClientData {
    #[serde(rename = "type")]
    kind: String,
    challenge: String,
    origin: String,
    #[serde(rename = "crossOrigin", default)]
    cross_origin: Option<bool>,
    #[serde(rename = "tokenBinding", default)]
    token_binding: Option<TokenBinding>,
}

#[derive(Deserialize)]
struct TokenBinding {
    status: String,
}

/// Checks `raw` (the bytes the browser sent, which the signatures cover) for the ceremony
/// `kind` (`webauthn.create` or `webauthn.get`).
pub fn check(raw: &[u8], kind: &str, exp: &Expected) -> Result<(), Refused> {
    // UTF-8 decode, then parse (§7.1 steps 5 and 6).
    let cd: ClientData = serde_json::from_slice(raw)
        .map_err(|e| Refused::Malformed("clientDataJSON", e.to_string()))?;
    // Step 7: the type.
    if cd.kind != kind {
        return Err(Refused::Type(cd.kind));
    }
    // Step 8: the challenge, base64url as issued.
    if exp.challenge.is_empty() || !ct_eq(cd.challenge.as_bytes(), exp.challenge.as_bytes()) {
        return Err(Refused::Challenge);
    }
    // Step 9: the origin, exactly the portal's.
    if cd.origin != exp.rp.origin {
        return Err(Refused::Origin(cd.origin));
    }
    // The portal is never framed by another origin.
    if cd.cross_origin == Some(true) {
        return Err(Refused::Context("a cross-origin ceremony"));
    }
    // Step 10: Limette's connections carry no token binding, so a client that says it used
    // one is not talking to this portal.
    if cd.token_binding.is_some_and(|tb| tb.status == "present") {
        return Err(Refused::Context("token binding"));
    }
    Ok(())
}
