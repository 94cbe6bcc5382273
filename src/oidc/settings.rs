//! Relying parties and service settings, parsed once from `oidcRPMetaDataOptions`,
//! `oidcRPMetaDataExportedVars` and the `oidcService...` keys. Handlers only see typed values.
//! A relying party whose configuration Limette cannot honour (see `options`) is disabled:
//! left out of `rps`, so it is an unknown client, listed in `disabled`, and named in one
//! error line at load. The rest of the configuration still loads. The provider's signing keys
//! are read here too (`keys::Keyring`): an RP whose algorithm needs a key that is missing or
//! unreadable is disabled.
use super::claims::Release;
use super::jwt::Alg;
use super::keys::Keyring;
use super::options::{check_refused, exported_vars, flag, integer, key, macros, per_rp};
use super::options::{reason, rule, scope_rules};
use super::rp_keys::{parse_jwks, AuthMethod, RpKey};
use super::signing::{alg_reason, has_keys, none_warnings, signing_algs};
use crate::config::{as_i64, truthy, value_string};
use crate::rules::Rule;
use serde_json::{json, Map, Value};
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
    /// `client_secret` (the key of HS* signatures).
    pub secret: Secret,
    /// `oidcRPMetaDataOptionsIDTokenSignAlg` (unset: LemonLDAP::NG 2.16's default, HS512).
    pub id_alg: Alg,
    /// `oidcRPMetaDataOptionsUserInfoSignAlg`: `None` answers plain JSON.
    pub userinfo_alg: Option<Alg>,
    /// `oidcRPMetaDataOptionsAccessTokenJWT` with `...AccessTokenSignAlg` (RFC 9068); `None`:
    /// opaque access tokens.
    pub access_jwt: Option<Alg>,
    /// `oidcRPMetaDataOptionsAccessTokenClaims`: the user's claims inside JWT access tokens.
    pub access_claims: bool,
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
    /// `oidcRPMetaDataOptionsLogoutBypassConfirm`: RP-initiated logout with a valid hint of
    /// the current session ends it without a confirmation page.
    pub logout_bypass_confirm: bool,
    /// What the RP is told: claims by scope, their sources, macros, the subject's attribute.
    pub release: Release,
    /// `oidcRPMetaDataScopeRules`: scope -> rule (see `scopes`).
    pub scope_rules: Vec<(String, Rule)>,
    /// `oidcRPMetaDataOptionsRequestUris`: the `request_uri` values it may send (`*`: any).
    pub request_uris: Vec<String>,
    /// `oidcRPMetaDataOptionsAdditionalAudiences`: more `aud` values of the ID token.
    pub audiences: Vec<String>,
    /// `oidcRPMetaDataOptionsIDTokenForceClaims`: the user's claims in the ID token.
    pub force_id_claims: bool,
    /// `oidcRPMetaDataOptionsRule`, compiled; `None`: every authenticated user.
    pub rule: Option<Rule>,
    /// `oidcRPMetaDataOptionsAuthnLevel`: the lowest `authenticationLevel` served (0: any).
    pub authn_level: i64,
    /// `oidcRPMetaDataOptionsLogoutUrl` with its type and session flag; `None`: the RP is
    /// told nothing when a session ends.
    pub logout: Option<super::channels::Logout>,
    /// `oidcRPMetaDataOptionsAllowClientCredentialsGrant` (RFC 6749 4.4).
    pub allow_client_credentials: bool,
    /// `oidcRPMetaDataOptionsAllowPasswordGrant` (RFC 6749 4.3).
    pub allow_password: bool,
    /// `oidcRPMetaDataOptionsAllowOffline`: the `offline_access` scope (OIDC Core 11).
    pub allow_offline: bool,
    /// `oidcRPMetaDataOptionsOfflineSessionExpiration`: how long an offline refresh token
    /// lives, seconds (unset or 0: `oidcServiceOfflineSessionExpiration`).
    pub offline_ttl: i64,
    /// `oidcRPMetaDataOptionsAuthMethod` (later LemonLDAP::NG): the one way this RP
    /// authenticates; `None` (unset): `client_secret_basic` or `client_secret_post`.
    pub auth_method: Option<AuthMethod>,
    /// `oidcRPMetaDataOptionsJwks` (later LemonLDAP::NG): the RP's public keys.
    pub jwks: Vec<RpKey>,
}

