//! `GET|POST /oauth2/logout` (OpenID Connect RP-Initiated Logout 1.0): ends the SSO session
//! and goes back to the RP's registered `post_logout_redirect_uri` with its `state`. The RP is
//! known from `id_token_hint` (verified with its algorithm: HS* with its secret in constant
//! time, the others with the published key its `kid` names; issuer checked) or
//! `client_id`. A forged hint or an unregistered URI is refused before anything is ended.
use super::{jwt, Params, Rp, Settings};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Request, Response};
use crate::sso::CookieState;
use crate::web::{self, cookies};
use serde_json::{json, Value};

/// `/oauth2/logout`.
pub fn handle(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let p = super::params(req);
    let target = destination(
        &conf.area::<crate::oidc::Settings>(),
        &super::issuer(conf),
        &p,
    )
    .map_err(Error::bad)?;
    if let CookieState::Valid(s) =
        crate::sso::from_cookie(app, conf, crate::web::cookies::sso_id(conf, req).as_deref())?
    {
        crate::sso::logout(app, &s)?;
    }
    let resp = match target {
        Some(url) => Response::redirect(&url),
        None if req.wants_json() => Response::json(200, &json!({"result": 1})),
        None => Response::html(
            200,
            web::layout(
                "Limette",
                "<h1>Limette</h1>\n<p id=\"loggedout\">You are signed out.</p>",
            ),
        ),
    };
    Ok(resp.with_cookie(&cookies::clear_sso(conf)))
}

/// Where to send the browser afterwards, `None` for the portal's own page. Errors are shown.
pub fn destination(
    settings: &Settings,
    iss: &str,
    p: &Params,
) -> std::result::Result<Option<String>, String> {
    if p.oversized() {
        return Err("A parameter is too long".into());
    }
    let rp = match p.get("id_token_hint") {
        Some(hint) => Some(check_hint(settings, iss, hint)?),
        None => p
            .get("client_id")
            .map(|c| settings.rp(c).ok_or("Unknown client_id"))
            .transpose()?,
    };
    let Some(uri) = p.get("post_logout_redirect_uri") else {
        return Ok(None);
    };
    let rp = rp.ok_or("post_logout_redirect_uri needs id_token_hint or client_id")?;
    if !rp.post_logout_uris.iter().any(|u| u == uri) {
        return Err("post_logout_redirect_uri is not registered".into());
    }
    let state: Vec<(&str, &str)> = p
        .get("state")
        .map(|s| vec![("state", s)])
        .unwrap_or_default();
    Ok(Some(super::with_params(uri, &state)))
}

/// The RP that an ID token names, once its MAC (with that RP's secret) and issuer check out.
/// Expiry is not checked: logout hints are often old (RP-Initiated Logout 1.0, section 2).
fn check_hint<'a>(
    settings: &'a Settings,
    iss: &str,
    hint: &str,
) -> std::result::Result<&'a Rp, String> {
    let bad = || "Invalid id_token_hint".to_string();
    let unverified = jwt::peek_claims(hint).ok_or_else(bad)?;
    let azp = unverified.get("azp").and_then(Value::as_str);
    let aud = unverified
        .get("aud")
        .and_then(|a| a.get(0).or(Some(a)))
        .and_then(Value::as_str);
    let rp = azp.or(aud).and_then(|c| settings.rp(c)).ok_or_else(bad)?;
    // Verified with the RP's own algorithm, pinned: HS* with its secret, the others with
    // whichever published key (current or retired) the header's kid names.
    let key = match rp.id_alg.key_kind() {
        Some(_) => {
            let header = jwt::peek_header(hint).ok_or_else(bad)?;
            let kid = header.get("kid").and_then(Value::as_str).ok_or_else(bad)?;
            jwt::VerifyKey::Public(
                settings
                    .keys
                    .find(kid, crate::util::now())
                    .ok_or_else(bad)?,
            )
        }
        None => jwt::VerifyKey::Secret(rp.secret.expose()),
    };
    let claims = jwt::verify(hint, rp.id_alg, key).map_err(|_| bad())?;
    if claims.get("iss").and_then(Value::as_str) != Some(iss) {
        return Err(bad());
    }
    Ok(rp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oidc::settings::Secret;
    use serde_json::Map;

    fn settings() -> Settings {
        let rp = Rp {
            client_id: "c".into(),
            secret: Secret::new("s"),
            post_logout_uris: vec!["http://rp/bye".into()],
            ..Rp::default()
        };
        Settings {
            enabled: true,
            rps: vec![rp],
            refresh_ttl: 1,
            ..Settings::default()
        }
    }

    fn hint(key: &[u8], iss: &str) -> String {
        let mut c = Map::new();
        c.insert("iss".into(), json!(iss));
        c.insert("aud".into(), json!(["c"]));
        jwt::sign_hs256(&c, key)
    }

    #[test]
    fn checks_hint_and_registration() {
        let s = settings();
        let q = |h: &str, uri: &str| {
            Params(vec![
                ("id_token_hint".into(), h.into()),
                ("post_logout_redirect_uri".into(), uri.into()),
                ("state".into(), "x".into()),
            ])
        };
        let good = hint(b"s", "http://p/");
        assert_eq!(
            destination(&s, "http://p/", &q(&good, "http://rp/bye")),
            Ok(Some("http://rp/bye?state=x".into()))
        );
        assert!(destination(&s, "http://p/", &q(&good, "http://evil/")).is_err());
        assert!(destination(
            &s,
            "http://p/",
            &q(&hint(b"forged", "http://p/"), "http://rp/bye")
        )
        .is_err());
        assert!(destination(
            &s,
            "http://p/",
            &q(&hint(b"s", "http://other/"), "http://rp/bye")
        )
        .is_err());
        assert_eq!(destination(&s, "http://p/", &Params::default()), Ok(None));
    }
}
