//! Relying parties and service settings, parsed once from `oidcRPMetaDataOptions`,
//! `oidcRPMetaDataExportedVars` and the `oidcService...` keys. Handlers only see typed values.
//! A relying party whose configuration Limette cannot honour (see `options`) is disabled:
//! left out of `rps`, so it is an unknown client, listed in `disabled`, and named in one
//! error line at load. The rest of the configuration still loads. The provider's signing keys
//! are read here too (`keys::Keyring`): an RP whose algorithm needs a key that is missing or
//! unreadable is disabled.
pub mod logout;
pub mod registration;
mod rp;
pub mod rp_keys;
mod secret;
mod signing;
#[cfg(test)]
mod tests;

pub use rp::{is_redirect_uri, Rp, OFFLINE_TTL};
pub use secret::Secret;

use crate::config::{as_i64, truthy, value_string};
use crate::oidc::keys::Keyring;
use crate::oidc::options::{self, reason};
use crate::rules::Rule;
use rp::{parse_rp, service_offline_ttl};
use serde_json::{json, Map, Value};
use signing::{has_keys, none_warnings};

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
    /// Dynamic registration's bounds (`oidcServiceDynamicRegistration*`).
    pub registration: registration::Limits,
    /// `oidcServiceAllowDynamicRegistration`: `/oauth2/register` is open.
    pub dynamic_registration: bool,
    /// `oidcServiceIgnoreScopeForClaims`: claims follow the exported attributes, not the scope.
    pub ignore_scope_for_claims: bool,
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
            registration: registration::Limits::from_raw(raw)?,
            dynamic_registration: truthy(raw.get("oidcServiceAllowDynamicRegistration")),
            ignore_scope_for_claims: truthy(raw.get("oidcServiceIgnoreScopeForClaims")),
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
            options::shown(k, &json!(v))
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
                options::shown(k, &json!(text))
            )
        }),
    }
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        Settings::from_conf(raw)
    }
}