/// `oidcServiceOfflineSessionExpiration`'s default (LemonLDAP::NG 2.16: 30 days).
pub const OFFLINE_TTL: i64 = 2_592_000;

/// `oidcServiceOfflineSessionExpiration`, or its default when unset or 0.
fn service_offline_ttl(raw: &Map<String, Value>) -> i64 {
    raw.get("oidcServiceOfflineSessionExpiration")
        .and_then(as_i64)
        .filter(|n| *n > 0)
        .unwrap_or(OFFLINE_TTL)
}

/// A relying party left out because its configuration cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisabledRp {
    /// Its configuration key (`oidcRPMetaDataOptions/<name>`).
    pub name: String,
    /// Its `client_id` (may be empty: a missing client id is a reason).
    pub client_id: String,
    /// `<key> = <value> is not supported (<what is>)`.
    pub reason: String,
}

/// OpenID Connect settings parsed from the configuration.
#[derive(Debug, Default)]
pub struct Settings {
    /// The provider's signing keys.
    pub keys: Keyring,
    /// Supported but unsafe choices (`config check` warns): `none`-signed tokens.
    pub warnings: Vec<(String, String)>,
    /// `issuerDBOpenIDConnectActivation`.
    pub enabled: bool,
    /// Relying parties served.
    pub rps: Vec<Rp>,
    /// Relying parties disabled at load, with the reason.
    pub disabled: Vec<DisabledRp>,
    /// Refresh token lifetime (`oidcServiceOfflineSessionExpiration`).
    pub refresh_ttl: i64,
    /// `oidcServiceMetaDataIssuer` (unset: the portal URL).
    pub issuer: Option<String>,
    /// `oidcServiceAllowOnlyDeclaredScopes`.
    pub only_declared_scopes: bool,
    /// `issuerDBOpenIDConnectRule`, compiled: who may use the provider (`None`: everybody).
    pub rule: Option<Rule>,
    /// The flows served: `oidcServiceAllowAuthorizationCodeFlow` (default on),
    /// `oidcServiceAllowImplicitFlow`, `oidcServiceAllowHybridFlow` (default off).
    pub flows: Flows,
}

/// The flows the service allows.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flows {
    /// The authorization code flow.
    pub code: bool,
    /// The implicit flow.
    pub implicit: bool,
    /// The hybrid flow.
    pub hybrid: bool,
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
        let (keys, key_errors) = Keyring::from_conf(raw);
        for e in &key_errors {
            crate::log::error(&format!("signing key not usable: {e}"));
        }
        let (mut rps, mut disabled) = (Vec::new(), Vec::new());
        if let Some(Value::Object(all)) = raw.get("oidcRPMetaDataOptions") {
            for (name, opts) in all {
                let Value::Object(opts) = opts else {
                    return Err(format!("oidcRPMetaDataOptions/{name}: not an object"));
                };
                match parse_rp(name, opts, raw, defaults).and_then(|rp| has_keys(rp, &keys)) {
                    Ok(rp) => rps.push(rp),
                    Err(reason) => disabled.push(DisabledRp {
                        name: name.clone(),
                        client_id: opts
                            .get("oidcRPMetaDataOptionsClientID")
                            .map(value_string)
                            .unwrap_or_default(),
                        reason,
                    }),
                }
            }
        }
        disable_shared_client_ids(&mut rps, &mut disabled);
        for d in &disabled {
            crate::log::error(&format!("relying party {} disabled: {}", d.name, d.reason));
        }
        let warnings = none_warnings(&rps);
        Ok(Settings {
            keys,
            warnings,
            enabled: truthy(raw.get("issuerDBOpenIDConnectActivation")),
            rps,
            disabled,
            refresh_ttl: service_offline_ttl(raw),
            issuer: service_issuer(raw)?,
            only_declared_scopes: truthy(raw.get("oidcServiceAllowOnlyDeclaredScopes")),
            rule: service_rule(raw)?,
            flows: Flows {
                code: raw
                    .get("oidcServiceAllowAuthorizationCodeFlow")
                    .map_or(true, |v| truthy(Some(v))),
                implicit: truthy(raw.get("oidcServiceAllowImplicitFlow")),
                hybrid: truthy(raw.get("oidcServiceAllowHybridFlow")),
            },
        })
    }

    /// The relying party of a `client_id`.
    pub fn rp(&self, client_id: &str) -> Option<&Rp> {
        self.rps.iter().find(|r| r.client_id == client_id)
    }
}

