//! The authorization request, checked (OIDC Core 3.1.2.1, 3.1.2.2): the record `AuthRequest`
//! that consent, the implicit and hybrid flows and pushed requests read, the two stages of
//! `check` (an unknown client or redirect URI is never redirected, every later refusal is),
//! and what a code or token is issued for (`grant_record`). No session, no HTTP: the endpoint
//! in `authorize` asks for the user and answers.
use crate::error::{OAuthCode, PortalCode};
use crate::grants as store;
use crate::oidc::base::claims_request::ClaimsRequest;
use crate::oidc::base::response::{Flow, Mode, ResponseType};
use crate::oidc::base::{self, Params};
use crate::oidc::claims;
use crate::oidc::settings::{Rp, Settings};
use crate::storage::Session;
use crate::util;
use serde_json::{json, Value};

/// A checked authorization request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthRequest {
    /// The client's id.
    pub client_id: String,
    /// The registered redirect URI it named.
    pub redirect_uri: String,
    /// Requested scope, space-separated.
    pub scope: String,
    /// `state`, echoed back.
    pub state: Option<String>,
    /// `nonce`, put in the ID token.
    pub nonce: Option<String>,
    /// `prompt` values.
    pub prompt: Vec<String>,
    /// `max_age`, seconds.
    pub max_age: Option<i64>,
    /// PKCE challenge and method.
    pub pkce: Option<(String, String)>,
    /// What `response_type` asks for.
    pub response_type: ResponseType,
    /// Its flow.
    pub flow: Flow,
    /// Where the answer's parameters go.
    pub mode: Mode,
    /// The `claims` parameter (OIDC Core 5.5), once `answer` narrowed it to what may be
    /// released (`ClaimsRequest::allowed`).
    pub claims: Option<ClaimsRequest>,
}

/// Why a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not redirected: the client or its redirect URI cannot be trusted.
    Portal(PortalCode),
    /// Redirected to the client with `error` (+ `state`).
    Redirect(OAuthCode),
}

/// Checks the request against the relying parties (no session involved).
pub fn check<'a>(
    settings: &'a Settings,
    p: &Params,
) -> std::result::Result<(&'a Rp, AuthRequest), Refusal> {
    // Stage 1 (never redirected): who is asking, and where would the answer go.
    let rp = settings
        .rp(p.get("client_id").unwrap_or(""))
        .ok_or(Refusal::Portal(PortalCode::UnknownPartner))?;
    let redirect_uri = p
        .get("redirect_uri")
        .ok_or(Refusal::Portal(PortalCode::Error))?;
    if !rp.redirect_uris.iter().any(|u| u == redirect_uri) {
        return Err(Refusal::Portal(PortalCode::UnauthorizedUrl));
    }
    Ok((rp, request(settings, rp, redirect_uri, p)?))
}

/// Stage 2 of [`check`], once the redirect URI is known to be the client's: every refusal
/// from here on is redirected to it.
fn request(
    settings: &Settings,
    rp: &Rp,
    redirect_uri: &str,
    p: &Params,
) -> std::result::Result<AuthRequest, Refusal> {
    // Stage 2 (redirected): RFC 6749 4.1.1, OIDC Core 3.1.2.1, 3.2.2.1, 3.3.2.1, RFC 7636 4.3.
    // 0. Every parameter within its bound: nothing oversized is stored with the code.
    if p.oversized() {
        return Err(Refusal::Redirect(OAuthCode::InvalidRequest));
    }
    // 1. A flow the service serves (oidcServiceAllow...Flow), in a mode fit for it.
    let unsupported = Refusal::Redirect(OAuthCode::UnsupportedResponseType);
    let response_type = p
        .get("response_type")
        .and_then(ResponseType::parse)
        .ok_or(unsupported)?;
    let flow = response_type.flow().ok_or(unsupported)?;
    let served = match flow {
        Flow::Code => settings.flows.code,
        Flow::Implicit => settings.flows.implicit,
        Flow::Hybrid => settings.flows.hybrid,
    };
    if !served {
        return Err(unsupported);
    }
    let mode = Mode::pick(flow, p.get("response_mode")).map_err(Refusal::Redirect)?;
    // 2. A nonce whenever the authorization endpoint issues an ID token or tokens (OIDC Core
    //    3.2.2.1, 3.3.2.11): it is what binds them to the client's request.
    if flow != Flow::Code && p.get("nonce").is_none() {
        return Err(Refusal::Redirect(OAuthCode::InvalidRequest));
    }
    let scope = p
        .get("scope")
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if !scope.split(' ').any(|s| s == "openid") {
        return Err(Refusal::Redirect(OAuthCode::InvalidScope));
    }
    let max_age = match p.get("max_age") {
        None => None,
        Some(m) => Some(
            m.parse::<i64>()
                .ok()
                .filter(|m| *m >= 0)
                .ok_or(Refusal::Redirect(OAuthCode::InvalidRequest))?,
        ),
    };
    let method = p.get("code_challenge_method");
    let pkce = match p.get("code_challenge") {
        Some(c) if base::pkce::method_ok(method) => {
            Some((c.to_string(), method.unwrap_or("plain").to_string()))
        }
        None if !rp.require_pkce && method.is_none() => None,
        _ => return Err(Refusal::Redirect(OAuthCode::InvalidRequest)),
    };
    // 3. The claims parameter, when present, is well-formed JSON of Core 5.5's shape.
    let claims = match p.get("claims") {
        None => None,
        Some(text) => Some(
            ClaimsRequest::parse(text).map_err(|_| Refusal::Redirect(OAuthCode::InvalidRequest))?,
        ),
    };
    let prompt = p
        .get("prompt")
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let own = |k: &str| p.get(k).map(str::to_string);
    Ok(AuthRequest {
        client_id: rp.client_id.clone(),
        redirect_uri: redirect_uri.to_string(),
        scope,
        state: own("state"),
        nonce: own("nonce"),
        prompt,
        max_age,
        pkce,
        response_type,
        flow,
        mode,
        claims,
    })
}

