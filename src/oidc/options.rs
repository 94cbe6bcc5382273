//! THE table of relying-party options: every `oidcRPMetaDataOptions*` key LemonLDAP::NG 2.16
//! knows (`Manager/Attributes.pm`), plus the per-RP hashes stored beside the options, each
//! marked honoured, ignored (cosmetic) or refused. `settings` disables a relying party whose
//! configuration this table refuses: an unknown option name, or a refused option set to
//! something other than LemonLDAP::NG's default. It also reads the values of honoured options
//! (flags, numbers, the rule) strictly; `settings` assembles them into an `Rp`.
use crate::config::support::{KeyInfo, Support};
use crate::config::{as_i64, value_string};
use crate::rules::Rule;
use serde_json::{Map, Value};

use Support::{Ignored, Implemented, Refused};

/// What Limette does with each relying-party option and per-RP hash.
#[rustfmt::skip]
pub const RP_OPTIONS: &[KeyInfo] = &[
    opt("oidcRPMetaDataOptionsAccessTokenClaims", Implemented, "0 or 1: the user's claims inside JWT access tokens"),
    opt("oidcRPMetaDataOptionsAccessTokenExpiration", Implemented, "seconds; unset or 0: oidcServiceAccessTokenExpiration"),
    opt("oidcRPMetaDataOptionsAccessTokenJWT", Implemented, "0 or 1: JWT access tokens (RFC 9068, typ at+jwt)"),
    opt("oidcRPMetaDataOptionsAccessTokenSignAlg", Implemented, "JWT access tokens: RS256 (default), RS384, RS512, HS256, HS384, HS512; ES256, EdDSA (Limette extensions)"),
    opt("oidcRPMetaDataOptionsAdditionalAudiences", Refused, "the ID token audience is the client id only"),
    opt("oidcRPMetaDataOptionsAllowClientCredentialsGrant", Implemented, "0 or 1: grant_type=client_credentials (confidential clients only)"),
    opt("oidcRPMetaDataOptionsAllowOffline", Implemented, "0 or 1: the offline_access scope (with prompt=consent or BypassConsent) gives a refresh token that outlives the SSO session"),
    opt("oidcRPMetaDataOptionsAllowPasswordGrant", Implemented, "0 or 1: grant_type=password, through the portal's authentication"),
    opt("oidcRPMetaDataOptionsAuthnLevel", Implemented, "a session below this level gets portal error 102, no code"),
    opt("oidcRPMetaDataOptionsAuthorizationCodeExpiration", Implemented, "seconds; unset or 0: oidcServiceAuthorizationCodeExpiration"),
    opt("oidcRPMetaDataOptionsBypassConsent", Implemented, "0 or 1"),
    opt("oidcRPMetaDataOptionsClientID", Implemented, "required"),
    opt("oidcRPMetaDataOptionsClientSecret", Implemented, "required for confidential clients, and whenever an HS* algorithm is used (its HMAC key)"),
    opt("oidcRPMetaDataOptionsComment", Ignored, "cosmetic"),
    opt("oidcRPMetaDataOptionsDisplayName", Ignored, "cosmetic"),
    opt("oidcRPMetaDataOptionsExtraClaims", Refused, "extra claims are not implemented"),
    opt("oidcRPMetaDataOptionsIcon", Ignored, "cosmetic"),
    opt("oidcRPMetaDataOptionsIDTokenExpiration", Implemented, "seconds; unset or 0: oidcServiceIDTokenExpiration"),
    opt("oidcRPMetaDataOptionsIDTokenForceClaims", Refused, "the ID token never carries the user's claims"),
    opt("oidcRPMetaDataOptionsIDTokenSignAlg", Implemented, "HS256, HS384, HS512 (default), RS256, RS384, RS512, none (config check warns); ES256, EdDSA (Limette extensions)"),
    opt("oidcRPMetaDataOptionsLogoutBypassConfirm", Implemented, "0 or 1: RP-initiated logout with a valid id_token_hint of the current session skips the confirmation"),
    opt("oidcRPMetaDataOptionsLogoutSessionRequired", Refused, "no front- or back-channel logout"),
    opt("oidcRPMetaDataOptionsLogoutType", Refused, "no front- or back-channel logout (the default, front, is accepted)"),
    opt("oidcRPMetaDataOptionsLogoutUrl", Refused, "no front- or back-channel logout"),
    opt("oidcRPMetaDataOptionsOfflineSessionExpiration", Implemented, "seconds an offline refresh token lives; unset or 0: oidcServiceOfflineSessionExpiration"),
    opt("oidcRPMetaDataOptionsPostLogoutRedirectUris", Implemented, "space-separated, exact match"),
    opt("oidcRPMetaDataOptionsPublic", Implemented, "0 or 1; a public client must use PKCE"),
    opt("oidcRPMetaDataOptionsRedirectUris", Implemented, "space-separated, exact match"),
    opt("oidcRPMetaDataOptionsRefreshToken", Implemented, "0 or 1"),
    opt("oidcRPMetaDataOptionsRequestUris", Refused, "no request objects (request_uri)"),
    opt("oidcRPMetaDataOptionsRequirePKCE", Implemented, "0 or 1"),
    opt("oidcRPMetaDataOptionsRule", Implemented, "checked at authorize; a refused user gets portal error 84, no code"),
    opt("oidcRPMetaDataOptionsUserIDAttr", Refused, "sub is the session's whatToTrace value"),
    opt("oidcRPMetaDataOptionsUserInfoSignAlg", Implemented, "empty (default): plain JSON; else a signed application/jwt answer, same algorithms as IDTokenSignAlg"),
    opt("oidcRPMetaDataExportedVars", Implemented, "claim name -> session attribute"),
    opt("oidcRPMetaDataMacros", Refused, "per-RP macros are not implemented"),
    opt("oidcRPMetaDataScopeRules", Refused, "per-RP scope rules are not implemented"),
];

