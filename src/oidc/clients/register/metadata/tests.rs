//! Unit tests of the client metadata of a registration: what is kept and what is refused, with which code.
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
    // A jwks_uri is kept and answered; never beside jwks.
    let m = with("jwks_uri", json!("https://rp/jwks")).unwrap();
    assert_eq!(m.jwks_uri.as_deref(), Some("https://rp/jwks"));
    assert_eq!(m.answer("c", "s", 0)["jwks_uri"], "https://rp/jwks");
    assert_eq!(with("jwks_uri", json!("rp/jwks")), Err(meta));
    let ec = json!({"keys": [{"kty": "EC", "crv": "P-256", "x": "AQ", "y": "Ag"}]});
    let both = json!({"redirect_uris": ["http://rp/cb"], "jwks": ec,
        "jwks_uri": "https://rp/jwks"});
    assert_eq!(parse(both), Err(meta));
    // request_object_signing_alg: none allowed, a key algorithm only with keys.
    let none = with("request_object_signing_alg", json!("none")).unwrap();
    assert_eq!(none.request_object_alg, Some(Alg::None));
    assert_eq!(
        none.answer("c", "s", 0)["request_object_signing_alg"],
        "none"
    );
    assert_eq!(
        with("request_object_signing_alg", json!("RS256")),
        Err(meta)
    );
    assert_eq!(
        with("request_object_signing_alg", json!("PS256")),
        Err(meta)
    );
    let keyed = json!({"redirect_uris": ["http://rp/cb"], "jwks_uri": "https://rp/jwks",
        "request_object_signing_alg": "ES256", "token_endpoint_auth_method": "private_key_jwt"});
    assert_eq!(parse(keyed).unwrap().request_object_alg, Some(Alg::ES256));
    // Post-logout URIs: on the origin of a redirect URI, a plain host.
    assert!(with("post_logout_redirect_uris", json!(["http://rp/bye"])).is_ok());
    for u in [
        "https://rp/bye",
        "http://evil/bye",
        "http://rp@evil/",
        "javascript:x",
    ] {
        assert_eq!(
            with("post_logout_redirect_uris", json!([u])),
            Err(meta),
            "{u}"
        );
    }
    assert_eq!(
        parse(json!({"redirect_uris": ["https://rp@evil.example/cb"]})),
        Err(uri)
    );
    let many: Vec<String> = (0..=MAX_URIS).map(|i| format!("http://rp/{i}")).collect();
    assert_eq!(with("post_logout_redirect_uris", json!(many)), Err(meta));
    assert_eq!(parse(json!({"redirect_uris": many})), Err(meta));
    assert!(with("request_uris", json!(["https://rp/r"])).is_ok());
    assert_eq!(with("request_uris", json!(["ftp://rp/r"])), Err(meta));
    assert!(with("request_uris", json!(["https://rp/r#c2hhMjU2"])).is_ok());
    assert!(with("response_types", json!(["code id_token"])).is_ok());
    assert_eq!(with("response_types", json!(["token"])), Err(meta));
    assert_eq!(
        with("id_token_encrypted_response_alg", json!("RSA-OAEP")),
        Err(meta)
    );
    assert!(with("response_types", json!(["code", "id_token"])).is_ok());
    assert!(with("grant_types", json!(["implicit"])).is_ok());
    assert_eq!(with("grant_types", json!(["password"])), Err(meta));
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
