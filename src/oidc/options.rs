//! THE table of relying-party options: every `oidcRPMetaDataOptions*` key LemonLDAP::NG 2.16
//! knows (`Manager/Attributes.pm`), the few later versions added that Limette reads (client
//! authentication: `AuthMethod`, `Jwks`, `JwksUri`), Limette's `RequestObjectSignAlg`, plus the per-RP hashes stored beside the
//! options, each marked honoured, ignored (cosmetic) or refused. `settings` disables a relying party whose
//! configuration this table refuses: an unknown option name, or a refused option set to
//! something other than LemonLDAP::NG's default. It also reads the values of honoured options
//! (flags, numbers, the rule) strictly; `settings` assembles them into an `Rp`.
use crate::config::support::{KeyInfo, Support};
use crate::config::{as_i64, value_string};
use crate::oidc::claims::Source;
use crate::rules::{Expression, Rule};
use serde_json::{Map, Value};

use Support::{Ignored, Implemented, Refused};

/// What Limette does with each relying-party option and per-RP hash.
#[rustfmt::skip]
pub const RP_OPTIONS: &[KeyInfo] = &[
    opt("oidcRPMetaDataOptionsAccessTokenClaims", Implemented, "0 or 1: the user's claims inside JWT access tokens"),
    opt("oidcRPMetaDataOptionsAccessTokenExpiration", Implemented, "seconds; unset or 0: oidcServiceAccessTokenExpiration"),
    opt("oidcRPMetaDataOptionsAccessTokenJWT", Implemented, "0 or 1: JWT access tokens (RFC 9068, typ at+jwt)"),
    opt("oidcRPMetaDataOptionsAccessTokenSignAlg", Implemented, "JWT access tokens: RS256 (default), RS384, RS512, HS256, HS384, HS512; ES256, EdDSA (Limette extensions)"),
    opt("oidcRPMetaDataOptionsAdditionalAudiences", Implemented, "space-separated audiences added to the ID token's aud"),
    opt("oidcRPMetaDataOptionsAllowClientCredentialsGrant", Implemented, "0 or 1: grant_type=client_credentials (confidential clients only)"),
    opt("oidcRPMetaDataOptionsAllowOffline", Implemented, "0 or 1: the offline_access scope (with prompt=consent or BypassConsent) gives a refresh token that outlives the SSO session"),
    opt("oidcRPMetaDataOptionsAllowPasswordGrant", Implemented, "0 or 1: grant_type=password, through the portal's authentication"),
    opt("oidcRPMetaDataOptionsAuthMethod", Implemented, "later LemonLDAP::NG: client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt; unset: either secret method"),
    opt("oidcRPMetaDataOptionsAuthnLevel", Implemented, "a session below this level gets portal error 102, no code"),
    opt("oidcRPMetaDataOptionsAuthorizationCodeExpiration", Implemented, "seconds; unset or 0: oidcServiceAuthorizationCodeExpiration"),
    opt("oidcRPMetaDataOptionsBypassConsent", Implemented, "0 or 1"),
    opt("oidcRPMetaDataOptionsClientID", Implemented, "required"),
    opt("oidcRPMetaDataOptionsClientSecret", Implemented, "required for confidential clients, and whenever an HS* algorithm is used (its HMAC key)"),
    opt("oidcRPMetaDataOptionsComment", Ignored, "cosmetic"),
    opt("oidcRPMetaDataOptionsDisplayName", Implemented, "the name the consent page and the portal's menu show (default: the RP's key)"),
    opt("oidcRPMetaDataOptionsExtraClaims", Implemented, "per RP: scope -> space-separated claims it releases (replaces a standard scope of the same name)"),
    opt("oidcRPMetaDataOptionsIcon", Implemented, "the consent page's logo when an absolute http(s) URL (cspImg must allow it); a file name of LemonLDAP::NG's static folder shows none"),
    opt("oidcRPMetaDataOptionsIDTokenExpiration", Implemented, "seconds; unset or 0: oidcServiceIDTokenExpiration"),
    opt("oidcRPMetaDataOptionsIDTokenForceClaims", Implemented, "0 or 1: the ID token carries the user's claims of the granted scopes"),
    opt("oidcRPMetaDataOptionsIDTokenSignAlg", Implemented, "HS256, HS384, HS512 (default), RS256, RS384, RS512, none (config check warns); ES256, EdDSA (Limette extensions)"),
    opt("oidcRPMetaDataOptionsJwks", Implemented, "later LemonLDAP::NG: the RP's public keys (a JWK Set: RSA, EC P-256, Ed25519) that verify its private_key_jwt assertions"),
    opt("oidcRPMetaDataOptionsJwksUri", Implemented, "later LemonLDAP::NG: http(s) URL of the RP's public keys (instead of oidcRPMetaDataOptionsJwks), fetched off the worker pool through outboundAllowTo (2 s, 64 KiB, no redirect), cached 10 min, fetched again when no kept key verifies a JWT (a new kid), at most every 30 s"),
    opt("oidcRPMetaDataOptionsLogoutBypassConfirm", Implemented, "0 or 1: RP-initiated logout with a valid id_token_hint of the current session skips the confirmation"),
    opt("oidcRPMetaDataOptionsLogoutSessionRequired", Implemented, "0 or 1: iss and sid on the front-channel URL, sid in the back-channel logout token"),
    opt("oidcRPMetaDataOptionsLogoutType", Implemented, "front (default): an iframe on the logout page; back: a signed logout token POSTed by the portal"),
    opt("oidcRPMetaDataOptionsLogoutUrl", Implemented, "http(s) URL told of the end of every session that used the RP"),
    opt("oidcRPMetaDataOptionsOfflineSessionExpiration", Implemented, "seconds an offline refresh token lives; unset or 0: oidcServiceOfflineSessionExpiration"),
    opt("oidcRPMetaDataOptionsPostLogoutRedirectUris", Implemented, "space-separated, exact match"),
    opt("oidcRPMetaDataOptionsPublic", Implemented, "0 or 1; a public client must use PKCE"),
    opt("oidcRPMetaDataOptionsRedirectUris", Implemented, "space-separated, exact match"),
    opt("oidcRPMetaDataOptionsRefreshToken", Implemented, "0 or 1"),
    opt("oidcRPMetaDataOptionsRequestObjectSignAlg", Implemented, "Limette: the only alg its request objects may use (none, HS*, RS*, ES256, EdDSA; none only when set so); unset: HS* with the secret or RS*/ES256/EdDSA with its keys"),
    opt("oidcRPMetaDataOptionsRequestUris", Implemented, "space-separated request_uri values the provider may fetch (* is a wildcard; 2 s, 16 KiB, no redirect, off the worker pool: see oidc.md); request objects signed as RequestObjectSignAlg says"),
    opt("oidcRPMetaDataOptionsRequirePKCE", Implemented, "0 or 1"),
    opt("oidcRPMetaDataOptionsRule", Implemented, "checked at authorize; a refused user gets portal error 84, no code"),
    opt("oidcRPMetaDataOptionsUserIDAttr", Implemented, "sub: this session attribute or per-RP macro (unset: whatToTrace); a user without it is refused"),
    opt("oidcRPMetaDataOptionsUserInfoSignAlg", Implemented, "empty (default): plain JSON; else a signed application/jwt answer, same algorithms as IDTokenSignAlg"),
    opt("oidcRPMetaDataExportedVars", Implemented, "claim name -> attribute or per-RP macro[;string|int|bool[;auto|always|never]]"),
    opt("oidcRPMetaDataMacros", Implemented, "per RP: name -> expression, read by claims and UserIDAttr before the session"),
    opt("oidcRPMetaDataScopeRules", Implemented, "per RP: scope -> rule; the scope is granted when it holds ($requested: asked for), removed when not"),
];