/// The per-RP hashes stored beside `oidcRPMetaDataOptions` (`<key>/<rp name>/...`) that this
/// table refuses when the RP's hash is not empty.
pub const REFUSED_HASHES: &[&str] = &[
    "oidcRPMetaDataMacros",
    "oidcRPMetaDataScopeRules",
    "oidcRPMetaDataOptionsExtraClaims",
];

/// The entry of an option or per-RP hash, `None` for a name LemonLDAP::NG 2.16 does not know.
pub fn rp_option(key: &str) -> Option<&'static KeyInfo> {
    RP_OPTIONS.iter().find(|k| k.key == key)
}

/// Checks the names and the refused options of one RP (`opts`: its `oidcRPMetaDataOptions`
/// object; `raw`: the whole configuration, for the per-RP hashes). `Err` is the reason the RP
/// is disabled: `<key> = <value> is not supported (<what is>)`.
pub fn check_refused(
    name: &str,
    opts: &Map<String, Value>,
    raw: &Map<String, Value>,
) -> Result<(), String> {
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
    for key in REFUSED_HASHES {
        let value = raw.get(*key).and_then(|all| all.get(name));
        if let Some(v) = value.filter(|v| !is_default(key, v)) {
            let note = rp_option(key).map_or("not implemented", |i| i.note);
            return Err(reason(key, v, note));
        }
    }
    Ok(())
}

/// Whether a value is LemonLDAP::NG's default for the key. Unset, `null`, `""`, `0`, `"0"`,
/// `false` and `{}` all mean "not set"; LemonLDAP::NG's only non-empty default among the
/// refused options is `LogoutType = front`.
pub fn is_default(key: &str, value: &Value) -> bool {
    let unset = crate::config::support::is_off(value);
    unset || (key == "oidcRPMetaDataOptionsLogoutType" && value.as_str() == Some("front"))
}

/// The text of a disable reason. The value is shown printable and short; a secret never is.
pub fn reason(key: &str, value: &Value, what_is: &str) -> String {
    format!("{key} = {} is not supported ({what_is})", shown(key, value))
}

/// A value fit for the log: `(unset)`, `***` for a secret, else at most 80 printable chars.
pub fn shown(key: &str, value: &Value) -> String {
    let lower = key.to_ascii_lowercase();
    if value.is_null() || value.as_str() == Some("") {
        return "(unset)".into();
    }
    if lower.contains("secret") || lower.contains("password") {
        return "***".into();
    }
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
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
        assert_eq!(RP_OPTIONS.len(), LLNG_2_16.len() + 3);
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
        let t = "oidcRPMetaDataOptionsLogoutType";
        assert!(is_default(t, &json!("front")) && !is_default(t, &json!("back")));
        assert!(is_default("oidcRPMetaDataMacros", &json!({})));
        assert!(!is_default("oidcRPMetaDataMacros", &json!({"a": "1"})));
    }

    #[test]
    fn refused_options_unknown_names_and_hashes() {
        let opts = |v: Value| v.as_object().cloned().unwrap_or_default();
        let raw = Map::new();
        let ok = opts(json!({"oidcRPMetaDataOptionsAllowOffline": 0,
            "oidcRPMetaDataOptionsLogoutType": "front", "oidcRPMetaDataOptionsIcon": "x.png"}));
        assert_eq!(check_refused("a", &ok, &raw), Ok(()));
        let off = opts(json!({"oidcRPMetaDataOptionsRequestUris": "http://rp/r"}));
        assert_eq!(
            check_refused("a", &off, &raw).unwrap_err(),
            "oidcRPMetaDataOptionsRequestUris = http://rp/r is not supported (no request objects (request_uri))"
        );
        let typo = opts(json!({"oidcRPMetaDataOptionsClientScret": "hush"}));
        let e = check_refused("a", &typo, &raw).unwrap_err();
        assert!(
            e.starts_with(
                "oidcRPMetaDataOptionsClientScret = *** is not supported (unknown option"
            ),
            "{e}"
        );
        let raw = opts(
            json!({"oidcRPMetaDataScopeRules": {"a": {"admin": "$uid eq \"dwho\""}, "b": {}}}),
        );
        let e = check_refused("a", &ok, &raw).unwrap_err();
        assert!(
            e.starts_with("oidcRPMetaDataScopeRules = {\"admin\""),
            "{e}"
        );
        assert_eq!(check_refused("b", &ok, &raw), Ok(()));
        let extra = opts(json!({"oidcRPMetaDataOptionsExtraClaims": {"a": {"c": "x y"}}}));
        assert!(check_refused("a", &ok, &extra).is_err());
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
