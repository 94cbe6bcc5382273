//! The start-up gate: a configuration that names a module, a store or a value Limette does not
//! implement is refused, key by key, before anything runs. Each refusal is one line naming the
//! key, the value and what is supported, e.g. `authentication = LDAP is not supported
//! (supported: Demo, REST)`. Module names compare as LemonLDAP::NG compares them: exactly, as
//! the Perl module names they are. The same function serves start-up (exit 2), the reload of a
//! newer configuration (the old one stays) and `limette config check`.
use super::support::{self, Support};
use super::value_string;
use serde_json::{Map, Value};

/// `authentication` modules Limette implements.
pub const AUTHENTICATION: &[&str] = &["Demo", "REST"];
/// `passwordDB` values accepted: Limette has no password-change page, so these only say
/// where passwords would be changed; any other module is refused.
pub const PASSWORD_DB: &[&str] = &["Demo", "REST", "Null"];
/// `registerDB` values accepted (Limette has no registration page).
pub const REGISTER_DB: &[&str] = &["Demo", "Null"];
/// Session storage modules, LemonLDAP::NG's names first, then Limette's short names.
pub const SESSION_STORAGE: &[&str] = &[
    "Apache::Session::File",
    "Apache::Session::Browseable::File",
    "Apache::Session::SQLite3",
    "Apache::Session::Browseable::SQLite",
    "Apache::Session::Browseable::PgJSON",
    "Lemonldap::NG::Common::Apache::Session::REST",
    "File",
    "SQLite",
    "PgJSON",
    "REST",
];
/// Notification storage types.
pub const NOTIFICATION_STORAGE: &[&str] = &["File", "DBI", "SQLite"];
/// `[configuration] type` values.
pub const CONF_TYPES: &[&str] = &["File", "RDBI", "CDBI", "SQLite", "REST"];

/// Every refusal of a main configuration (defaults, stored values and `[portal]` overrides
/// merged): one line each, without the `error: ` prefix.
pub fn refusals(raw: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let get = |k: &str| raw.get(k).map(value_string).unwrap_or_default();
    one_of(
        &mut out,
        "authentication",
        &get("authentication"),
        AUTHENTICATION,
    );
    let auth = get("authentication");
    let user_db = get("userDB");
    if user_db != "Same" && !AUTHENTICATION.contains(&user_db.as_str()) {
        let supported = ["Same"].iter().chain(AUTHENTICATION).copied();
        one_of(&mut out, "userDB", &user_db, &supported.collect::<Vec<_>>());
    } else if !(user_db == "Same" || user_db == auth) {
        out.push(format!(
            "userDB = {user_db} is not supported with authentication = {auth} (supported: Same, {auth})"
        ));
    }
    // Unset, both are off in LemonLDAP::NG (no password module, no registration plugin).
    for (key, supported) in [("passwordDB", PASSWORD_DB), ("registerDB", REGISTER_DB)] {
        let v = get(key);
        if !v.is_empty() {
            one_of(&mut out, key, &v, supported);
        }
    }
    // Session stores are checked where the INI and the main configuration meet
    // (`LocalConf::store_refusals`): an INI that names its own store overrides the main configuration's.
    if let Err(e) = notification_storage(raw) {
        out.push(e);
    }
    values(&mut out, raw);
    for info in support::REFUSED {
        if let Some(v) = raw.get(info.key) {
            if !support::is_default(info.key, v) {
                out.push(format!(
                    "{} = {} is not supported ({} is not implemented)",
                    info.key,
                    short(v),
                    info.note
                ));
            }
        }
    }
    out
}

/// Checks a session store's module and, for SQL stores, the driver of its `DataSource`.
pub fn session_storage(key: &str, module: &str, options: Option<&Value>) -> Result<(), String> {
    let mut out = Vec::new();
    one_of(&mut out, key, module, SESSION_STORAGE);
    if let Some(e) = out.pop() {
        return Err(e);
    }
    if module.ends_with("REST") {
        let url = options
            .and_then(|o| o.get("baseUrl"))
            .map(value_string)
            .unwrap_or_default();
        plain_http(&format!("{key}Options baseUrl"), &url)?;
    }
    let opt = |k: &str| options.and_then(|o| o.get(k)).map(value_string);
    if module.contains("SQLite") {
        let source = opt("DataSource").unwrap_or_default();
        crate::config::stores::dbi_sqlite_path(&source)
            .map_err(|e| format!("{key}Options DataSource: {e}"))?;
    }
    if module.ends_with("PgJSON") {
        let source = opt("DataSource").unwrap_or_default();
        crate::config::stores::dbi_pg_source(
            &source,
            opt("UserName").as_deref(),
            opt("Password").as_deref(),
        )
        .map_err(|e| format!("{key}Options DataSource: {e}"))?;
        if let Some(t) = opt("TableName") {
            if !crate::util::is_sql_name(&t) {
                return Err(format!(
                    "{key}Options TableName = {t} is not supported (letters, digits and _ only)"
                ));
            }
        }
    }
    Ok(())
}

