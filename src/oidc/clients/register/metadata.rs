//! The client metadata of a registration (RFC 7591 2; OpenID Connect Dynamic Client
//! Registration 1.0, 2), read and checked: what Limette registers, and the refusals with
//! RFC 7591 3.2.2's codes. No HTTP here; `register` writes the RP and answers.
use crate::http::response::origin_of;
use crate::oidc::base;
use crate::oidc::keys::Alg;
use crate::oidc::settings::is_redirect_uri;
use crate::oidc::settings::logout::Logout;
use crate::oidc::settings::rp_keys::{parse_jwks, AuthMethod};
use serde_json::{json, Map, Value};

/// RFC 7591 3.2.2 error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegError {
    /// `invalid_redirect_uri`.
    RedirectUri,
    /// `invalid_client_metadata`.
    Metadata,
    /// `temporarily_unavailable` (RFC 6749 4.1.2.1's code; RFC 7591 3.2.2 allows others):
    /// over the address's registration rate, 429 with `Retry-After`.
    TooMany,
    /// `access_denied` (RFC 6749 4.1.2.1): the provider holds its most self-registered
    /// clients, 403.
    Full,
}

impl RegError {
    /// The wire code.
    pub fn as_str(self) -> &'static str {
        match self {
            RegError::RedirectUri => "invalid_redirect_uri",
            RegError::Metadata => "invalid_client_metadata",
            RegError::TooMany => "temporarily_unavailable",
            RegError::Full => "access_denied",
        }
    }

    /// The HTTP status of the answer.
    pub fn status(self) -> u16 {
        match self {
            RegError::RedirectUri | RegError::Metadata => 400,
            RegError::TooMany => 429,
            RegError::Full => 403,
        }
    }
}

/// The client metadata Limette registers.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// `redirect_uris` (required).
    pub redirect_uris: Vec<String>,
    /// `request_uris`: where its request objects may be fetched (`RequestUris`).
    pub request_uris: Vec<String>,
    /// `response_types` asked for (as given; `authorize` serves the flows the service allows).
    pub response_types: Vec<String>,
    /// `post_logout_redirect_uris`.
    pub post_logout_uris: Vec<String>,
    /// `client_name` (LemonLDAP::NG's default: "Self registered client").
    pub client_name: String,
    /// `logo_uri`.
    pub logo_uri: Option<String>,
    /// `id_token_signed_response_alg` (default RS256).
    pub id_alg: Alg,
    /// `userinfo_signed_response_alg`.
    pub userinfo_alg: Option<Alg>,
    /// `token_endpoint_auth_method` (unset: either secret method).
    pub auth_method: Option<AuthMethod>,
    /// `jwks`.
    pub jwks: Option<Value>,
    /// `jwks_uri` (`JwksUri`): where its keys are fetched (never with `jwks`: RFC 7591 2).
    pub jwks_uri: Option<String>,
    /// `request_object_signing_alg` (`RequestObjectSignAlg`; `none` allowed: OpenID Connect
    /// Dynamic Registration 2).
    pub request_object_alg: Option<Alg>,
    /// `grant_types` holds `refresh_token`.
    pub refresh: bool,
    /// `frontchannel_logout_uri` or `backchannel_logout_uri` and its flag (`logout`).
    pub logout: Option<Logout>,
    /// `require_auth_time` was asked (every ID token carries `auth_time`: honoured as is).
    pub auth_time: bool,
}

/// URIs a registration may give in each list (`redirect_uris`, `post_logout_redirect_uris`,
/// `request_uris`): every redirect origin is a `frame-ancestors` source of the check-session
/// page, whose header must stay small however many clients register.
pub const MAX_URIS: usize = 10;

/// A refusal: its code and what is wrong.
pub type Refusal = (RegError, String);

