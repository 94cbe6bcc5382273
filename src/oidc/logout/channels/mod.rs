//! The logout channels: when an SSO session ends, however it ends (the hook the top registers
//! on `App`, run by `sso::logout` and `sso::end`), every relying party it was used with
//! (`sso::connected_rps`) that has a `LogoutUrl` hears of it.
//!
//! - Front-channel (OpenID Connect Front-Channel Logout 1.0): where a browser shows the page
//!   that ends the session, that page loads the RP's URL in a hidden iframe, with `iss` and
//!   `sid` (section 2) when the RP sets `LogoutSessionRequired`. LemonLDAP::NG 2.16 sends the
//!   RP's user id as `sid`; the specification's `sid` is the one of the ID tokens
//!   (`sso::oidc_sid`), which is what Limette sends. Without a browser nothing can be done.
//! - Back-channel (OpenID Connect Back-Channel Logout 1.0, which LemonLDAP::NG 2.16 leaves as a
//!   "TODO"): a logout token (section 2.4) signed as the RP's ID tokens, POSTed as
//!   `logout_token=...` (section 2.5) through the one outbound client and its guard
//!   (`outboundAllowTo`). The session's end only queues the notices (`queue`): sender threads
//!   off the request path post them, with retries, a cap, and failures logged with the RP's
//!   name and never the token; a logout never waits for a relying party.
//!
//! The three options are parsed with the settings (`settings::logout`).
use crate::app::{App, Reach};
use crate::config::Conf;
use crate::log;
use crate::oidc::settings::logout::Channel;
use crate::oidc::settings::{Rp, Settings};
use crate::storage::Session;
use crate::util;
use serde_json::{json, Map, Value};

mod queue;
use crate::oidc::base;
pub use queue::flush;
use queue::Notice;

/// Lifetime of a logout token: it is used at once (section 2.4: "SHOULD be short").
const TOKEN_TTL: i64 = 120;
/// The `events` member of a logout token (section 2.4).
pub const EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";

/// The session-end hook (`app::Checks::ended`): sends the back-channel logout tokens and
/// returns the front-channel URLs the page must load (none unless `reach` is a browser).
pub fn session_ended(_app: &App, conf: &Conf, s: &Session, reach: Reach) -> Vec<String> {
    let settings = conf.area::<Settings>();
    let names = crate::sso::connected_rps(s);
    let rps = names
        .iter()
        .filter_map(|n| settings.rps.iter().find(|rp| rp.name == *n));
    let id = s.get("_session_id").and_then(Value::as_str).unwrap_or("");
    let iss = base::issuer(conf);
    let sid = crate::sso::oidc_sid(&conf.key, id);
    let mut frames = Vec::new();
    for rp in rps {
        let Some(out) = &rp.logout else { continue };
        match (out.channel, reach) {
            (Channel::Front, Reach::Browser) => frames.push(front_url(rp, &iss, &sid)),
            (Channel::Front, Reach::ServerOnly) => {}
            (Channel::Back, _) => {
                let sub = base::subject(s);
                let claims = logout_claims(rp, &iss, &sub, &sid, util::now());
                match base::sign_for(&settings, rp, rp.id_alg, "logout+jwt", &claims) {
                    Ok(token) => queue::push(Notice {
                        rp: rp.name.clone(),
                        url: out.url.clone(),
                        token,
                    }),
                    Err(e) => log::warn(&format!(
                        "back-channel logout of relying party {}: no logout token ({e})",
                        rp.name
                    )),
                }
            }
        }
    }
    frames
}

/// The front-channel URL of an RP: its `LogoutUrl`, with `iss` and `sid` when it sets
/// `LogoutSessionRequired` (Front-Channel Logout 1.0, section 2).
pub fn front_url(rp: &Rp, iss: &str, sid: &str) -> String {
    match &rp.logout {
        Some(l) if l.session_required => base::with_params(&l.url, &[("iss", iss), ("sid", sid)]),
        Some(l) => l.url.clone(),
        None => String::new(),
    }
}

/// The claims of a logout token (Back-Channel Logout 1.0, section 2.4): `iss`, `aud`, `iat`,
/// `exp`, a random `jti`, `events`, `sub`, `sid` when the RP sets `LogoutSessionRequired`;
/// never `nonce` (section 2.4: "MUST NOT").
pub fn logout_claims(rp: &Rp, iss: &str, sub: &str, sid: &str, now: i64) -> Map<String, Value> {
    let mut c = Map::new();
    c.insert("iss".into(), json!(iss));
    c.insert("aud".into(), json!(rp.client_id));
    c.insert("iat".into(), json!(now));
    c.insert("exp".into(), json!(now + TOKEN_TTL));
    c.insert("jti".into(), json!(util::random_hex(16)));
    c.insert("events".into(), json!({ EVENT: {} }));
    c.insert("sub".into(), json!(sub));
    if rp.logout.as_ref().is_some_and(|l| l.session_required) {
        c.insert("sid".into(), json!(sid));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::settings::logout::Logout;

    fn rp(channel: Channel, session_required: bool) -> Rp {
        Rp {
            client_id: "c".into(),
            logout: Some(Logout {
                url: "http://rp/out?x=1".into(),
                channel,
                session_required,
            }),
            ..Rp::default()
        }
    }

    #[test]
    fn front_url_carries_iss_and_sid_only_when_required() {
        let with = rp(Channel::Front, true);
        assert_eq!(
            front_url(&with, "http://p/", "abc"),
            "http://rp/out?x=1&iss=http%3A%2F%2Fp%2F&sid=abc"
        );
        assert_eq!(
            front_url(&rp(Channel::Front, false), "http://p/", "abc"),
            "http://rp/out?x=1"
        );
    }

    #[test]
    fn logout_claims_follow_section_2_4() {
        let c = logout_claims(&rp(Channel::Back, true), "http://p/", "dwho", "abc", 100);
        assert_eq!(c["iss"], "http://p/");
        assert_eq!(c["aud"], "c");
        assert_eq!(
            (c["iat"].as_i64(), c["exp"].as_i64()),
            (Some(100), Some(220))
        );
        assert_eq!(c["events"], json!({ EVENT: {} }));
        assert_eq!(
            (c["sub"].as_str(), c["sid"].as_str()),
            (Some("dwho"), Some("abc"))
        );
        assert!(!c.contains_key("nonce"));
        let other = logout_claims(&rp(Channel::Back, true), "http://p/", "dwho", "abc", 100);
        assert_ne!(c["jti"], other["jti"]);
        let no_sid = logout_claims(&rp(Channel::Back, false), "http://p/", "dwho", "abc", 100);
        assert!(!no_sid.contains_key("sid"));
    }
}
