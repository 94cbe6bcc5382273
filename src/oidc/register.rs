//! `POST /oauth2/register`: dynamic client registration (RFC 7591; OpenID Connect Dynamic
//! Client Registration 1.0) when `oidcServiceAllowDynamicRegistration` is 1, as LemonLDAP::NG's
//! `registration`: the new relying party `register-<time>` gets a random client id and secret,
//! `DisplayName`, `Icon`, `IDTokenSignAlg` (default RS256), `RedirectUris`, `UserInfoSignAlg`,
//! the service's `oidcServiceDynamicRegistrationExportedVars` and `...ExtraClaims`, and is saved
//! as a new configuration (`storage::save`, with `cfgAuthor` "OpenID Connect Registration
//! (<name>)" and the caller's address), then put in force at once.
//!
//! Open to anyone when on (no initial access token, as LemonLDAP::NG): anybody may then add
//! relying parties and configuration versions, which is why it is off by default. Off, the path
//! is unknown (404; LemonLDAP::NG answers a bare server error).
//!
//! Stricter than LemonLDAP::NG, as RFC 7591 2 and 3.2.2 say: redirect URIs are absolute
//! http(s) URIs without fragment (`invalid_redirect_uri`); `none` is never accepted as an
//! algorithm; what Limette cannot honour (encryption, `jwks_uri`, request objects, other
//! response or grant types) is `invalid_client_metadata`, never silently dropped. The answer
//! carries `client_secret_expires_at` (RFC 7591 3.2.1; LemonLDAP::NG writes
//! `client_id_expires_at`). `token_endpoint_auth_method` and `jwks` are kept (a Limette
//! extension under later LemonLDAP::NG's option names).
use super::jwt::Alg;
use super::rp_keys::{parse_jwks, AuthMethod};
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use crate::storage::save;
use serde_json::{json, Map, Value};
use std::sync::Mutex;

/// One registration at a time in this process: each reads the latest configuration and saves
/// the next, so two at once would lose one of the new RPs.
static SAVING: Mutex<()> = Mutex::new(());

/// RFC 7591 3.2.2 error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegError {
    /// `invalid_redirect_uri`.
    RedirectUri,
    /// `invalid_client_metadata`.
    Metadata,
}

impl RegError {
    /// The wire code.
    pub fn as_str(self) -> &'static str {
        match self {
            RegError::RedirectUri => "invalid_redirect_uri",
            RegError::Metadata => "invalid_client_metadata",
        }
    }
}

/// The client metadata Limette registers.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// `redirect_uris` (required).
    pub redirect_uris: Vec<String>,
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
    /// `grant_types` holds `refresh_token`.
    pub refresh: bool,
}

type Refusal = (RegError, String);

/// `/oauth2/register`.
pub fn handle(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    if !conf.get_bool("oidcServiceAllowDynamicRegistration") {
        return Err(Error::not_found("Not found"));
    }
    if req.method != Method::Post {
        return Err(Error::OnlyMethods("POST"));
    }
    let ip = req.ip();
    // As LemonLDAP::NG: a notice per request, so that floods show in the log.
    crate::log::notice(&format!("OpenID Connect registration request from {ip}"));
    let body = match serde_json::from_slice::<Value>(&req.body) {
        Ok(Value::Object(m)) => m,
        _ => return Ok(refused(RegError::Metadata, "the body is not a JSON object")),
    };
    let meta = match Metadata::parse(&body) {
        Ok(m) => m,
        Err((code, why)) => return Ok(refused(code, &why)),
    };
    let _one = SAVING
        .lock()
        .map_err(|_| Error::internal("registration lock poisoned"))?;
    let (client_id, secret) = (crate::util::random_hex(16), crate::util::random_hex(24));
    let now = crate::util::now();
    let Some(latest) = app.confs.latest()? else {
        return Err(Error::internal("no configuration to register into"));
    };
    let mut doc = app.confs.load(latest)?;
    let name = rp_name(&doc, now);
    add_rp(&mut doc, &name, &meta, &client_id, &secret);
    super::keygen::complete(&mut doc).map_err(Error::internal)?;
    // The new RP must load as it is: one the portal would disable is refused now.
    let parsed = super::Settings::from_conf(&crate::config::defaults::merged(&doc))
        .map_err(Error::internal)?;
    if let Some(d) = parsed.disabled.iter().find(|d| d.name == name) {
        return Ok(refused(RegError::Metadata, &d.reason));
    }
    let author = save::Author {
        name: format!("OpenID Connect Registration ({})", meta.client_name),
        ip,
        log: format!("dynamic registration of {name} (client {client_id})"),
    };
    let num = save::save_new(app.confs.as_ref(), &doc, &author)?;
    app.reload_if_newer()?;
    crate::log::notice(&format!(
        "relying party {name} registered (client {client_id}), configuration {num}"
    ));
    Ok(Response::json(201, &meta.answer(&client_id, &secret, now)))
}