fn notification_storage(raw: &Map<String, Value>) -> Result<(), String> {
    let kind = raw.get("notificationStorage").map(value_string);
    let kind = kind.as_deref().unwrap_or("").trim();
    if kind.is_empty() {
        return Ok(());
    }
    let mut out = Vec::new();
    one_of(&mut out, "notificationStorage", kind, NOTIFICATION_STORAGE);
    if let Some(e) = out.pop() {
        return Err(e);
    }
    if kind != "File" {
        let opts = raw.get("notificationStorageOptions");
        let opt = |k: &str| opts.and_then(|o| o.get(k)).map(value_string);
        let chain = opt("dbiChain").unwrap_or_default();
        if crate::config::stores::is_dbi_pg(&chain) {
            if kind != "DBI" {
                return Err(format!(
                    "notificationStorage = {kind} is not supported with a DBI:Pg: chain (supported: DBI)"
                ));
            }
            crate::config::stores::dbi_pg_source(
                &chain,
                opt("dbiUser").as_deref(),
                opt("dbiPassword").as_deref(),
            )
            .map_err(|e| format!("notificationStorageOptions dbiChain: {e}"))?;
        } else {
            crate::config::stores::dbi_sqlite_path(&chain)
                .map_err(|e| format!("notificationStorageOptions dbiChain: {e}"))?;
        }
        if let Some(t) = opt("dbiTable") {
            if !crate::util::is_sql_name(&t) {
                return Err(format!(
                    "notificationStorageOptions dbiTable = {t} is not supported (letters, digits and _ only)"
                ));
            }
        }
    }
    Ok(())
}

/// Limette's outbound client speaks plain HTTP only (no TLS library in the binary): an
/// `https://` URL it must call is refused rather than failing at every use.
pub fn plain_http(key: &str, url: &str) -> Result<(), String> {
    if url.trim().to_ascii_lowercase().starts_with("https://") {
        return Err(format!(
            "{key} = {url} is not supported (Limette calls other nodes over plain http only: \
             reach them on loopback or a trusted network)"
        ));
    }
    Ok(())
}

/// Values of implemented keys that Limette cannot honour.
fn values(out: &mut Vec<String>, raw: &Map<String, Value>) {
    let get = |k: &str| raw.get(k).map(value_string).unwrap_or_default();
    if get("authentication") == "REST" || get("userDB") == "REST" {
        for key in ["restAuthUrl", "restUserDBUrl"] {
            let url = get(key);
            if url.trim().is_empty() {
                out.push(format!("{key} is empty (required with the REST module)"));
            } else if let Err(e) = plain_http(key, &url) {
                out.push(e);
            }
        }
    }
    let secured = get("securedCookie");
    if !matches!(secured.trim(), "" | "0" | "1") {
        out.push(format!(
            "securedCookie = {secured} is not supported (supported: 0, 1)"
        ));
    }
    let user_control = get("userControl");
    if regex_lite::Regex::new(&user_control).is_err() {
        out.push(format!(
            "userControl = {user_control} is not supported (not a pattern Limette can read)"
        ));
    }
    match crate::config::SameSite::parse(&get("sameSite")) {
        Err(e) => out.push(e),
        // Browsers drop a `SameSite=None` cookie that is not `Secure`: no login would stick.
        Ok(crate::config::SameSite::None) if secured.trim() != "1" => out.push(format!(
            "sameSite = {} is not supported with securedCookie = {} (None requires securedCookie = 1)",
            get("sameSite"),
            if secured.trim().is_empty() { "0" } else { secured.trim() }
        )),
        Ok(_) => {}
    }
    brute_force(out, raw);
    let path = get("issuerDBOpenIDConnectPath");
    if !matches!(path.trim(), "" | "^/oauth2/") {
        out.push(format!(
            "issuerDBOpenIDConnectPath = {path} is not supported (supported: ^/oauth2/)"
        ));
    }
}