/// The entry of an option or per-RP hash, `None` for a name LemonLDAP::NG 2.16 does not know.
pub fn rp_option(key: &str) -> Option<&'static KeyInfo> {
    RP_OPTIONS.iter().find(|k| k.key == key)
}

/// Checks the names and the refused options of one RP (`opts`: its `oidcRPMetaDataOptions`
/// object). `Err` is the reason the RP is disabled: `<key> = <value> is not supported (<what
/// is>)`. (The per-RP hashes beside the options are all honoured; `settings` reads them.)
pub fn check_refused(opts: &Map<String, Value>) -> Result<(), String> {
    for (key, value) in opts {
        let Some(info) = rp_option(key) else {
            // A typo or a newer LemonLDAP::NG: what it asks for cannot be known. Its value is
            // not shown: the typo may be in the name of a secret.
            let why = "unknown option: a typo or a newer LemonLDAP::NG";
            return Err(format!("{key} = *** is not supported ({why})"));
        };
        if info.support == Refused && !is_default(key, value) {
            return Err(reason(key, value, info.note));
        }
    }
    Ok(())
}

/// Whether a value is LemonLDAP::NG's default for the key. Unset, `null`, `""`, `0`, `"0"`,
/// `false` and `{}` all mean "not set" (none of the refused options has another default).
pub fn is_default(_key: &str, value: &Value) -> bool {
    crate::config::support::is_off(value)
}