impl Metadata {
    /// Reads and checks the metadata (RFC 7591 2); unknown names are ignored (RFC 7591 2).
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
                    "jwks_uri" | "request_uris" | "sector_identifier_uri"
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
            if !is_redirect_uri(u) {
                let why = format!("{u}: not an absolute http(s) URI without fragment");
                return Err((RegError::RedirectUri, why));
            }
        }
        let post_logout_uris = list("post_logout_redirect_uris")?;
        if let Some(u) = post_logout_uris.iter().find(|u| !is_redirect_uri(u)) {
            return Err(bad(&format!(
                "post_logout_redirect_uris: {u} is not an absolute http(s) URI"
            )));
        }
        if list("response_types")?.iter().any(|t| t != "code") {
            return Err(bad("response_types: only code"));
        }
        let grants = list("grant_types")?;
        if let Some(g) = grants
            .iter()
            .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
        {
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
        if auth_method == Some(AuthMethod::PrivateKeyJwt) && jwks.is_none() {
            return Err(bad("private_key_jwt needs jwks"));
        }
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
            post_logout_uris,
            client_name: client_name.unwrap_or_else(|| "Self registered client".into()),
            logo_uri,
            id_alg: alg("id_token_signed_response_alg")?.unwrap_or(Alg::RS256),
            userinfo_alg: alg("userinfo_signed_response_alg")?,
            auth_method,
            jwks,
            refresh: grants.iter().any(|g| g == "refresh_token"),
        })
    }

    /// The registration answer (RFC 7591 3.2.1): the credentials and what was registered.
    pub fn answer(&self, client_id: &str, secret: &str, now: i64) -> Value {
        let method = self.auth_method.unwrap_or(AuthMethod::ClientSecretBasic);
        let mut grants = vec!["authorization_code"];
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
            "response_types": ["code"],
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
            if let Some(j) = &self.jwks {
                put("jwks", j.clone());
            }
        }
        a
    }
}

