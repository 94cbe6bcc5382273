//! `POST /oauth2/register`: dynamic client registration (RFC 7591; OpenID Connect Dynamic
//! Client Registration 1.0) when `oidcServiceAllowDynamicRegistration` is 1, as LemonLDAP::NG's
//! `registration`: the new relying party `register-<time>` gets a random client id and secret,
//! `DisplayName`, `Icon`, `IDTokenSignAlg` (default RS256), `RedirectUris`, `UserInfoSignAlg`,
//! the service's `oidcServiceDynamicRegistrationExportedVars` and `...ExtraClaims`, and is saved
//! as a new configuration (`storage::save`, with `cfgAuthor` "OpenID Connect Registration
//! (<name>)" and the caller's address), then put in force at once.
//!
//! Open to anyone when on (no initial access token, as LemonLDAP::NG): anybody may then add
//! relying parties and configuration versions, which is why it is off by default, and why
//! `limits` bounds the rate per address, the metadata's size, the self-registered clients and
//! the versions registrations leave behind. Off, the path
//! is unknown (404; LemonLDAP::NG answers a bare server error).
//!
//! Stricter than LemonLDAP::NG, as RFC 7591 2 and 3.2.2 say: redirect URIs are absolute
//! http(s) URIs without fragment (`invalid_redirect_uri`); `none` is never accepted as an
//! algorithm but for request objects (`request_object_signing_alg`: `none` is the client's
//! choice, and then the only one); what Limette cannot honour (encryption, other response or
//! grant types, `default_max_age`, `default_acr_values`, both logout channels) is
//! `invalid_client_metadata`, never silently dropped; a logout channel is kept (`logout`). The
//! answer
//! carries `client_secret_expires_at` (RFC 7591 3.2.1; LemonLDAP::NG writes
//! `client_id_expires_at`). `token_endpoint_auth_method`, `jwks` and `jwks_uri` (one or the
//! other, RFC 7591 2) are kept (later LemonLDAP::NG's option names), and
//! `request_object_signing_alg` (`RequestObjectSignAlg`, Limette's).
pub mod limits;
pub mod logout;
pub mod metadata;

pub use metadata::{Metadata, RegError};

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use crate::oidc::keys;
use crate::oidc::settings;
use crate::storage::save;
use serde_json::{json, Map, Value};
use std::sync::Mutex;

/// One registration at a time in this process: each reads the latest configuration and saves
/// the next, so two at once would lose one of the new RPs.
static SAVING: Mutex<()> = Mutex::new(());

/// `/oauth2/register`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if !conf
        .area::<crate::oidc::settings::Settings>()
        .dynamic_registration
    {
        return Err(Error::not_found("Not found"));
    }
    if req.method != Method::Post {
        return Err(Error::OnlyMethods("POST"));
    }
    let ip = req.ip();
    // As LemonLDAP::NG: a notice per request, so that floods show in the log.
    crate::log::notice(&format!("OpenID Connect registration request from {ip}"));
    let limits = conf.area::<settings::Settings>().registration;
    if let Err(wait) = limits::admit(req.client, limits.rate, crate::util::now()) {
        let why = format!("more than {} registrations a minute from {ip}", limits.rate);
        return Ok(refused(RegError::TooMany, &why).with_header("Retry-After", wait.to_string()));
    }
    if req.body.len() > limits.max_size {
        let why = format!("the metadata is over {} bytes", limits.max_size);
        return Ok(refused(RegError::Metadata, &why));
    }
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
    if limits::registered(&doc) >= limits.max_clients {
        let why = format!(
            "the provider holds its most self-registered clients ({})",
            limits.max_clients
        );
        return Ok(refused(RegError::Full, &why));
    }
    let name = rp_name(&doc, now);
    add_rp(&mut doc, &name, &meta, &client_id, &secret);
    keys::keygen::complete(&mut doc).map_err(Error::internal)?;
    // The new RP must load as it is: one the portal would disable is refused now.
    let parsed = settings::Settings::from_conf(&crate::config::defaults::merged(&doc))
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
    crate::oidc::keys::keygen::reload(app)?;
    let removed = limits::prune(app.confs.as_ref(), limits.kept_versions);
    if removed > 0 {
        crate::log::info(&format!(
            "registration: {removed} older configuration versions made by registrations removed"
        ));
    }
    crate::log::notice(&format!(
        "relying party {name} registered (client {client_id}), configuration {num}"
    ));
    Ok(Response::json(201, &meta.answer(&client_id, &secret, now)))
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
    if !m.request_uris.is_empty() {
        o.insert(k("RequestUris"), json!(m.request_uris.join(" ")));
    }
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
    for (key, v) in m.logout.iter().flat_map(logout::options) {
        o.insert(k(key), v);
    }
    if let Some(u) = &m.jwks_uri {
        o.insert(k("JwksUri"), json!(u));
    }
    if let Some(a) = m.request_object_alg {
        o.insert(k("RequestObjectSignAlg"), json!(a.as_str()));
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

/// An RFC 7591 3.2.2 error answer: JSON, not cached; 400 for bad metadata.
fn refused(code: RegError, why: &str) -> Response {
    crate::log::info(&format!("registration refused: {}: {why}", code.as_str()));
    Response::json(
        code.status(),
        &json!({"error": code.as_str(), "error_description": why}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> Result<Metadata, RegError> {
        Metadata::parse(v.as_object().unwrap()).map_err(|(c, _)| c)
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