/// The text of a disable reason. The value is shown printable and short; a secret never is.
pub fn reason(key: &str, value: &Value, what_is: &str) -> String {
    format!("{key} = {} is not supported ({what_is})", shown(key, value))
}

/// A value fit for the log: `(unset)`, `***` for a secret, else at most 80 printable chars.
pub fn shown(key: &str, value: &Value) -> String {
    if value.is_null() || value.as_str() == Some("") {
        return "(unset)".into();
    }
    if crate::config::support::is_secret(key) {
        return "***".into();
    }
    let text = match value {
        Value::String(s) => s.clone(),
        other => crate::config::redact::redacted(other).to_string(),
    };
    let mut out: String = text.chars().filter(|c| !c.is_control()).take(80).collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    out
}

// Readers of the honoured options' values: a value that does not read as LemonLDAP::NG
// would read it is a reason to disable the RP, never a guess.

/// The full key of an option.
pub fn key(short: &str) -> String {
    format!("oidcRPMetaDataOptions{short}")
}

/// A boolean option: 0/1 as LemonLDAP::NG's manager writes them. Another word ("off",
/// "no") would be true for LemonLDAP::NG (Perl) and is refused rather than guessed.
pub fn flag(o: &Map<String, Value>, short: &str) -> Result<bool, String> {
    let k = key(short);
    match o.get(&k) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => match value_string(v).trim() {
            "" | "0" => Ok(false),
            "1" => Ok(true),
            _ => Err(reason(&k, v, "0 or 1")),
        },
    }
}

/// An integer option; unset, empty or 0 is `dflt` (LemonLDAP::NG's `|| default`).
pub fn integer(o: &Map<String, Value>, short: &str, dflt: i64) -> Result<i64, String> {
    let k = key(short);
    match o.get(&k) {
        None | Some(Value::Null) => Ok(dflt),
        Some(Value::String(t)) if t.trim().is_empty() => Ok(dflt),
        Some(v) => match as_i64(v) {
            Some(0) => Ok(dflt),
            Some(n) if n > 0 => Ok(n),
            _ => Err(reason(&k, v, "a positive integer")),
        },
    }
}

/// The access rule, compiled once; an empty rule is no rule (LemonLDAP::NG: `length $rule`).
pub fn rule(o: &Map<String, Value>) -> Result<Option<Rule>, String> {
    let k = key("Rule");
    let src = o.get(&k).map(value_string).unwrap_or_default();
    if src.is_empty() {
        return Ok(None);
    }
    Rule::parse(&src).map(Some).map_err(|e| {
        reason(
            &k,
            &Value::String(src.clone()),
            &format!("the rule does not parse: {e}"),
        )
    })
}