/// An absolute http(s) URI with a host, no fragment, no whitespace (RFC 7591 2; the option
/// is space-separated).
fn is_redirect_uri(u: &str) -> bool {
    let rest = u
        .strip_prefix("https://")
        .or_else(|| u.strip_prefix("http://"));
    let host_ok = rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'));
    host_ok && !u.contains('#') && !u.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `register-<time>` as LemonLDAP::NG names it, with a suffix when that name is taken.
fn rp_name(doc: &Map<String, Value>, now: i64) -> String {
    let taken = |n: &str| {
        doc.get("oidcRPMetaDataOptions")
            .and_then(|o| o.get(n))
            .is_some()
    };
    let base = format!("register-{now}");
    let mut name = base.clone();
    let mut i = 2;
    while taken(&name) {
        name = format!("{base}-{i}");
        i += 1;
    }
    name
}

/// Writes the RP into the configuration document, as LemonLDAP::NG's `registration`.
fn add_rp(doc: &mut Map<String, Value>, name: &str, m: &Metadata, client_id: &str, secret: &str) {
    let k = |s: &str| format!("oidcRPMetaDataOptions{s}");
    let mut o = Map::new();
    o.insert(k("ClientID"), json!(client_id));
    o.insert(k("ClientSecret"), json!(secret));
    o.insert(k("DisplayName"), json!(m.client_name));
    if let Some(l) = &m.logo_uri {
        o.insert(k("Icon"), json!(l));
    }
    o.insert(k("IDTokenSignAlg"), json!(m.id_alg.as_str()));
    o.insert(k("RedirectUris"), json!(m.redirect_uris.join(" ")));
    if let Some(a) = m.userinfo_alg {
        o.insert(k("UserInfoSignAlg"), json!(a.as_str()));
    }
    if !m.post_logout_uris.is_empty() {
        o.insert(
            k("PostLogoutRedirectUris"),
            json!(m.post_logout_uris.join(" ")),
        );
    }
    if m.refresh {
        o.insert(k("RefreshToken"), json!(1));
    }
    if let Some(a) = m.auth_method {
        o.insert(k("AuthMethod"), json!(a.as_str()));
    }
    if let Some(j) = &m.jwks {
        o.insert(k("Jwks"), json!(j.to_string()));
    }
    let service = |key: &str| match doc.get(key) {
        Some(Value::Object(v)) => Some(Value::Object(v.clone())),
        _ => None,
    };
    let vars = service("oidcServiceDynamicRegistrationExportedVars").unwrap_or(json!({}));
    let claims = service("oidcServiceDynamicRegistrationExtraClaims");
    let mut beside = |key: &str, v: Value| {
        if let Value::Object(all) = doc.entry(key).or_insert_with(|| json!({})) {
            all.insert(name.to_string(), v);
        }
    };
    beside("oidcRPMetaDataOptions", Value::Object(o));
    beside("oidcRPMetaDataExportedVars", vars);
    if let Some(c) = claims {
        beside("oidcRPMetaDataOptionsExtraClaims", c);
    }
}

/// An RFC 7591 3.2.2 error answer: 400, JSON, not cached.
fn refused(code: RegError, why: &str) -> Response {
    crate::log::info(&format!("registration refused: {}: {why}", code.as_str()));
    Response::json(
        400,
        &json!({"error": code.as_str(), "error_description": why}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> std::result::Result<Metadata, RegError> {
        Metadata::parse(v.as_object().unwrap()).map_err(|(c, _)| c)
    }

    #[test]
    fn metadata_checked_as_rfc_7591() {
        let ok = parse(json!({"redirect_uris": ["https://rp/cb"], "unknown": 1})).unwrap();
        assert_eq!((ok.id_alg, ok.auth_method), (Alg::RS256, None));
        assert_eq!(ok.client_name, "Self registered client");
        let uri = RegError::RedirectUri;
        assert_eq!(parse(json!({})), Err(uri));
        assert_eq!(parse(json!({"redirect_uris": []})), Err(uri));
        for u in [
            "/cb",
            "ftp://rp/cb",
            "https://rp/cb#x",
            "https://rp/a b",
            "https://",
            "http:///x",
        ] {
            assert_eq!(parse(json!({"redirect_uris": [u]})), Err(uri), "{u}");
        }
        let meta = RegError::Metadata;
        let with = |k: &str, v: Value| {
            let mut m = json!({"redirect_uris": ["http://rp/cb"]});
            m[k] = v;
            parse(m)
        };
        assert_eq!(with("redirect_uris", json!("http://rp/cb")), Err(meta));
        assert_eq!(
            with("id_token_signed_response_alg", json!("none")),
            Err(meta)
        );
        assert_eq!(
            with("userinfo_signed_response_alg", json!("none")),
            Err(meta)
        );
        assert_eq!(
            with("id_token_signed_response_alg", json!("PS256")),
            Err(meta)
        );
        assert_eq!(with("token_endpoint_auth_method", json!("none")), Err(meta));
        assert_eq!(
            with("token_endpoint_auth_method", json!("private_key_jwt")),
            Err(meta)
        );
        assert_eq!(with("jwks_uri", json!("https://rp/jwks")), Err(meta));
        assert_eq!(with("request_uris", json!(["https://rp/r"])), Err(meta));
        assert_eq!(
            with("id_token_encrypted_response_alg", json!("RSA-OAEP")),
            Err(meta)
        );
        assert_eq!(
            with("response_types", json!(["code", "id_token"])),
            Err(meta)
        );
        assert_eq!(with("grant_types", json!(["implicit"])), Err(meta));
        assert_eq!(with("jwks", json!({"keys": "x"})), Err(meta));
        assert_eq!(with("client_name", json!(5)), Err(meta));
        assert!(
            with(
                "grant_types",
                json!(["authorization_code", "refresh_token"])
            )
            .unwrap()
            .refresh
        );
        let jwt = with("token_endpoint_auth_method", json!("client_secret_jwt")).unwrap();
        assert_eq!(jwt.auth_method, Some(AuthMethod::ClientSecretJwt));
    }

    #[test]
    fn written_as_llng_writes_it() {
        let m = parse(
            json!({"redirect_uris": ["http://rp/a", "http://rp/b"], "client_name": "App",
            "id_token_signed_response_alg": "HS256"}),
        )
        .unwrap();
        let mut doc = json!({"oidcRPMetaDataOptions": {"register-5": {}},
            "oidcServiceDynamicRegistrationExportedVars": {"email": "mail"}})
        .as_object()
        .cloned()
        .unwrap();
        let name = rp_name(&doc, 5);
        assert_eq!(name, "register-5-2");
        add_rp(&mut doc, &name, &m, "cid", "sec");
        let o = &doc["oidcRPMetaDataOptions"][&name];
        assert_eq!(
            o["oidcRPMetaDataOptionsRedirectUris"],
            "http://rp/a http://rp/b"
        );
        assert_eq!(o["oidcRPMetaDataOptionsIDTokenSignAlg"], "HS256");
        assert_eq!(o["oidcRPMetaDataOptionsDisplayName"], "App");
        assert_eq!(doc["oidcRPMetaDataExportedVars"][&name]["email"], "mail");
        let a = m.answer("cid", "sec", 7);
        assert_eq!(a["client_secret_expires_at"], 0);
        assert_eq!(a["client_id_issued_at"], 7);
        assert_eq!(a["token_endpoint_auth_method"], "client_secret_basic");
    }
}
