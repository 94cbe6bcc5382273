//! `/.well-known/openid-configuration` and `/oauth2/jwks`: only what Limette really supports
//! (the flows and grants the service and its relying parties allow; the signing algorithms
//! that work with the keys in force; front- and back-channel logout, `oidc::channels`; the
//! `check_session_iframe`, `oidc::check_session`) and every public key a token still alive may
//! have been signed with.
use crate::config::Conf;
use crate::http::Response;
use crate::oidc::base::issuer;
use crate::oidc::claims;
use crate::oidc::keys::{self, Alg};
use crate::oidc::settings;
use crate::oidc::settings::rp_keys::AuthMethod;
use serde_json::json;

/// The provider metadata (OpenID Connect Discovery 1.0, section 3).
pub fn configuration(conf: &Conf) -> Response {
    let iss = issuer(conf);
    let ep = |p: &str| endpoint(conf, p);
    let signing = algorithms(conf, true);
    // Client authentication (OIDC Core 9): the secret methods, the two assertion methods with
    // the algorithms `assertion` verifies, and public clients at the token endpoint.
    let methods: Vec<&str> = AuthMethod::ALL.iter().map(|m| m.as_str()).collect();
    let mut token_methods = methods.clone();
    token_methods.push("none");
    let assertion_algs: Vec<&str> = [AuthMethod::ClientSecretJwt, AuthMethod::PrivateKeyJwt]
        .iter()
        .flat_map(|m| m.algorithms())
        .map(|a| a.as_str())
        .collect();
    let mut doc = json!({
        "issuer": iss,
        "authorization_endpoint": ep("authorize"),
        "token_endpoint": ep("token"),
        "userinfo_endpoint": ep("userinfo"),
        "introspection_endpoint": ep("introspect"),
        "revocation_endpoint": ep("revoke"),
        "pushed_authorization_request_endpoint": ep("par"),
        "require_pushed_authorization_requests": false,
        "end_session_endpoint": ep("logout"),
        "check_session_iframe": ep("checksession.html"),
        "jwks_uri": ep("jwks"),
        "response_types_supported": response_types(&conf.area::<settings::Settings>().flows),
        "response_modes_supported": ["query", "fragment", "form_post"],
        "grant_types_supported": grant_types(conf),
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": signing,
        "userinfo_signing_alg_values_supported": signing,
        "token_endpoint_auth_methods_supported": token_methods.clone(),
        "token_endpoint_auth_signing_alg_values_supported": assertion_algs.clone(),
        "introspection_endpoint_auth_methods_supported": methods,
        "introspection_endpoint_auth_signing_alg_values_supported": assertion_algs.clone(),
        "revocation_endpoint_auth_methods_supported": token_methods.clone(),
        "revocation_endpoint_auth_signing_alg_values_supported": assertion_algs,
        // RFC 9701 7: JWT introspection answers are signed as the RP's ID tokens.
        "introspection_signing_alg_values_supported": algorithms(conf, false),
        "code_challenge_methods_supported": ["plain", "S256"],
        "scopes_supported": ["openid", "profile", "email", "address", "phone", "offline_access"],
        "claims_supported": claims::supported(),
        // The names of levels (oidcServiceMetaDataAuthnContext), as LemonLDAP::NG lists them.
        "acr_values_supported": conf.area::<crate::oidc::base::acr::AuthnContext>().names(),
        "prompt_values_supported": ["none", "login", "consent"],
        "claims_parameter_supported": true,
        "request_parameter_supported": true,
        "request_uri_parameter_supported": true,
        "require_request_uri_registration": true,
        // `none` only for a client registered for it (RequestObjectSignAlg); the others with
        // the client's secret or its own keys (request_object).
        "request_object_signing_alg_values_supported": keys::Alg::ALL.map(|a| a.as_str()),
        "frontchannel_logout_supported": true,
        "frontchannel_logout_session_supported": true,
        "backchannel_logout_supported": true,
        "backchannel_logout_session_supported": true,
    });
    // RFC 7591 / OpenID Connect Dynamic Client Registration: only when it is on.
    if conf
        .area::<crate::oidc::settings::Settings>()
        .dynamic_registration
    {
        doc["registration_endpoint"] = json!(ep("register"));
    }
    Response::json(200, &doc)
}

/// The URL of an endpoint: under the issuer, as LemonLDAP::NG builds them (a `/` added when
/// the issuer, oidcServiceMetaDataIssuer, has none).
pub fn endpoint(conf: &Conf, name: &str) -> String {
    let iss = issuer(conf);
    let slash = if iss.ends_with('/') { "" } else { "/" };
    format!("{iss}{slash}oauth2/{name}")
}

/// The response types of the flows the service allows (OpenID Connect Core 3).
fn response_types(flows: &settings::Flows) -> Vec<&'static str> {
    let mut v = Vec::new();
    if flows.code {
        v.push("code");
    }
    if flows.implicit {
        v.extend(["id_token", "id_token token"]);
    }
    if flows.hybrid {
        v.extend(["code id_token", "code token", "code id_token token"]);
    }
    v
}

/// The grants served: the code and refresh token grants always; `password` and
/// `client_credentials` when a relying party may use them (LemonLDAP::NG's `metadata`; a
/// public client never gets client credentials).
pub fn grant_types(conf: &Conf) -> Vec<&'static str> {
    let oidc = conf.area::<settings::Settings>();
    let mut out = vec!["authorization_code", "refresh_token"];
    if oidc.rps.iter().any(|rp| rp.allow_password) {
        out.push("password");
    }
    if oidc
        .rps
        .iter()
        .any(|rp| rp.allow_client_credentials && !rp.public)
    {
        out.push("client_credentials");
    }
    out
}

/// The algorithms that work: HMAC always (keyed by each client's secret), an asymmetric
/// algorithm only when its key is in force, `none` only when `with_none` and an RP uses it.
pub fn algorithms(conf: &Conf, with_none: bool) -> Vec<&'static str> {
    let oidc = conf.area::<settings::Settings>();
    let keys = &oidc.keys;
    let none_used = oidc
        .rps
        .iter()
        .any(|rp| rp.id_alg == Alg::None || rp.userinfo_alg == Some(Alg::None));
    Alg::ALL
        .into_iter()
        .filter(|a| match a.key_kind() {
            Some(kind) => keys.signer(kind).is_some(),
            None if *a == Alg::None => with_none && none_used,
            None => true,
        })
        .map(Alg::as_str)
        .collect()
}

/// The JSON Web Key Set (RFC 7517 5): the signing keys and the retired ones whose tokens may
/// still be alive. Caches may keep it an hour at most: a rotation publishes the next key at
/// once and keeps the previous one for at least the lifetime of its tokens.
pub fn jwks(conf: &Conf) -> Response {
    let body = conf
        .area::<settings::Settings>()
        .keys
        .jwks(crate::util::now())
        .to_string();
    Response::bytes(200, "application/json; charset=utf-8", body)
        .with_header("Cache-Control", "public, max-age=3600")
}