/// What a code, or the tokens `authorize` issues itself, are issued for: the request (its
/// client, redirect URI, `scope`, nonce, PKCE challenge) and the user (session, the subject
/// this RP knows, authentication time and level).
pub fn grant_record(
    conf: &crate::config::Conf,
    rp: &Rp,
    ar: &AuthRequest,
    s: &Session,
    scope: &str,
    offline: bool,
) -> store::Record {
    let data = claims::data_for(s, &rp.client_id, &rp.name, &ar.scope);
    store::Record::from(store::CodeGrant {
        client_id: &ar.client_id,
        redirect_uri: &ar.redirect_uri,
        scope,
        nonce: ar.nonce.as_deref(),
        pkce: ar.pkce.as_ref().map(|(c, m)| (c.as_str(), m.as_str())),
        session_id: s.get("_session_id").cloned().unwrap_or(Value::Null),
        // `handle` refused a user without a subject before anything is issued.
        sub: rp.release.sub(&data).unwrap_or_default(),
        auth_time: s
            .get("_lastAuthnUTime")
            .cloned()
            .unwrap_or(json!(util::now())),
        acr: base::acr::of(conf, s),
        offline,
        claims: ar.claims.as_ref().map(ClaimsRequest::to_json),
    })
    .with_amr(&base::acr::amr(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        let rp = Rp {
            client_id: "c".into(),
            redirect_uris: vec!["http://rp/cb".into()],
            ..Rp::default()
        };
        Settings {
            enabled: true,
            rps: vec![rp],
            refresh_ttl: 10,
            flows: crate::oidc::settings::Flows {
                code: true,
                implicit: false,
                hybrid: false,
            },
            ..Settings::default()
        }
    }

    fn p(q: &str) -> Params {
        Params(util::parse_urlencoded(q))
    }

    #[test]
    fn stage_one_is_never_redirected() {
        let s = settings();
        let err = |q: &str| check(&s, &p(q)).err();
        assert_eq!(
            err("client_id=x&redirect_uri=http://rp/cb"),
            Some(Refusal::Portal(PortalCode::UnknownPartner))
        );
        assert_eq!(err("client_id=c"), Some(Refusal::Portal(PortalCode::Error)));
        assert_eq!(
            err("client_id=c&redirect_uri=http://evil/cb"),
            Some(Refusal::Portal(PortalCode::UnauthorizedUrl))
        );
    }

    #[test]
    fn stage_two_is_redirected() {
        let s = settings();
        let base = "client_id=c&redirect_uri=http://rp/cb";
        let err = |q: &str| check(&s, &p(&format!("{base}&{q}"))).err();
        assert_eq!(
            err("response_type=token&scope=openid"),
            Some(Refusal::Redirect(OAuthCode::UnsupportedResponseType))
        );
        // A flow the service does not serve.
        assert_eq!(
            err("response_type=id_token&scope=openid&nonce=n"),
            Some(Refusal::Redirect(OAuthCode::UnsupportedResponseType))
        );
        assert_eq!(
            err("response_type=code&scope=profile"),
            Some(Refusal::Redirect(OAuthCode::InvalidScope))
        );
        assert_eq!(
            err("response_type=code&scope=openid&max_age=x"),
            Some(Refusal::Redirect(OAuthCode::InvalidRequest))
        );
        let bad_pkce = "response_type=code&scope=openid&code_challenge=a&code_challenge_method=S1";
        assert_eq!(
            err(bad_pkce),
            Some(Refusal::Redirect(OAuthCode::InvalidRequest))
        );
        let (_, ar) = check(
            &s,
            &p(&format!(
                "{base}&response_type=code&scope=openid+email&foo=bar&state=s"
            )),
        )
        .unwrap();
        assert_eq!(
            (ar.scope.as_str(), ar.state.as_deref()),
            ("openid email", Some("s"))
        );
    }
}