/// `bruteForceProtection` needs what LemonLDAP::NG's plugin refuses to load without: the
/// persistent storage, the login history it counts failures in, and a history long enough to
/// hold `bruteForceProtectionMaxFailed` failures.
fn brute_force(out: &mut Vec<String>, raw: &Map<String, Value>) {
    if !super::truthy(raw.get("bruteForceProtection")) {
        return;
    }
    let on = |k: &str| raw.get(k).map(value_string).unwrap_or_else(|| "0".into());
    if super::truthy(raw.get("disablePersistentStorage")) {
        out.push(format!(
            "bruteForceProtection = {} is not supported with disablePersistentStorage = {} \
             (the failed logins are counted in the persistent session)",
            on("bruteForceProtection"),
            on("disablePersistentStorage")
        ));
    }
    if !super::truthy(raw.get("loginHistoryEnabled")) {
        out.push(format!(
            "bruteForceProtection = {} requires loginHistoryEnabled = 1 (it is {}): the \
             failed logins are counted in the login history",
            on("bruteForceProtection"),
            on("loginHistoryEnabled")
        ));
    }
    let int = |k: &str, d: i64| raw.get(k).and_then(super::as_i64).unwrap_or(d);
    let (kept, allowed) = (
        int("failedLoginNumber", 5),
        int("bruteForceProtectionMaxFailed", 3).abs(),
    );
    if kept < allowed {
        out.push(format!(
            "failedLoginNumber = {kept} is below bruteForceProtectionMaxFailed = {allowed} \
             (the history must hold the failures the lock counts)"
        ));
    }
}

/// Pushes a refusal unless `value` is one of `supported` (exact, as LemonLDAP::NG loads a
/// module by its name).
fn one_of(out: &mut Vec<String>, key: &str, value: &str, supported: &[&str]) {
    if !supported.contains(&value) {
        let shown = if value.is_empty() { "(empty)" } else { value };
        out.push(format!(
            "{key} = {shown} is not supported (supported: {})",
            supported.join(", ")
        ));
    }
}

/// A value as one short line, any secret inside it hidden (`redact::redacted`).
pub fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => super::redact::redacted(other).to_string(),
    };
    let s: String = s.chars().filter(|c| !c.is_control()).collect();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// True when LemonLDAP::NG knows the key and Limette refuses it (for `config check`).