/// The RP's entry in a per-RP hash beside the options (`<key>/<rp name>`): name -> text, in
/// key order. Unset or empty is no entry; anything but an object of strings is a reason.
pub fn per_rp(
    raw: &Map<String, Value>,
    key: &str,
    name: &str,
) -> Result<Vec<(String, String)>, String> {
    match raw.get(key).and_then(|all| all.get(name)) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) if s.is_empty() => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => {
                    Ok((k.clone(), value_string(v)))
                }
                _ => Err(reason(key, v, "name -> text")),
            })
            .collect(),
        Some(v) => Err(reason(key, v, "an object of names and texts")),
    }
}

/// `oidcRPMetaDataExportedVars/<rp>`: claim -> `attribute[;type[;array]]`.
pub fn exported_vars(
    raw: &Map<String, Value>,
    name: &str,
) -> Result<Vec<(String, Source)>, String> {
    let k = "oidcRPMetaDataExportedVars";
    per_rp(raw, k, name)?
        .into_iter()
        .map(|(claim, spec)| match Source::parse(&spec) {
            Ok(src) => Ok((claim, src)),
            Err(e) => Err(reason(
                &format!("{k}/{name}/{claim}"),
                &Value::String(spec),
                &e,
            )),
        })
        .collect()
}

/// `oidcRPMetaDataMacros/<rp>`: name -> expression, compiled; an empty one is skipped (as
/// LemonLDAP::NG does), one that does not parse disables the RP.
pub fn macros(raw: &Map<String, Value>, name: &str) -> Result<Vec<(String, Expression)>, String> {
    let k = "oidcRPMetaDataMacros";
    let mut out = Vec::new();
    for (macro_name, src) in per_rp(raw, k, name)? {
        if src.is_empty() {
            continue;
        }
        match Expression::parse(&src) {
            Ok(e) => out.push((macro_name, e)),
            Err(e) => {
                let why = format!("the expression does not parse: {e}");
                return Err(reason(
                    &format!("{k}/{name}/{macro_name}"),
                    &Value::String(src),
                    &why,
                ));
            }
        }
    }
    Ok(out)
}

/// `oidcRPMetaDataScopeRules/<rp>`: scope -> rule, compiled; empty skipped, unparsable a reason.
pub fn scope_rules(raw: &Map<String, Value>, name: &str) -> Result<Vec<(String, Rule)>, String> {
    let k = "oidcRPMetaDataScopeRules";
    let mut out = Vec::new();
    for (scope, src) in per_rp(raw, k, name)? {
        if src.is_empty() {
            continue;
        }
        match Rule::parse(&src) {
            Ok(r) => out.push((scope, r)),
            Err(e) => {
                let why = format!("the rule does not parse: {e}");
                return Err(reason(
                    &format!("{k}/{name}/{scope}"),
                    &Value::String(src),
                    &why,
                ));
            }
        }
    }
    Ok(out)
}

