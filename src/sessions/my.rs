//! The connected user's endpoints: `GET /session/my/<type>[/<key>]` (the exported attributes
//! of the user's SSO or persistent session), `DELETE /session/my` (logout), and `/mysession/`
//! with `?authorizationfor=<base64 url>` (the `locationRules` verdict) or `?whoami`. Without a
//! usable SSO cookie every route answers as the portal does (401 `"9"` in JSON, the login page
//! in HTML).
use super::{export, Settings};
use crate::app::App;
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::rules::location;
use crate::sso::SsoSession;
use crate::storage::{Kind, Session};
use crate::web::cookies;
use base64::Engine;
use serde_json::{json, Value};

/// Serves the connected user's endpoints; without a live session, `Error::SignIn` (the
/// portal's answer).
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let s = ctx.signed_in()?;
    if req.path == "/mysession" || req.path.starts_with("/mysession/") {
        let env = crate::rules::Env::from_request(
            req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            &req.ip(),
        );
        let value = mysession(conf, &s, &req.query_pairs(), &env)?;
        return Ok(Response::json(200, &value));
    }
    let parts = req.segments_after("/session/my");
    match (req.method, parts.as_slice()) {
        (Method::Delete, []) => {
            // An XHR answered in JSON: no page to load front-channel iframes in.
            crate::sso::logout(app, &s, crate::app::Reach::ServerOnly)?;
            Ok(Response::json(200, &json!({"result": 1})).with_cookies(&cookies::clear_sso(conf)))
        }
        (Method::Get | Method::Head, [kind, rest @ ..]) if rest.len() <= 1 => {
            let kind = Kind::from_rest(kind)
                .ok_or_else(|| Error::not_found("Unknown (or unconfigured) session type"))?;
            let target = own_session(app, kind, s)?;
            let value = my_attributes(
                &conf.area::<crate::sessions::Settings>(),
                &target,
                rest.first().map(String::as_str),
            );
            Ok(Response::json(200, &value))
        }
        (Method::Get | Method::Head | Method::Delete, _) => Err(Error::not_found("Not found")),
        _ => Err(Error::MethodNotAllowed),
    }
}

/// The user's session of that kind: the SSO session itself, or the persistent one named by
/// the MD5 of the `whatToTrace` value.
fn own_session(app: &App, kind: Kind, sso: SsoSession) -> Result<Session> {
    if kind != Kind::Persistent {
        return Ok(sso.into_map());
    }
    let id = crate::sso::persistent_id(&sso.trace());
    app.sessions(Kind::Persistent)
        .get(Kind::Persistent, &id)?
        .ok_or_else(|| Error::not_found("Session Id does not exist"))
}

/// The exported attributes (missing ones `null`), or one of them (`null` when it is missing
/// or not exported). Secret keys stay hidden unless `restExportSecretKeys`.
pub fn my_attributes(st: &Settings, s: &Session, key: Option<&str>) -> Value {
    let visible = export::without_secrets(s, &st.hidden, st.export_secret);
    let keys: Vec<String> = st
        .exported
        .iter()
        .filter(|k| st.export_secret || !st.hidden.contains(k))
        .cloned()
        .collect();
    let picked = export::pick(&visible, &keys);
    match key {
        None => Value::Object(picked),
        Some(k) => picked.get(k).cloned().unwrap_or(Value::Null),
    }
}

/// `/mysession/?authorizationfor=<base64 url>` -> `{"result":1|0}` (rules read `$ENV{...}`
/// from `env`, the request asking, as LemonLDAP::NG's portal does); `?whoami` ->
/// `{"result":"<whatToTrace>"}`.
pub fn mysession(
    conf: &Conf,
    s: &Session,
    query: &[(String, String)],
    env: &crate::rules::Env,
) -> Result<Value> {
    let param = |n: &str| query.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    if let Some(b64) = param("authorizationfor") {
        let url = decode_target(b64)?;
        let rules = conf.area::<location::Rules>();
        let allowed = location::authorize(&rules.0, &url, s, env);
        return Ok(json!({"result": i32::from(allowed)}));
    }
    if param("whoami").is_some() {
        let who = s
            .get("_whatToTrace")
            .or_else(|| s.get(&conf.what_to_trace))
            .map(crate::config::value_string)
            .unwrap_or_default();
        return Ok(json!({"result": who}));
    }
    Err(Error::bad("whoami or authorizationfor is required"))
}

/// Decodes the base64 URL of `authorizationfor` (standard or URL-safe alphabet).
fn decode_target(b64: &str) -> Result<location::Url> {
    let b64 = b64.trim();
    let ok = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_');
    if !b64.bytes().all(ok) {
        return Err(Error::bad("Value must be in BASE64"));
    }
    let unpadded = b64.trim_end_matches('=');
    let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(unpadded)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(unpadded))
        .map_err(|_| Error::bad("Value must be in BASE64"))?;
    let text = String::from_utf8_lossy(&bytes).to_string();
    location::Url::parse(&text).ok_or_else(|| {
        let shown: String = text.chars().filter(|c| !c.is_control()).take(200).collect();
        Error::bad(format!("Bad URL {shown}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    #[test]
    fn targets() {
        let u = decode_target(&STANDARD.encode("http://a.example.com/x")).unwrap();
        assert_eq!(u.host, "a.example.com");
        let msg = |e: Error| match e {
            Error::BadRequest(m) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            msg(decode_target("%%%").unwrap_err()),
            "Value must be in BASE64"
        );
        let e = decode_target(&STANDARD.encode("notanurl")).unwrap_err();
        assert_eq!(msg(e), "Bad URL notanurl");
        assert!(decode_target("A").is_err());
    }
}