pub fn is_refused_key(key: &str) -> bool {
    support::support(key).is_some_and(|k| k.support == Support::Refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(v: Value) -> Map<String, Value> {
        super::super::defaults::merged(v.as_object().unwrap())
    }

    #[test]
    fn brute_force_protection_needs_the_login_history() {
        let r = refusals(&raw(json!({"bruteForceProtection": 1})));
        assert!(
            r.contains(
                &"bruteForceProtection = 1 requires loginHistoryEnabled = 1 (it is 0): the \
                  failed logins are counted in the login history"
                    .to_string()
            ),
            "{r:?}"
        );
        let ok = json!({"bruteForceProtection": 1, "loginHistoryEnabled": 1});
        assert_eq!(refusals(&raw(ok)), Vec::<String>::new());
        let short = json!({"bruteForceProtection": 1, "loginHistoryEnabled": 1,
            "failedLoginNumber": 2});
        assert!(refusals(&raw(short))[0].starts_with("failedLoginNumber = 2 is below"));
        let no_store = json!({"bruteForceProtection": 1, "loginHistoryEnabled": 1,
            "disablePersistentStorage": 1});
        assert!(refusals(&raw(no_store))[0].contains("disablePersistentStorage = 1"));
    }

    #[test]
    fn the_default_passes() {
        assert_eq!(refusals(&raw(json!({}))), Vec::<String>::new());
    }

    #[test]
    fn unsupported_modules_are_named() {
        let r = refusals(&raw(
            json!({"authentication": "LDAP", "passwordDB": "LDAP"}),
        ));
        assert!(
            r.contains(
                &"authentication = LDAP is not supported (supported: Demo, REST)".to_string()
            ),
            "{r:?}"
        );
        assert!(
            r.iter()
                .any(|l| l.starts_with("passwordDB = LDAP is not supported")),
            "{r:?}"
        );
        // LemonLDAP::NG loads `Lemonldap::NG::Portal::Auth::<name>`: `demo` is no module.
        assert!(!refusals(&raw(json!({"authentication": "demo"}))).is_empty());
        let r = refusals(&raw(json!({"authentication": "REST", "userDB": "Demo",
            "restAuthUrl": "http://127.0.0.1:1/a", "restUserDBUrl": "http://127.0.0.1:1/u"})));
        assert_eq!(
            r,
            vec![
                "userDB = Demo is not supported with authentication = REST (supported: Same, REST)"
            ]
        );
    }

    #[test]
    fn storage_and_drivers() {
        let e = session_storage(
            "globalStorage",
            "Apache::Session::Browseable::Postgres",
            None,
        );
        assert!(e
            .unwrap_err()
            .starts_with("globalStorage = Apache::Session::Browseable::Postgres is not supported"));
        let pg = json!({"DataSource": "DBI:Pg:database=sso;host=db"});
        let e = session_storage(
            "persistentStorage",
            "Apache::Session::Browseable::SQLite",
            Some(&pg),
        );
        assert!(
            e.unwrap_err().contains("driver Pg"),
            "a SQLite module takes no Pg chain"
        );
        let ok = session_storage(
            "globalStorage",
            "Apache::Session::Browseable::PgJSON",
            Some(&pg),
        );
        assert_eq!(ok.is_ok(), cfg!(feature = "postgres"), "{ok:?}");
        let tls = json!({"DataSource": "DBI:Pg:dbname=sso;host=db;sslmode=require"});
        let e = session_storage("globalStorage", "PgJSON", Some(&tls)).unwrap_err();
        assert!(
            e.contains("sslmode=require is not supported") || !cfg!(feature = "postgres"),
            "{e}"
        );
        let bad = json!({"DataSource": "DBI:Pg:dbname=sso", "TableName": "s; drop"});
        assert!(session_storage("globalStorage", "PgJSON", Some(&bad)).is_err());
        assert_eq!(
            crate::config::stores::dbi_sqlite_path("DBI:SQLite:dbname=/x/s.db").unwrap(),
            "/x/s.db"
        );
        assert_eq!(
            crate::config::stores::dbi_sqlite_path("dbi:SQLite:/x/s.db").unwrap(),
            "/x/s.db"
        );
        assert_eq!(
            crate::config::stores::dbi_sqlite_path("/x/s.db").unwrap(),
            "/x/s.db"
        );
        assert!(crate::config::stores::dbi_sqlite_path("dbi:mysql:database=x").is_err());
        let r = refusals(&raw(json!({"notificationStorage": "DBI",
            "notificationStorageOptions": {"dbiChain": "DBI:Pg:database=n"}})));
        assert_eq!(r.is_empty(), cfg!(feature = "postgres"), "{r:?}");
        let r = refusals(&raw(json!({"notificationStorage": "DBI",
            "notificationStorageOptions": {"dbiChain": "DBI:mysql:database=n"}})));
        assert!(
            r[0].starts_with("notificationStorageOptions dbiChain"),
            "{r:?}"
        );
        let r = refusals(&raw(json!({"notificationStorage": "LDAP"})));
        assert!(
            r[0].starts_with("notificationStorage = LDAP is not supported"),
            "{r:?}"
        );
    }

    #[test]
    fn outbound_urls_are_plain_http() {
        let r = refusals(&raw(json!({"authentication": "REST",
            "restAuthUrl": "https://llng.example.com/proxy/pwdConfirm"})));
        assert!(
            r[0].starts_with(
                "restAuthUrl = https://llng.example.com/proxy/pwdConfirm is not supported"
            ),
            "{r:?}"
        );
        assert_eq!(
            r[1],
            "restUserDBUrl is empty (required with the REST module)"
        );
        let rest = json!({"baseUrl": "https://a.example.com/sessions"});
        assert!(session_storage("globalStorage", "REST", Some(&rest)).is_err());
    }

    #[test]
    fn refused_keys_only_when_not_default() {
        assert!(refusals(&raw(json!({"singleSession": 0, "grantSessionRules": {}}))).is_empty());
        let r = refusals(&raw(json!({"mail2fActivation": 1, "securedCookie": 2})));
        assert!(
            r.iter()
                .any(|l| l.starts_with("mail2fActivation = 1 is not supported")),
            "{r:?}"
        );
        assert!(
            r.iter()
                .any(|l| l.starts_with("securedCookie = 2 is not supported")),
            "{r:?}"
        );
    }

    #[test]
    fn same_site_values() {
        for ok in [
            json!({}),
            json!({"sameSite": "Strict"}),
            json!({"sameSite": "lax"}),
        ] {
            assert!(refusals(&raw(ok.clone())).is_empty(), "{ok}");
        }
        let none = json!({"sameSite": "None", "securedCookie": 1});
        assert!(refusals(&raw(none)).is_empty());
        assert_eq!(
            refusals(&raw(json!({"sameSite": "None"}))),
            ["sameSite = None is not supported with securedCookie = 0 (None requires securedCookie = 1)"]
        );
        assert_eq!(
            refusals(&raw(json!({"sameSite": "Loose"}))),
            ["sameSite = Loose is not supported (supported: Strict, Lax, None, or empty for Lax)"]
        );
    }
}
