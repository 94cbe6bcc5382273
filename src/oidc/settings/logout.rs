//! The logout options of a relying party (`LogoutUrl`, `LogoutType`, `LogoutSessionRequired`),
//! parsed with its settings (`parse`): the record the logout channels (`logout::channels`) and
//! registration (`clients::register`) read. Sending the notices is not here.
use crate::config::value_string;
use crate::oidc::keys::Alg;
use crate::oidc::options::{flag, key, reason};
use serde_json::{Map, Value};

/// How a relying party hears of the end of a session it was used in (`LogoutUrl`,
/// `LogoutType`, `LogoutSessionRequired`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logout {
    /// `oidcRPMetaDataOptionsLogoutUrl`: an http(s) URL.
    pub url: String,
    /// `oidcRPMetaDataOptionsLogoutType`.
    pub channel: Channel,
    /// `oidcRPMetaDataOptionsLogoutSessionRequired`: `iss` and `sid` on the front-channel
    /// URL, `sid` in the logout token.
    pub session_required: bool,
}

/// `oidcRPMetaDataOptionsLogoutType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// `front` (LemonLDAP::NG's default): an iframe on the page that ends the session
    /// (OpenID Connect Front-Channel Logout 1.0).
    Front,
    /// `back`: a logout token POSTed by the portal (OpenID Connect Back-Channel Logout 1.0).
    Back,
}

/// The RP's logout channel. `LogoutType` other than `front` or `back` disables the RP (as
/// would a URL that is not http(s)); a back-channel logout token must be signed (Back-Channel
/// Logout 1.0, section 2.6), so `back` with `IDTokenSignAlg = none` disables it too.
pub fn parse(o: &Map<String, Value>, id_alg: Alg) -> Result<Option<Logout>, String> {
    let v = |k: &str| o.get(&key(k)).cloned().unwrap_or(Value::Null);
    let channel = match value_string(&v("LogoutType")).trim() {
        "" | "front" => Channel::Front,
        "back" => Channel::Back,
        _ => {
            return Err(reason(
                &key("LogoutType"),
                &v("LogoutType"),
                "front or back",
            ))
        }
    };
    let session_required = flag(o, "LogoutSessionRequired")?;
    let url = value_string(&v("LogoutUrl")).trim().to_string();
    if url.is_empty() {
        return Ok(None);
    }
    let clean = !url.bytes().any(|b| b.is_ascii_control() || b == b' ');
    if !clean || crate::http::response::origin_of(&url).is_none() {
        return Err(reason(
            &key("LogoutUrl"),
            &v("LogoutUrl"),
            "an http or https URL",
        ));
    }
    if channel == Channel::Back && id_alg == Alg::None {
        let why = "back-channel logout tokens must be signed: IDTokenSignAlg none cannot sign them";
        return Err(reason(&key("LogoutType"), &v("LogoutType"), why));
    }
    Ok(Some(Logout {
        url,
        channel,
        session_required,
    }))
}