/// Two relying parties with one client id: which secret, rule or URIs would apply is
/// ambiguous (LemonLDAP::NG picks one at random), so both are disabled.
fn disable_shared_client_ids(rps: &mut Vec<Rp>, disabled: &mut Vec<DisabledRp>) {
    let ids: Vec<String> = rps.iter().map(|r| r.client_id.clone()).collect();
    let shared = |id: &str| ids.iter().filter(|i| *i == id).count() > 1;
    let (dup, ok): (Vec<Rp>, Vec<Rp>) = std::mem::take(rps)
        .into_iter()
        .partition(|r| shared(&r.client_id));
    *rps = ok;
    for r in dup {
        let value = Value::String(r.client_id.clone());
        disabled.push(DisabledRp {
            reason: reason(
                "oidcRPMetaDataOptionsClientID",
                &value,
                "another relying party has the same client id",
            ),
            name: r.name,
            client_id: r.client_id,
        });
    }
}

/// One relying party, or the reason it is disabled.
fn parse_rp(
    name: &str,
    o: &Map<String, Value>,
    raw: &Map<String, Value>,
    d: (i64, i64, i64),
) -> Result<Rp, String> {
    check_refused(o)?;
    // LemonLDAP::NG reads extra claims beside the options only: inside them they would be
    // ignored, and the RP would lose claims its configuration names.
    if let Some(v) = o
        .get(&key("ExtraClaims"))
        .filter(|v| !crate::config::support::is_off(v))
    {
        let why = "set beside the options, as oidcRPMetaDataOptionsExtraClaims/<rp>";
        return Err(reason(&key("ExtraClaims"), v, why));
    }
    let v = |k: &str| o.get(&key(k)).cloned().unwrap_or(Value::Null);
    let s = |k: &str| o.get(&key(k)).map(value_string).unwrap_or_default();
    let client_id = s("ClientID");
    if client_id.trim().is_empty() {
        return Err(reason(
            &key("ClientID"),
            &v("ClientID"),
            "a client id is required",
        ));
    }
    let [id_alg, userinfo_alg, access_alg] = signing_algs(o);
    let id_alg = id_alg
        .map_err(|e| alg_reason(o, "IDTokenSignAlg", &e))?
        .unwrap_or(Alg::HS512);
    let userinfo_alg = userinfo_alg.map_err(|e| alg_reason(o, "UserInfoSignAlg", &e))?;
    let access_jwt = access_alg.map_err(|e| alg_reason(o, "AccessTokenSignAlg", &e))?;
    let public = flag(o, "Public")?;
    let (auth_method, jwks) = client_auth(o, public)?;
    // HS* tokens are keyed with the client secret (OpenID Connect Core 10.1): without one,
    // anybody could sign a token this RP would accept. A public client needs one too then.
    let hmac = [Some(id_alg), userinfo_alg, access_jwt]
        .into_iter()
        .flatten()
        .any(|a| a.as_str().starts_with("HS"));
    let keyed = auth_method == Some(AuthMethod::PrivateKeyJwt);
    if s("ClientSecret").is_empty() && (hmac || !(public || keyed)) {
        let why = if hmac {
            "a secret is required: it is the HMAC key of this RP's HS* tokens, public clients included"
        } else {
            "a secret is required for a confidential client"
        };
        return Err(reason(&key("ClientSecret"), &v("ClientSecret"), why));
    }
    let words = |k: &str| s(k).split_whitespace().map(str::to_string).collect();
    Ok(Rp {
        name: name.to_string(),
        client_id,
        secret: Secret::new(s("ClientSecret")),
        id_alg,
        userinfo_alg,
        access_jwt,
        access_claims: flag(o, "AccessTokenClaims")?,
        redirect_uris: words("RedirectUris"),
        post_logout_uris: words("PostLogoutRedirectUris"),
        code_ttl: integer(o, "AuthorizationCodeExpiration", d.0)?,
        access_ttl: integer(o, "AccessTokenExpiration", d.1)?,
        id_ttl: integer(o, "IDTokenExpiration", d.2)?,
        refresh: flag(o, "RefreshToken")?,
        require_pkce: public || flag(o, "RequirePKCE")?,
        public,
        bypass_consent: flag(o, "BypassConsent")?,
        logout_bypass_confirm: flag(o, "LogoutBypassConfirm")?,
        release: Release {
            exported: exported_vars(raw, name)?,
            scopes: Release::scopes_with(&per_rp(raw, "oidcRPMetaDataOptionsExtraClaims", name)?),
            macros: macros(raw, name)?,
            user_id_attr: Some(s("UserIDAttr").trim().to_string()).filter(|a| !a.is_empty()),
            separator: raw
                .get("multiValuesSeparator")
                .map(value_string)
                .unwrap_or_else(|| "; ".into()),
        },
        scope_rules: scope_rules(raw, name)?,
        audiences: words("AdditionalAudiences"),
        request_uris: words("RequestUris"),
        force_id_claims: flag(o, "IDTokenForceClaims")?,
        rule: rule(o)?,
        authn_level: integer(o, "AuthnLevel", 0)?,
        logout: super::channels::parse(o, id_alg)?,
        allow_client_credentials: flag(o, "AllowClientCredentialsGrant")?,
        allow_password: flag(o, "AllowPasswordGrant")?,
        allow_offline: flag(o, "AllowOffline")?,
        offline_ttl: integer(o, "OfflineSessionExpiration", service_offline_ttl(raw))?,
        auth_method,
        jwks,
    })
}