impl Metadata {
    /// Reads and checks the metadata (RFC 7591 2): what Limette understands but cannot honour
    /// is refused; unknown names, and the informational ones it does not keep, are ignored
    /// and left out of the answer (RFC 7591 2, 3.2.1).
    pub fn parse(m: &Map<String, Value>) -> std::result::Result<Metadata, Refusal> {
        let bad = |why: &str| (RegError::Metadata, why.to_string());
        let text = |k: &str| -> std::result::Result<Option<String>, Refusal> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(&format!("{k} is not a string"))),
            }
        };
        let list = |k: &str| -> std::result::Result<Vec<String>, Refusal> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(a)) if k.ends_with("_uris") && a.len() > MAX_URIS => {
                    Err(bad(&format!("{k} holds more than {MAX_URIS} URIs")))
                }
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad(&format!("{k} is not an array of strings"))),
                Some(_) => Err(bad(&format!("{k} is not an array"))),
            }
        };
        let alg = |k: &str| -> std::result::Result<Option<Alg>, Refusal> {
            match text(k)?.as_deref() {
                None => Ok(None),
                Some(name) => match Alg::parse(name) {
                    Some(Alg::None) | None => Err(bad(&format!("{k} {name} is not supported"))),
                    Some(a) => Ok(Some(a)),
                },
            }
        };
        // What Limette cannot honour is refused, not dropped.
        for (k, _) in m.iter().filter(|(_, v)| !v.is_null()) {
            let unsupported = k.contains("encrypted_response")
                || k.contains("encryption")
                || matches!(
                    k.as_str(),
                    "sector_identifier_uri" | "default_max_age" | "default_acr_values"
                );
            if unsupported {
                return Err(bad(&format!("{k} is not supported")));
            }
        }
        let redirect_uris = list("redirect_uris")?;
        if redirect_uris.is_empty() {
            return Err((RegError::RedirectUri, "redirect_uris is required".into()));
        }
        for u in &redirect_uris {
            if !is_registrable(u) {
                let why = format!(
                    "{u}: not an absolute http(s) URI with a plain host and without fragment"
                );
                return Err((RegError::RedirectUri, why));
            }
        }
        // The redirect URIs' origins are what the check-session page may be framed by; a
        // post-logout URI goes to one of them, never to another host.
        let origins: Vec<String> = redirect_uris.iter().filter_map(|u| origin_of(u)).collect();
        let post_logout_uris = list("post_logout_redirect_uris")?;
        if let Some(u) = post_logout_uris
            .iter()
            .find(|u| !is_registrable(u) || !origin_of(u).is_some_and(|o| origins.contains(&o)))
        {
            return Err(bad(&format!(
                "post_logout_redirect_uris: {u} is not an absolute http(s) URI on the origin \
                 of a redirect URI"
            )));
        }
        let logout = super::logout::parse(m, &origins)?;
        let auth_time = match m.get("require_auth_time") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad("require_auth_time is not a boolean")),
        };
        let request_uris = list("request_uris")?;
        // A fragment is allowed here (Dynamic Registration 2: the hash of the file's contents).
        let without_fragment = |u: &String| u.split('#').next().unwrap_or_default().to_string();
        if let Some(u) = request_uris
            .iter()
            .find(|u| !is_redirect_uri(&without_fragment(u)))
        {
            return Err(bad(&format!(
                "request_uris: {u} is not an absolute http(s) URI"
            )));
        }
        let mut response_types = list("response_types")?;
        if let Some(t) = response_types
            .iter()
            .find(|t| base::response::ResponseType::parse(t).is_none())
        {
            return Err(bad(&format!("response_types: {t} is not supported")));
        }
        if response_types.is_empty() {
            response_types.push("code".into());
        }
        let grants = list("grant_types")?;
        if let Some(g) = grants.iter().find(|g| {
            !matches!(
                g.as_str(),
                "authorization_code" | "refresh_token" | "implicit"
            )
        }) {
            return Err(bad(&format!("grant_types: {g} is not supported")));
        }
        if text("subject_type")?.is_some_and(|t| t != "public") {
            return Err(bad("subject_type: only public"));
        }
        let auth_method = match text("token_endpoint_auth_method")?.as_deref() {
            None => None,
            Some(name) => Some(AuthMethod::parse(name).ok_or_else(|| {
                bad(&format!(
                    "token_endpoint_auth_method {name} is not supported"
                ))
            })?),
        };
        if let Some(a) = alg("token_endpoint_auth_signing_alg")? {
            if !auth_method.is_some_and(|m| m.algorithms().contains(&a)) {
                return Err(bad(
                    "token_endpoint_auth_signing_alg does not fit the method",
                ));
            }
        }
        let jwks = match m.get("jwks") {
            None | Some(Value::Null) => None,
            Some(v) => {
                parse_jwks(v).map_err(|e| bad(&format!("jwks: {e}")))?;
                Some(v.clone())
            }
        };
        // RFC 7591 2: the keys by value or by reference, not both.
        let jwks_uri = text("jwks_uri")?;
        if jwks_uri.as_deref().is_some_and(|u| !is_redirect_uri(u)) {
            return Err(bad("jwks_uri is not an absolute http(s) URI"));
        }
        if jwks.is_some() && jwks_uri.is_some() {
            return Err(bad("jwks and jwks_uri must not both be present"));
        }
        let keyed = jwks.is_some() || jwks_uri.is_some();
        if auth_method == Some(AuthMethod::PrivateKeyJwt) && !keyed {
            return Err(bad("private_key_jwt needs jwks or jwks_uri"));
        }
        let request_object_alg = match text("request_object_signing_alg")?.as_deref() {
            None => None,
            Some(name) => match Alg::parse(name) {
                Some(a) if a.key_kind().is_some() && !keyed => {
                    return Err(bad(&format!(
                        "request_object_signing_alg {name} needs jwks or jwks_uri"
                    )))
                }
                Some(a) => Some(a),
                None => {
                    return Err(bad(&format!(
                        "request_object_signing_alg {name} is not supported"
                    )))
                }
            },
        };
        let logo_uri = text("logo_uri")?;
        if logo_uri.as_deref().is_some_and(|u| !is_redirect_uri(u)) {
            return Err(bad("logo_uri is not an absolute http(s) URI"));
        }
        let client_name = text("client_name")?.filter(|n| !n.trim().is_empty());
        if client_name
            .as_deref()
            .is_some_and(|n| n.len() > 256 || n.chars().any(char::is_control))
        {
            return Err(bad("client_name is too long or not printable"));
        }
        Ok(Metadata {
            redirect_uris,
            request_uris,
            response_types,
            post_logout_uris,
            client_name: client_name.unwrap_or_else(|| "Self registered client".into()),
            logo_uri,
            id_alg: alg("id_token_signed_response_alg")?.unwrap_or(Alg::RS256),
            userinfo_alg: alg("userinfo_signed_response_alg")?,
            auth_method,
            jwks,
            jwks_uri,
            request_object_alg,
            refresh: grants.iter().any(|g| g == "refresh_token"),
            logout,
            auth_time,
        })
    }

    /// The registration answer (RFC 7591 3.2.1): the credentials and what was registered.
    pub fn answer(&self, client_id: &str, secret: &str, now: i64) -> Value {
        let method = self.auth_method.unwrap_or(AuthMethod::ClientSecretBasic);
        let mut grants = vec!["authorization_code"];
        if self
            .response_types
            .iter()
            .any(|t| t.split(' ').any(|w| w == "token" || w == "id_token"))
        {
            grants.push("implicit");
        }
        if self.refresh {
            grants.push("refresh_token");
        }
        let mut a = json!({
            "client_id": client_id,
            "client_secret": secret,
            "client_id_issued_at": now,
            "client_secret_expires_at": 0,
            "client_name": self.client_name,
            "redirect_uris": self.redirect_uris,
            "id_token_signed_response_alg": self.id_alg.as_str(),
            "token_endpoint_auth_method": method.as_str(),
            "response_types": self.response_types,
            "grant_types": grants,
        });
        if let Value::Object(o) = &mut a {
            let mut put = |k: &str, v: Value| {
                o.insert(k.into(), v);
            };
            if let Some(l) = &self.logo_uri {
                put("logo_uri", json!(l));
            }
            if let Some(u) = self.userinfo_alg {
                put("userinfo_signed_response_alg", json!(u.as_str()));
            }
            if !self.post_logout_uris.is_empty() {
                put("post_logout_redirect_uris", json!(self.post_logout_uris));
            }
            if !self.request_uris.is_empty() {
                put("request_uris", json!(self.request_uris));
            }
            if let Some(j) = &self.jwks {
                put("jwks", j.clone());
            }
            if self.auth_time {
                put("require_auth_time", json!(true));
            }
            if let Some(u) = &self.jwks_uri {
                put("jwks_uri", json!(u));
            }
            if let Some(a) = self.request_object_alg {
                put("request_object_signing_alg", json!(a.as_str()));
            }
            if let Some(l) = &self.logout {
                super::logout::answer(l, o);
            }
        }
        a
    }
}

/// What a registration may give as a redirect or post-logout URI: [`is_redirect_uri`], and a
/// web origin a browser names the same way (a plain host and port: no user information, which
/// would show one host and reach another).
pub fn is_registrable(u: &str) -> bool {
    is_redirect_uri(u) && origin_of(u).is_some()
}

#[cfg(test)]
mod tests;
