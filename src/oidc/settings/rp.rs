//! One relying party's settings: the `Rp` the endpoints read, and `parse_rp`, which reads one
//! `oidcRPMetaDataOptions/<name>` with the per-RP hashes beside it, strictly: the reason it
//! returns disables the RP (`settings`).
use super::logout::{self, Logout};
use super::rp_keys::{parse_jwks, AuthMethod, RpKey};
use super::secret::Secret;
use crate::config::{as_i64, value_string};
use crate::oidc::claims::Release;
use crate::oidc::keys::signing::{alg_reason, signing_algs};
use crate::oidc::keys::Alg;
use crate::oidc::options::{
    check_refused, exported_vars, flag, integer, key, macros, per_rp, reason, rule, scope_rules,
};
use crate::rules::Rule;
use serde_json::{Map, Value};

/// One relying party.
#[derive(Debug, Clone, Default)]
pub struct Rp {
    /// Its configuration key (`oidcRPMetaDataOptions/<name>`).
    pub name: String,
    /// `oidcRPMetaDataOptionsDisplayName`, else the key: what users read on the consent page.
    pub display_name: String,
    /// `oidcRPMetaDataOptionsIcon` when it is an absolute http(s) URL (LemonLDAP::NG reads
    /// any other value as a file of its own static folder, which Limette does not have).
    pub icon: Option<String>,
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
    pub logout: Option<Logout>,
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
    /// `oidcRPMetaDataOptionsJwksUri` (later LemonLDAP::NG): where the RP publishes its
    /// public keys when `jwks` is empty (fetched and cached by `rp_jwks`).
    pub jwks_uri: Option<String>,
    /// `oidcRPMetaDataOptionsRequestObjectSignAlg` (Limette; `request_object_signing_alg` of a
    /// registration): the only algorithm its request objects may use, `none` included; unset:
    /// any signing algorithm its secret or keys verify, never `none`.
    pub request_object_alg: Option<Alg>,
}

/// `oidcServiceOfflineSessionExpiration`'s default (LemonLDAP::NG 2.16: 30 days).
pub const OFFLINE_TTL: i64 = 2_592_000;

/// `oidcServiceOfflineSessionExpiration`, or its default when unset or 0.
pub(super) fn service_offline_ttl(raw: &Map<String, Value>) -> i64 {
    raw.get("oidcServiceOfflineSessionExpiration")
        .and_then(as_i64)
        .filter(|n| *n > 0)
        .unwrap_or(OFFLINE_TTL)
}

/// One relying party, or the reason it is disabled.
pub(super) fn parse_rp(
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
    let (auth_method, jwks, jwks_uri) = client_auth(o, public)?;
    let request_object_alg = request_object_alg(o, !jwks.is_empty() || jwks_uri.is_some())?;
    // HS* tokens are keyed with the client secret (OpenID Connect Core 10.1): without one,
    // anybody could sign a token this RP would accept. A public client needs one too then.
    let hmac = [Some(id_alg), userinfo_alg, access_jwt]
        .into_iter()
        .flatten()
        .any(|a| a.as_str().starts_with("HS"));
    let keyed = auth_method == Some(AuthMethod::PrivateKeyJwt);
    let hmac = hmac || request_object_alg.is_some_and(|a| a.as_str().starts_with("HS"));
    if s("ClientSecret").is_empty() && (hmac || !(public || keyed)) {
        let why = if hmac {
            "a secret is required: it is the HMAC key of this RP's HS* tokens, public clients included"
        } else {
            "a secret is required for a confidential client"
        };
        return Err(reason(&key("ClientSecret"), &v("ClientSecret"), why));
    }
    let words = |k: &str| s(k).split_whitespace().map(str::to_string).collect();
    let icon = s("Icon").trim().to_string();
    let absolute = ["http://", "https://"].iter().any(|p| {
        icon.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    });
    Ok(Rp {
        name: name.to_string(),
        display_name: Some(s("DisplayName").trim().to_string())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| name.to_string()),
        icon: absolute.then_some(icon),
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
        logout: logout::parse(o, id_alg)?,
        allow_client_credentials: flag(o, "AllowClientCredentialsGrant")?,
        allow_password: flag(o, "AllowPasswordGrant")?,
        allow_offline: flag(o, "AllowOffline")?,
        offline_ttl: integer(o, "OfflineSessionExpiration", service_offline_ttl(raw))?,
        auth_method,
        jwks,
        jwks_uri,
        request_object_alg,
    })
}

/// `RequestObjectSignAlg`: an algorithm name (`none` included); an algorithm of the RP's own
/// keys needs them (`Jwks` or `JwksUri`).
fn request_object_alg(o: &Map<String, Value>, keyed: bool) -> Result<Option<Alg>, String> {
    let k = key("RequestObjectSignAlg");
    let raw = o.get(&k).cloned().unwrap_or(Value::Null);
    let alg = match value_string(&raw).trim() {
        "" => return Ok(None),
        name => Alg::parse(name).ok_or_else(|| {
            let names: Vec<&str> = Alg::ALL.iter().map(|a| a.as_str()).collect();
            reason(&k, &raw, &format!("one of {}, or unset", names.join(", ")))
        })?,
    };
    if alg.key_kind().is_some() && !keyed {
        let why = "an algorithm of the RP's keys needs oidcRPMetaDataOptionsJwks or JwksUri";
        return Err(reason(&k, &raw, why));
    }
    Ok(Some(alg))
}

/// The RP's client authentication: its method and its keys, inline or at a URL.
type ClientAuth = (Option<AuthMethod>, Vec<RpKey>, Option<String>);

/// `AuthMethod`, `Jwks` and `JwksUri`, read strictly: an unknown method, a key set that does
/// not read, a key URL that is not an absolute http(s) URL, both a key set and a key URL
/// (RFC 7591 2: one or the other), `private_key_jwt` without keys, or a method on a public
/// client (which has none: it sends its client id alone) disable the RP.
fn client_auth(o: &Map<String, Value>, public: bool) -> Result<ClientAuth, String> {
    let (mk, jk, uk) = (key("AuthMethod"), key("Jwks"), key("JwksUri"));
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
    let raw_uri = o.get(&uk).cloned().unwrap_or(Value::Null);
    let uri = Some(value_string(&raw_uri).trim().to_string()).filter(|u| !u.is_empty());
    if let Some(u) = &uri {
        if !is_redirect_uri(u) {
            return Err(reason(&uk, &raw_uri, "an absolute http(s) URL"));
        }
        if !jwks.is_empty() {
            let why = "either the keys (oidcRPMetaDataOptionsJwks) or their URL, not both";
            return Err(reason(&uk, &raw_uri, why));
        }
    }
    if method == Some(AuthMethod::PrivateKeyJwt) && jwks.is_empty() && uri.is_none() {
        let why = "private_key_jwt needs the RP's public keys in oidcRPMetaDataOptionsJwks or \
                   oidcRPMetaDataOptionsJwksUri";
        return Err(reason(&mk, &raw_method, why));
    }
    Ok((method, jwks, uri))
}

/// An absolute http(s) URI with a host, no fragment, no whitespace (RFC 7591 2; the option
/// is space-separated).
pub fn is_redirect_uri(u: &str) -> bool {
    let rest = u
        .strip_prefix("https://")
        .or_else(|| u.strip_prefix("http://"));
    let host_ok = rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'));
    host_ok && !u.contains('#') && !u.chars().any(|c| c.is_whitespace() || c.is_control())
}