/// `AuthMethod` and `Jwks`, read strictly: an unknown method, a key set that does not read,
/// `private_key_jwt` without keys, or a method on a public client (which has none: it sends
/// its client id alone) disable the RP.
fn client_auth(
    o: &Map<String, Value>,
    public: bool,
) -> Result<(Option<AuthMethod>, Vec<RpKey>), String> {
    let (mk, jk) = (key("AuthMethod"), key("Jwks"));
    let raw_method = o.get(&mk).cloned().unwrap_or(Value::Null);
    let text = value_string(&raw_method);
    let method = match text.trim() {
        "" => None,
        name => Some(AuthMethod::parse(name).ok_or_else(|| {
            let names: Vec<&str> = AuthMethod::ALL.iter().map(|m| m.as_str()).collect();
            reason(
                &mk,
                &raw_method,
                &format!("one of {}, or unset", names.join(", ")),
            )
        })?),
    };
    let raw_jwks = o.get(&jk).cloned().unwrap_or(Value::Null);
    let jwks = parse_jwks(&raw_jwks).map_err(|e| reason(&jk, &raw_jwks, &e))?;
    if public && method.is_some() {
        let why = "a public client authenticates with its client id alone";
        return Err(reason(&mk, &raw_method, why));
    }
    if method == Some(AuthMethod::PrivateKeyJwt) && jwks.is_empty() {
        let why = "private_key_jwt needs the RP's public keys in oidcRPMetaDataOptionsJwks";
        return Err(reason(&mk, &raw_method, why));
    }
    Ok((method, jwks))
}

