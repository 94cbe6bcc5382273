//! `/.well-known/openid-configuration` and `/oauth2/jwks`: only what Limette really supports
//! (code flow, HS256 ID tokens keyed by the client secret, so the JWKS is empty).
use super::issuer;
use crate::config::Conf;
use crate::http::Response;
use serde_json::json;

/// The provider metadata (OpenID Connect Discovery 1.0, section 3).
pub fn configuration(conf: &Conf) -> Response {
    let iss = issuer(conf);
    let ep = |p: &str| format!("{iss}oauth2/{p}");
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
            "id_token_signing_alg_values_supported": ["HS256"],
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

/// The JSON Web Key Set: empty, since every ID token is HS256 with the client's secret.
pub fn jwks() -> Response {
    Response::json(200, &json!({"keys": []}))
}
