//! `/.well-known/openid-configuration` and `/oauth2/jwks`: only what Limette really supports
//! (code flow; the signing algorithms that work with the keys in force) and every public key
//! a token still alive may have been signed with.
use super::issuer;
use super::jwt::Alg;
use crate::config::Conf;
use crate::http::Response;
use serde_json::json;

/// The provider metadata (OpenID Connect Discovery 1.0, section 3).
pub fn configuration(conf: &Conf) -> Response {
    let iss = issuer(conf);
    let ep = |p: &str| endpoint(conf, p);
    let signing = algorithms(conf, true);
    Response::json(
        200,
        &json!({
            "issuer": iss,
            "authorization_endpoint": ep("authorize"),
            "token_endpoint": ep("token"),
            "userinfo_endpoint": ep("userinfo"),
            "introspection_endpoint": ep("introspect"),
            "end_session_endpoint": ep("logout"),
            "jwks_uri": ep("jwks"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": signing,
            "userinfo_signing_alg_values_supported": signing,
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["plain", "S256"],
            "scopes_supported": ["openid", "profile", "email", "address", "phone"],
            "claims_supported": super::claims::supported(),
            // The one level a login gives with the module in use.
            "acr_values_supported": [format!("loa-{}", crate::directory::for_conf(conf).authn_level())],
            "prompt_values_supported": ["none", "login", "consent"],
            "request_parameter_supported": false,
            "request_uri_parameter_supported": false,
            "frontchannel_logout_supported": false,
            "backchannel_logout_supported": false,
        }),
    )
}

/// The URL of an endpoint: under the issuer, as LemonLDAP::NG builds them (a `/` added when
/// the issuer, oidcServiceMetaDataIssuer, has none).
pub fn endpoint(conf: &Conf, name: &str) -> String {
    let iss = issuer(conf);
    let slash = if iss.ends_with('/') { "" } else { "/" };
    format!("{iss}{slash}oauth2/{name}")
}

/// The algorithms that work: HMAC always (keyed by each client's secret), an asymmetric
/// algorithm only when its key is in force, `none` only when `with_none` and an RP uses it.
pub fn algorithms(conf: &Conf, with_none: bool) -> Vec<&'static str> {
    let oidc = conf.area::<super::Settings>();
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
        .area::<super::Settings>()
        .keys
        .jwks(crate::util::now())
        .to_string();
    Response::bytes(200, "application/json; charset=utf-8", body)
        .with_header("Cache-Control", "public, max-age=3600")
}
