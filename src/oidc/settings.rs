//! Relying parties and service settings, parsed once from `oidcRPMetaDataOptions`,
//! `oidcRPMetaDataExportedVars` and the `oidcService...` keys. Handlers only see typed values:
//! a configuration that names an unsupported algorithm is refused here, with the key named.
use crate::config::{as_i64, truthy, value_string};
use serde_json::{Map, Value};
use std::fmt;

/// A client secret: compared in constant time, never printed.
#[derive(Clone, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    /// The key bytes (HMAC key of the ID token).
    pub fn expose(&self) -> &[u8] {
        self.0.as_bytes()
    }
    /// Constant-time comparison with what a client sent.
    pub fn matches(&self, sent: &str) -> bool {
        !self.0.is_empty() && crate::util::ct_eq(self.0.as_bytes(), sent.as_bytes())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// One relying party.
#[derive(Debug, Clone, Default)]
pub struct Rp {
    /// Its configuration key (`oidcRPMetaDataOptions/<name>`).
    pub name: String,
    /// `client_id`.
    pub client_id: String,
    /// `client_secret` (HS256 key).
    pub secret: Secret,
    /// Registered redirect URIs (exact match).
    pub redirect_uris: Vec<String>,
    /// Registered post-logout redirect URIs (exact match).
    pub post_logout_uris: Vec<String>,
    /// Authorization code lifetime, seconds.
    pub code_ttl: i64,
    /// Access token lifetime, seconds.
    pub access_ttl: i64,
    /// ID token lifetime, seconds.
    pub id_ttl: i64,
    /// Issue refresh tokens.
    pub refresh: bool,
    /// PKCE is mandatory.
    pub require_pkce: bool,
    /// A public client (no secret; PKCE mandatory).
    pub public: bool,
    /// No consent page.
    pub bypass_consent: bool,
    /// Claim name -> session attribute.
    pub claims: Vec<(String, String)>,
}

/// OpenID Connect settings parsed from the configuration.
#[derive(Debug, Default)]
pub struct Settings {
    /// `issuerDBOpenIDConnectActivation`.
    pub enabled: bool,
    /// Relying parties.
    pub rps: Vec<Rp>,
    /// Refresh token lifetime (`oidcServiceOfflineSessionExpiration`).
    pub refresh_ttl: i64,
}

impl Settings {
    /// Parses the relying parties and service settings.
    pub fn from_conf(raw: &Map<String, Value>) -> Result<Settings, String> {
        let num = |k: &str, d: i64| raw.get(k).and_then(as_i64).filter(|n| *n > 0).unwrap_or(d);
        let defaults = (
            num("oidcServiceAuthorizationCodeExpiration", 60),
            num("oidcServiceAccessTokenExpiration", 3600),
            num("oidcServiceIDTokenExpiration", 3600),
        );
        let mut rps = Vec::new();
        if let Some(Value::Object(all)) = raw.get("oidcRPMetaDataOptions") {
            for (name, opts) in all {
                let Value::Object(opts) = opts else {
                    return Err(format!("oidcRPMetaDataOptions/{name}: not an object"));
                };
                let vars = match raw
                    .get("oidcRPMetaDataExportedVars")
                    .and_then(|v| v.get(name))
                {
                    Some(Value::Object(m)) => m
                        .iter()
                        .map(|(k, v)| (k.clone(), value_string(v)))
                        .collect(),
                    _ => Vec::new(),
                };
                // A relying party Limette cannot serve (an RSA algorithm, no client id, no
                // secret to sign its ID tokens with) is left out with a warning, so that an
                // existing configuration still loads.
                match parse_rp(name, opts, vars, defaults) {
                    Ok(rp) => rps.push(rp),
                    Err(e) => crate::server::log::warn(&format!("relying party left out: {e}")),
                }
            }
        }
        Ok(Settings {
            enabled: truthy(raw.get("issuerDBOpenIDConnectActivation")),
            rps,
            refresh_ttl: num("oidcServiceOfflineSessionExpiration", 2_592_000),
        })
    }

    /// The relying party of a `client_id`.
    pub fn rp(&self, client_id: &str) -> Option<&Rp> {
        self.rps.iter().find(|r| r.client_id == client_id)
    }
}

fn parse_rp(
    name: &str,
    o: &Map<String, Value>,
    claims: Vec<(String, String)>,
    d: (i64, i64, i64),
) -> Result<Rp, String> {
    let get = |k: &str| o.get(&format!("oidcRPMetaDataOptions{k}"));
    let s = |k: &str| get(k).map(value_string).unwrap_or_default();
    let ttl = |k: &str, dflt: i64| get(k).and_then(as_i64).filter(|n| *n > 0).unwrap_or(dflt);
    let alg = s("IDTokenSignAlg");
    if !(alg.is_empty() || alg == "HS256") {
        return Err(format!(
            "oidcRPMetaDataOptions/{name}/oidcRPMetaDataOptionsIDTokenSignAlg: {alg} is not supported (only HS256)"
        ));
    }
    let client_id = s("ClientID");
    if client_id.is_empty() {
        return Err(format!(
            "oidcRPMetaDataOptions/{name}/oidcRPMetaDataOptionsClientID: missing"
        ));
    }
    // HS256 ID tokens are keyed with the client secret (OpenID Connect Core 10.1): without
    // one, anybody could sign a token this RP would accept. A public client needs one too.
    if s("ClientSecret").is_empty() {
        return Err(format!(
            "oidcRPMetaDataOptions/{name}/oidcRPMetaDataOptionsClientSecret: missing (it is the key of the HS256 ID tokens, public clients included)"
        ));
    }
    let words = |k: &str| {
        s(k).split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let public = truthy(get("Public"));
    Ok(Rp {
        name: name.to_string(),
        client_id,
        secret: Secret::new(s("ClientSecret")),
        redirect_uris: words("RedirectUris"),
        post_logout_uris: words("PostLogoutRedirectUris"),
        code_ttl: ttl("AuthorizationCodeExpiration", d.0),
        access_ttl: ttl("AccessTokenExpiration", d.1),
        id_ttl: ttl("IDTokenExpiration", d.2),
        refresh: truthy(get("RefreshToken")),
        require_pkce: public || truthy(get("RequirePKCE")),
        public,
        bypass_consent: truthy(get("BypassConsent")),
        claims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn parses_rps_with_defaults() {
        let r = raw(json!({
            "issuerDBOpenIDConnectActivation": 1,
            "oidcServiceAccessTokenExpiration": 100,
            "oidcRPMetaDataOptions": {"a": {
                "oidcRPMetaDataOptionsClientID": "cid", "oidcRPMetaDataOptionsClientSecret": "s",
                "oidcRPMetaDataOptionsRedirectUris": "http://x/cb  http://y/cb",
                "oidcRPMetaDataOptionsAuthorizationCodeExpiration": "2",
                "oidcRPMetaDataOptionsPublic": 1}},
            "oidcRPMetaDataExportedVars": {"a": {"email": "mail"}}
        }));
        let s = Settings::from_conf(&r).unwrap();
        let rp = s.rp("cid").unwrap();
        assert_eq!(rp.redirect_uris, vec!["http://x/cb", "http://y/cb"]);
        assert_eq!((rp.code_ttl, rp.access_ttl, rp.id_ttl), (2, 100, 3600));
        assert!(rp.public && rp.require_pkce && !rp.refresh);
        assert_eq!(rp.claims, vec![("email".to_string(), "mail".to_string())]);
        assert!(rp.secret.matches("s") && !rp.secret.matches("t"));
        assert_eq!(format!("{:?}", rp.secret), "Secret(***)");
    }

    /// A public client without a secret would get ID tokens signed with an empty key, which
    /// anybody can forge: it is left out, the others still load.
    #[test]
    fn leaves_out_rps_without_a_secret() {
        let r = raw(json!({"oidcRPMetaDataOptions": {
            "open": {"oidcRPMetaDataOptionsClientID": "open", "oidcRPMetaDataOptionsPublic": 1},
            "empty": {"oidcRPMetaDataOptionsClientID": "empty",
                "oidcRPMetaDataOptionsClientSecret": ""},
            "ok": {"oidcRPMetaDataOptionsClientID": "ok", "oidcRPMetaDataOptionsClientSecret": "s",
                "oidcRPMetaDataOptionsPublic": 1}}}));
        let s = Settings::from_conf(&r).unwrap();
        assert!(s.rp("open").is_none() && s.rp("empty").is_none());
        assert!(s.rp("ok").is_some());
    }

    #[test]
    fn leaves_out_unsupported_algorithms() {
        let r = raw(json!({"oidcRPMetaDataOptions": {"a": {
            "oidcRPMetaDataOptionsClientID": "cid", "oidcRPMetaDataOptionsIDTokenSignAlg": "RS256"}}}));
        let e = parse_rp(
            "a",
            r["oidcRPMetaDataOptions"]["a"].as_object().unwrap(),
            Vec::new(),
            (60, 3600, 3600),
        )
        .unwrap_err();
        assert!(
            e.contains("oidcRPMetaDataOptions/a/oidcRPMetaDataOptionsIDTokenSignAlg"),
            "{e}"
        );
        let s = Settings::from_conf(&r).unwrap();
        assert!(s.rp("cid").is_none());
    }
}
