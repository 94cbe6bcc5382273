//! The logout channel a registration asks for (OpenID Connect Front-Channel Logout 1.0 §2.2,
//! Back-Channel Logout 1.0 §2.2): `frontchannel_logout_uri` or `backchannel_logout_uri`, and
//! its `..._session_required` flag, read into the RP's channel (`channels::Logout`) and written
//! as LemonLDAP::NG's options (`LogoutUrl`, `LogoutType` front or back,
//! `LogoutSessionRequired`). LemonLDAP::NG has one `LogoutUrl` per RP, so a client asking for
//! both channels is refused, as is a flag set without its URI: never dropped. The URI is an
//! absolute http(s) URI with a plain host and no fragment, on the origin of one of the
//! client's redirect URIs (§2.2 of both: "the domain, port, and scheme ... MUST be the same as
//! that of a registered Redirection URI", the same rule as post-logout URIs). No HTTP here.
use super::metadata::{is_registrable, Refusal, RegError};
use crate::http::response::origin_of;
use crate::oidc::settings::logout::{Channel, Logout};
use serde_json::{json, Map, Value};

/// The channel asked for, checked against the redirect URIs' `origins`; `None` when neither.
pub fn parse(m: &Map<String, Value>, origins: &[String]) -> Result<Option<Logout>, Refusal> {
    let bad = |why: String| (RegError::Metadata, why);
    let front = side(m, "frontchannel")?;
    let back = side(m, "backchannel")?;
    let (channel, (url, session_required)) = match (front, back) {
        (None, None) => return Ok(None),
        (Some(f), None) => (Channel::Front, f),
        (None, Some(b)) => (Channel::Back, b),
        (Some(_), Some(_)) => {
            return Err(bad(
                "frontchannel_logout_uri and backchannel_logout_uri: a relying \
                 party has one logout URL here (LogoutUrl); register one channel"
                    .into(),
            ))
        }
    };
    let on_origin = origin_of(&url).is_some_and(|o| origins.contains(&o));
    if !is_registrable(&url) || !on_origin {
        let name = name(channel);
        return Err(bad(format!(
            "{name}_logout_uri: {url} is not an absolute http(s) URI on the origin of a \
             redirect URI"
        )));
    }
    Ok(Some(Logout {
        url,
        channel,
        session_required,
    }))
}

/// The RP options (LemonLDAP::NG's names, without the `oidcRPMetaDataOptions` prefix).
pub fn options(l: &Logout) -> [(&'static str, Value); 3] {
    [
        ("LogoutUrl", json!(l.url)),
        ("LogoutType", json!(name_option(l.channel))),
        ("LogoutSessionRequired", json!(u8::from(l.session_required))),
    ]
}

/// The registration answer's fields (RFC 7591 3.2.1: what was registered).
pub fn answer(l: &Logout, o: &mut Map<String, Value>) {
    let name = name(l.channel);
    o.insert(format!("{name}_logout_uri"), json!(l.url));
    o.insert(
        format!("{name}_logout_session_required"),
        json!(l.session_required),
    );
}

/// One channel's URI and flag; `None` when its URI is absent. A flag set to true without its
/// URI is refused (it would be dropped); false is the default.
fn side(m: &Map<String, Value>, name: &str) -> Result<Option<(String, bool)>, Refusal> {
    let bad = |why: String| (RegError::Metadata, why);
    let uri_key = format!("{name}_logout_uri");
    let flag_key = format!("{name}_logout_session_required");
    let flag = match m.get(&flag_key) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad(format!("{flag_key} is not a boolean"))),
    };
    match m.get(&uri_key) {
        None | Some(Value::Null) if flag => Err(bad(format!("{flag_key} needs {uri_key}"))),
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(u)) => Ok(Some((u.clone(), flag))),
        Some(_) => Err(bad(format!("{uri_key} is not a string"))),
    }
}

/// The metadata names' prefix of a channel.
fn name(c: Channel) -> &'static str {
    match c {
        Channel::Front => "frontchannel",
        Channel::Back => "backchannel",
    }
}

/// `LogoutType`'s value.
fn name_option(c: Channel) -> &'static str {
    match c {
        Channel::Front => "front",
        Channel::Back => "back",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_with(v: Value) -> Result<Option<Logout>, RegError> {
        parse(v.as_object().unwrap(), &["http://rp".to_string()]).map_err(|(c, _)| c)
    }

    #[test]
    fn one_channel_on_a_redirect_origin() {
        assert_eq!(parse_with(json!({})), Ok(None));
        let front = parse_with(json!({"frontchannel_logout_uri": "http://rp/out?x=1",
            "frontchannel_logout_session_required": true}))
        .unwrap()
        .unwrap();
        assert_eq!(
            (front.channel, front.session_required),
            (Channel::Front, true)
        );
        let back = parse_with(json!({"backchannel_logout_uri": "http://rp/bc"}))
            .unwrap()
            .unwrap();
        assert_eq!(
            (back.channel, back.session_required),
            (Channel::Back, false)
        );
        let o = options(&back);
        assert_eq!(o[1], ("LogoutType", json!("back")));
        assert_eq!(o[2], ("LogoutSessionRequired", json!(0)));
        let mut a = Map::new();
        answer(&front, &mut a);
        assert_eq!(a["frontchannel_logout_uri"], "http://rp/out?x=1");
        assert_eq!(a["frontchannel_logout_session_required"], true);
        let meta = Err(RegError::Metadata);
        for bad in [
            json!({"frontchannel_logout_uri": "http://rp/f", "backchannel_logout_uri": "http://rp/b"}),
            json!({"frontchannel_logout_uri": "http://evil/f"}),
            json!({"backchannel_logout_uri": "https://rp/b"}),
            json!({"backchannel_logout_uri": "http://rp:81/b"}),
            json!({"backchannel_logout_uri": "http://rp/b#f"}),
            json!({"backchannel_logout_uri": "http://u@rp/b"}),
            json!({"backchannel_logout_uri": "javascript:alert(1)"}),
            json!({"backchannel_logout_uri": 5}),
            json!({"backchannel_logout_session_required": true}),
            json!({"frontchannel_logout_uri": "http://rp/f",
                "frontchannel_logout_session_required": "yes"}),
        ] {
            assert_eq!(parse_with(bad.clone()), meta, "{bad}");
        }
        assert_eq!(
            parse_with(json!({"frontchannel_logout_session_required": false})),
            Ok(None)
        );
    }
}