/// `oidcServiceMetaDataIssuer`: an absolute http(s) URL, else the portal's is used.
fn service_issuer(raw: &Map<String, Value>) -> Result<Option<String>, String> {
    let k = "oidcServiceMetaDataIssuer";
    let v = raw.get(k).map(value_string).unwrap_or_default();
    let v = v.trim();
    if v.is_empty() {
        return Ok(None);
    }
    let ok = (v.starts_with("https://") || v.starts_with("http://"))
        && !v.chars().any(|c| c.is_whitespace() || c.is_control());
    if !ok {
        return Err(format!(
            "{k} = {}: not an http(s) URL",
            super::options::shown(k, &json!(v))
        ));
    }
    Ok(Some(v.to_string()))
}

/// `issuerDBOpenIDConnectRule` (LemonLDAP::NG's default `1`: everybody). A rule that does not
/// parse stops the start, as it stops LemonLDAP::NG's provider.
fn service_rule(raw: &Map<String, Value>) -> Result<Option<Rule>, String> {
    let k = "issuerDBOpenIDConnectRule";
    let src = raw.get(k).map(value_string).unwrap_or_default();
    match src.trim() {
        "" | "1" | "accept" => Ok(None),
        text => Rule::parse(text).map(Some).map_err(|e| {
            format!(
                "{k} = {}: the rule does not parse: {e}",
                super::options::shown(k, &json!(text))
            )
        }),
    }
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        Settings::from_conf(raw)
    }
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
                "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
                "oidcRPMetaDataOptionsPublic": 1}},
            "oidcRPMetaDataExportedVars": {"a": {"email": "mail"}}
        }));
        let s = Settings::from_conf(&r).unwrap();
        let rp = s.rp("cid").unwrap();
        assert_eq!(
            (rp.id_alg, rp.userinfo_alg, rp.access_jwt),
            (Alg::HS256, None, None)
        );
        assert_eq!(rp.redirect_uris, vec!["http://x/cb", "http://y/cb"]);
        assert_eq!((rp.code_ttl, rp.access_ttl, rp.id_ttl), (2, 100, 3600));
        assert!(rp.public && rp.require_pkce && !rp.refresh);
        assert_eq!(rp.release.exported.len(), 1);
        assert_eq!(
            (
                rp.release.exported[0].0.as_str(),
                rp.release.exported[0].1.attr.as_str()
            ),
            ("email", "mail")
        );
        assert!(rp.secret.matches("s") && !rp.secret.matches("t"));
        assert_eq!(format!("{:?}", rp.secret), "Secret(***)");
    }

    #[test]
    fn grants_and_offline_options() {
        let r = raw(json!({
            "oidcServiceOfflineSessionExpiration": 500,
            "oidcRPMetaDataOptions": {
                "a": {"oidcRPMetaDataOptionsClientID": "a", "oidcRPMetaDataOptionsClientSecret": "s",
                      "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
                      "oidcRPMetaDataOptionsAllowClientCredentialsGrant": 1,
                      "oidcRPMetaDataOptionsAllowPasswordGrant": "1",
                      "oidcRPMetaDataOptionsAllowOffline": true,
                      "oidcRPMetaDataOptionsOfflineSessionExpiration": "60"},
                "b": {"oidcRPMetaDataOptionsClientID": "b", "oidcRPMetaDataOptionsClientSecret": "s",
                      "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
                      "oidcRPMetaDataOptionsOfflineSessionExpiration": 0},
                "c": {"oidcRPMetaDataOptionsClientID": "c", "oidcRPMetaDataOptionsClientSecret": "s",
                      "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256",
                      "oidcRPMetaDataOptionsAllowOffline": "yes"}}
        }));
        let s = Settings::from_conf(&r).unwrap();
        let a = s.rp("a").unwrap();
        assert!(a.allow_client_credentials && a.allow_password && a.allow_offline);
        assert_eq!((a.offline_ttl, s.refresh_ttl), (60, 500));
        let b = s.rp("b").unwrap();
        assert!(!b.allow_client_credentials && !b.allow_password && !b.allow_offline);
        assert_eq!(b.offline_ttl, 500, "0 is the service's");
        assert_eq!(
            s.disabled[0].reason,
            "oidcRPMetaDataOptionsAllowOffline = yes is not supported (0 or 1)"
        );
        assert_eq!(
            Settings::from_conf(&Map::new()).unwrap().refresh_ttl,
            OFFLINE_TTL
        );
    }

    /// The reason a one-RP configuration is disabled with (`None`: it loads).
    fn disabled(extra: Value, beside: Value) -> Option<String> {
        let mut o = raw(json!({"oidcRPMetaDataOptionsClientID": "cid",
            "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}));
        o.extend(raw(extra));
        let mut r = raw(beside);
        r.insert("oidcRPMetaDataOptions".into(), json!({ "a": o }));
        let s = Settings::from_conf(&r).unwrap();
        assert_eq!(s.rps.len() + s.disabled.len(), 1);
        s.disabled.first().map(|d| {
            assert_eq!((d.name.as_str(), d.client_id.as_str()), ("a", "cid"));
            d.reason.clone()
        })
    }

    #[test]
    fn every_disable_reason() {
        let k = |s: &str| format!("oidcRPMetaDataOptions{s}");
        let case = |extra: Value| disabled(extra, json!({})).unwrap_or_default();
        assert_eq!(disabled(json!({}), json!({})), None);
        // An algorithm whose key is missing (Settings alone never generates one).
        assert_eq!(
            case(json!({k("AccessTokenJWT"): "1"})),
            "oidcRPMetaDataOptionsAccessTokenSignAlg = RS256 is not supported (no usable RSA key: oidcServicePrivateKeySig does not read, or is missing until a portal loads this configuration and generates it)"
        );
        assert!(
            case(json!({k("LogoutUrl"): "javascript:alert(1)"})).contains("an http or https URL")
        );
        assert!(case(json!({k("LogoutType"): "side"})).contains("(front or back)"));
        assert!(case(json!({k("LogoutSessionRequired"): "yes"})).contains("(0 or 1)"));
        let unsigned = json!({k("LogoutUrl"): "http://rp/bc", k("LogoutType"): "back",
            k("IDTokenSignAlg"): "none"});
        assert!(case(unsigned).contains("must be signed"));
        assert!(case(json!({k("Colour"): "red"})).contains("unknown option"));
        assert!(case(json!({k("IDTokenSignAlg"): "ES256"})).contains("no usable EC P-256 key"));
        assert!(case(json!({k("IDTokenSignAlg"): "PS256"})).starts_with(
            "oidcRPMetaDataOptionsIDTokenSignAlg = PS256 is not supported (one of none, HS256"
        ));
        assert!(
            case(json!({k("AccessTokenJWT"): 1, k("AccessTokenSignAlg"): "none"}))
                .contains("none is not allowed here")
        );
        // Unset is LemonLDAP::NG 2.16's default, HS512, keyed by the secret.
        assert_eq!(
            disabled(json!({k("IDTokenSignAlg"): null}), json!({})),
            None
        );
        assert!(case(json!({k("ClientSecret"): ""})).starts_with(
            "oidcRPMetaDataOptionsClientSecret = (unset) is not supported (a secret is required"
        ));
        assert!(case(json!({k("Rule"): "$uid eq"})).starts_with(
            "oidcRPMetaDataOptionsRule = $uid eq is not supported (the rule does not parse"
        ));
        assert_eq!(
            case(json!({k("RequirePKCE"): "off"})),
            "oidcRPMetaDataOptionsRequirePKCE = off is not supported (0 or 1)"
        );
        assert!(case(json!({k("AuthnLevel"): "high"})).contains("a positive integer"));
        assert!(case(json!({k("AccessTokenExpiration"): "-5"})).contains("a positive integer"));
        // The per-RP hashes load when they read, and disable the RP when they do not.
        let hashes = json!({"oidcRPMetaDataMacros": {"a": {"m": "uc($uid)", "e": ""}},
            "oidcRPMetaDataScopeRules": {"a": {"admin": "$uid eq \"dwho\""}},
            "oidcRPMetaDataOptionsExtraClaims": {"a": {"corp": "team unit"}},
            "oidcRPMetaDataExportedVars": {"a": {"team": "ou;string;always"}}});
        assert_eq!(disabled(json!({}), hashes), None);
        let bad = json!({"oidcRPMetaDataMacros": {"a": {"m": "uc($uid"}}});
        assert!(disabled(json!({}), bad).unwrap().starts_with(
            "oidcRPMetaDataMacros/a/m = uc($uid is not supported (the expression does not parse"
        ));
        let bad = json!({"oidcRPMetaDataScopeRules": {"a": {"admin": "$uid eq"}}});
        assert!(disabled(json!({}), bad)
            .unwrap()
            .starts_with("oidcRPMetaDataScopeRules/a/admin = $uid eq is not supported (the rule"));
        let bad = json!({"oidcRPMetaDataExportedVars": {"a": {"email": "mail;float"}}});
        assert!(disabled(json!({}), bad)
            .unwrap()
            .starts_with("oidcRPMetaDataExportedVars/a/email = mail;float is not supported (type"));
        let inside = json!({k("ExtraClaims"): {"corp": "team"}});
        assert!(case(inside).contains("set beside the options"));
        // Cosmetic options and refused options at their default load.
        let fine = json!({k("DisplayName"): "App", k("AllowOffline"): 0, k("LogoutType"): "front",
            k("UserInfoSignAlg"): "", k("Rule"): "", k("AuthnLevel"): ""});
        assert_eq!(disabled(fine, json!({})), None);
        // none is allowed where LemonLDAP::NG allows it, with a warning for config check.
        let mut o = raw(json!({"oidcRPMetaDataOptionsClientID": "cid",
            "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "none"}));
        o.insert(
            "oidcRPMetaDataOptionsUserInfoSignAlg".into(),
            json!("HS384"),
        );
        let r = raw(json!({"oidcRPMetaDataOptions": {"a": o}}));
        let s = Settings::from_conf(&r).unwrap();
        let rp = s.rp("cid").unwrap();
        assert_eq!((rp.id_alg, rp.userinfo_alg), (Alg::None, Some(Alg::HS384)));
        assert_eq!(s.warnings.len(), 1);
        assert!(s.warnings[0].1.contains("IDTokenSignAlg = none"));
    }

    #[test]
    fn logout_channels_are_read() {
        use crate::oidc::channels::Channel;
        let rp = |extra: Value| {
            let mut o = raw(json!({"oidcRPMetaDataOptionsClientID": "cid",
                "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}));
            o.extend(raw(extra));
            let s = Settings::from_conf(&raw(json!({"oidcRPMetaDataOptions": {"a": o}}))).unwrap();
            s.rp("cid").unwrap().logout.clone()
        };
        assert_eq!(rp(json!({"oidcRPMetaDataOptionsLogoutType": "back"})), None);
        let front = rp(json!({"oidcRPMetaDataOptionsLogoutUrl": "http://rp/fc"})).unwrap();
        assert_eq!(
            (front.channel, front.session_required),
            (Channel::Front, false)
        );
        let back = rp(json!({"oidcRPMetaDataOptionsLogoutUrl": "https://rp/bc?x=1",
            "oidcRPMetaDataOptionsLogoutType": "back", "oidcRPMetaDataOptionsLogoutSessionRequired": 1}))
        .unwrap();
        assert_eq!(back.url, "https://rp/bc?x=1");
        assert_eq!((back.channel, back.session_required), (Channel::Back, true));
    }

    #[test]
    fn a_missing_client_id_names_the_rp() {
        let r = raw(json!({"oidcRPMetaDataOptions": {"noid": {
            "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}}}));
        let s = Settings::from_conf(&r).unwrap();
        let d = &s.disabled[0];
        assert_eq!((d.name.as_str(), d.client_id.as_str()), ("noid", ""));
        assert_eq!(
            d.reason,
            "oidcRPMetaDataOptionsClientID = (unset) is not supported (a client id is required)"
        );
    }

    #[test]
    fn rule_and_level_are_read() {
        let r = raw(json!({"oidcRPMetaDataOptions": {"a": {
            "oidcRPMetaDataOptionsClientID": "cid", "oidcRPMetaDataOptionsClientSecret": "s",
            "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256", "oidcRPMetaDataOptionsAuthnLevel": "3",
            "oidcRPMetaDataOptionsRule": "$uid eq \"dwho\""}}}));
        let s = Settings::from_conf(&r).unwrap();
        let rp = s.rp("cid").unwrap();
        assert_eq!(rp.authn_level, 3);
        let rule = rp.rule.as_ref().unwrap();
        assert!(rule.eval(&raw(json!({"uid": "dwho"}))));
        assert!(!rule.eval(&raw(json!({"uid": "rtyler"}))));
    }

    /// Two RPs with one client id: which one answers would be a guess, so neither does.
    #[test]
    fn a_shared_client_id_disables_both() {
        let one = json!({"oidcRPMetaDataOptionsClientID": "same",
            "oidcRPMetaDataOptionsClientSecret": "s", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"});
        let r = raw(json!({"oidcRPMetaDataOptions": {"a": one, "b": one}}));
        let s = Settings::from_conf(&r).unwrap();
        assert!(s.rp("same").is_none());
        assert_eq!(s.disabled.len(), 2);
        assert!(s.disabled[0]
            .reason
            .contains("another relying party has the same client id"));
    }

    /// A public client without a secret would get ID tokens signed with an empty key, which
    /// anybody can forge: it is disabled, the others still load.
    #[test]
    fn disables_rps_without_a_secret() {
        let r = raw(json!({"oidcRPMetaDataOptions": {
            "open": {"oidcRPMetaDataOptionsClientID": "open", "oidcRPMetaDataOptionsPublic": 1,
                "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"},
            "empty": {"oidcRPMetaDataOptionsClientID": "empty",
                "oidcRPMetaDataOptionsClientSecret": "", "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"},
            "ok": {"oidcRPMetaDataOptionsClientID": "ok", "oidcRPMetaDataOptionsClientSecret": "s",
                "oidcRPMetaDataOptionsPublic": 1, "oidcRPMetaDataOptionsIDTokenSignAlg": "HS256"}}}));
        let s = Settings::from_conf(&r).unwrap();
        assert!(s.rp("open").is_none() && s.rp("empty").is_none());
        assert!(s.rp("ok").is_some());
        let names: Vec<&str> = s.disabled.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, vec!["open", "empty"]);
        // A public client signed with a provider key needs no secret (LemonLDAP::NG's advice).
        let mut r = raw(json!({"oidcRPMetaDataOptions": {"open": {
            "oidcRPMetaDataOptionsClientID": "open", "oidcRPMetaDataOptionsPublic": 1,
            "oidcRPMetaDataOptionsIDTokenSignAlg": "EdDSA"}}}));
        crate::oidc::keygen::complete(&mut r).unwrap();
        let s = Settings::from_conf(&r).unwrap();
        assert_eq!(s.rp("open").map(|rp| rp.id_alg), Some(Alg::EdDSA));
    }

    #[test]
    fn client_authentication_options() {
        let k = |s: &str| format!("oidcRPMetaDataOptions{s}");
        let case = |extra: Value| disabled(extra, json!({})).unwrap_or_default();
        let ec = json!({"keys": [{"kty": "EC", "crv": "P-256", "x": "AQ", "y": "Ag"}]});
        assert_eq!(
            disabled(json!({k("AuthMethod"): "client_secret_jwt"}), json!({})),
            None
        );
        let keyed = json!({k("AuthMethod"): "private_key_jwt", k("Jwks"): ec.to_string()});
        assert_eq!(disabled(keyed, json!({})), None);
        assert!(case(json!({k("AuthMethod"): "tls_client_auth"})).contains(
            "one of client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt"
        ));
        assert!(case(json!({k("AuthMethod"): "private_key_jwt"}))
            .contains("needs the RP's public keys"));
        assert!(case(json!({k("Jwks"): "{"}))
            .starts_with("oidcRPMetaDataOptionsJwks = { is not supported (not JSON"));
        assert!(case(json!({k("JwksUri"): "https://rp/jwks"})).contains("not fetched"));
        assert!(
            case(json!({k("AuthMethod"): "client_secret_post", k("Public"): 1}))
                .contains("public client")
        );
    }
}