/// A row of the table (keeps the table one line a key).
const fn opt(key: &'static str, support: Support, note: &'static str) -> KeyInfo {
    KeyInfo { key, support, note }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every option of LemonLDAP::NG 2.16 (from `Manager/Attributes.pm`), so that a key
    /// missing from the table would disable RPs that use it.
    #[rustfmt::skip]
    const LLNG_2_16: &[&str] = &[
        "AccessTokenClaims", "AccessTokenExpiration", "AccessTokenJWT", "AccessTokenSignAlg",
        "AdditionalAudiences", "AllowClientCredentialsGrant", "AllowOffline",
        "AllowPasswordGrant", "AuthnLevel", "AuthorizationCodeExpiration", "BypassConsent",
        "ClientID", "ClientSecret", "Comment", "DisplayName", "ExtraClaims", "Icon",
        "IDTokenExpiration", "IDTokenForceClaims", "IDTokenSignAlg", "LogoutBypassConfirm",
        "LogoutSessionRequired", "LogoutType", "LogoutUrl", "OfflineSessionExpiration",
        "PostLogoutRedirectUris", "Public", "RedirectUris", "RefreshToken", "RequestUris",
        "RequirePKCE", "Rule", "UserIDAttr", "UserInfoSignAlg",
    ];

    /// Options of later LemonLDAP::NG versions (2.17+) that Limette reads as extensions.
    const LATER: &[&str] = &["AuthMethod", "Jwks", "JwksUri"];

    /// Options of Limette's own, named in LemonLDAP::NG's style.
    const OWN: &[&str] = &["RequestObjectSignAlg"];

    #[test]
    fn the_table_lists_every_option_once() {
        for k in LLNG_2_16 {
            let key = format!("oidcRPMetaDataOptions{k}");
            assert!(rp_option(&key).is_some(), "{key} missing");
        }
        for k in [
            "oidcRPMetaDataMacros",
            "oidcRPMetaDataScopeRules",
            "oidcRPMetaDataExportedVars",
        ] {
            assert!(rp_option(k).is_some(), "{k} missing");
        }
        for k in LATER {
            let key = format!("oidcRPMetaDataOptions{k}");
            assert!(rp_option(&key).is_some(), "{key} missing");
        }
        for k in OWN {
            let key = format!("oidcRPMetaDataOptions{k}");
            assert!(rp_option(&key).is_some(), "{key} missing");
        }
        assert_eq!(
            RP_OPTIONS.len(),
            LLNG_2_16.len() + LATER.len() + OWN.len() + 3
        );
        for (i, a) in RP_OPTIONS.iter().enumerate() {
            assert!(
                RP_OPTIONS[i + 1..].iter().all(|b| b.key != a.key),
                "{} twice",
                a.key
            );
        }
        assert!(rp_option("oidcRPMetaDataOptionsFoo").is_none());
    }

    #[test]
    fn defaults_are_compared_by_meaning() {
        let k = "oidcRPMetaDataOptionsAllowOffline";
        for v in [
            json!(null),
            json!(0),
            json!("0"),
            json!(""),
            json!(false),
            json!(" "),
        ] {
            assert!(is_default(k, &v), "{v}");
        }
        for v in [json!(1), json!("1"), json!(true), json!("yes")] {
            assert!(!is_default(k, &v), "{v}");
        }
        assert!(is_default("oidcRPMetaDataMacros", &json!({})));
        assert!(!is_default("oidcRPMetaDataMacros", &json!({"a": "1"})));
    }

    #[test]
    fn unknown_names_are_refused() {
        let opts = |v: Value| v.as_object().cloned().unwrap_or_default();
        let ok = opts(json!({"oidcRPMetaDataOptionsAllowOffline": 0,
            "oidcRPMetaDataOptionsLogoutType": "front", "oidcRPMetaDataOptionsIcon": "x.png"}));
        assert_eq!(check_refused(&ok), Ok(()));
        let typo = opts(json!({"oidcRPMetaDataOptionsClientScret": "hush"}));
        let e = check_refused(&typo).unwrap_err();
        assert!(
            e.starts_with(
                "oidcRPMetaDataOptionsClientScret = *** is not supported (unknown option"
            ),
            "{e}"
        );
    }

    #[test]
    fn values_are_shown_short_and_never_secret() {
        assert_eq!(
            shown("oidcRPMetaDataOptionsClientSecret", &json!("s3cr3t")),
            "***"
        );
        assert_eq!(
            shown("oidcRPMetaDataOptionsClientID", &json!("")),
            "(unset)"
        );
        assert_eq!(shown("k", &json!("a\nb")), "ab");
        assert_eq!(shown("k", &json!("x".repeat(100))).chars().count(), 81);
    }
}
