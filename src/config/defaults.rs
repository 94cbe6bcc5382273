//! THE table of defaults for main-configuration keys that a stored configuration may omit.
//! They are merged under the stored values when a configuration is loaded, and served with it
//! by the configuration proxy (as LemonLDAP::NG's `setDefault`).
//!
//! `portal` defaults to the empty string, which means "the URL of the node's listening
//! address" (`portal_for`): `--listen` moves the issuer, the links and the cookies with it,
//! and neither the proxy nor `config get` announces a URL the node does not answer on. The
//! key stays in the table so that `config set portal URL` knows it.
use serde_json::{Map, Value};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Default values, by LemonLDAP::NG key name.
const DEFAULTS: &str = r#"{
  "authentication": "Demo",
  "userDB": "Same",
  "passwordDB": "Demo",
  "portal": "",
  "domain": "",
  "cookieName": "lemonldap",
  "securedCookie": 0,
  "httpOnly": 1,
  "sameSite": "",
  "cspDefault": "'self'",
  "cspImg": "'self' data:",
  "cspStyle": "'self'",
  "cspFont": "'self'",
  "cspConnect": "'self'",
  "cspScript": "'self'",
  "cspFormAction": "*",
  "cspFrameAncestors": "",
  "portalAntiFrame": 1,
  "strictTransportSecurityMax_Age": "",
  "timeout": 72000,
  "timeoutActivity": 0,
  "whatToTrace": "uid",
  "userControl": "^[\\w\\.\\-@]+$",
  "exportedVars": {},
  "demoExportedVars": {"cn": "cn", "mail": "mail", "uid": "uid"},
  "macros": {},
  "groups": {},
  "locationRules": {},
  "hiddenAttributes": "_password _2fDevices",
  "exportedAttr": "",
  "restSessionServer": 0,
  "restConfigServer": 0,
  "portalStatus": 0,
  "restExportSecretKeys": 0,
  "restClockTolerance": 15,
  "requireToken": 1,
  "formTimeout": 120,
  "successLoginNumber": 5,
  "failedLoginNumber": 5,
  "bruteForceProtectionMaxFailed": 3,
  "bruteForceProtectionTempo": 30,
  "bruteForceProtectionMaxAge": 300,
  "bruteForceProtectionLockTimes": "15, 30, 60, 300, 600",
  "bruteForceProtectionMaxLockTime": 900,
  "applicationList": {"default": {"catname": "Default category", "type": "category"}},
  "portalDisplayOrder": "Appslist ChangePassword LoginHistory OidcConsents Logout",
  "portalDisplayAppslist": 1,
  "portalDisplayChangePassword": "$_auth =~ /^(LDAP|DBI|Demo)$/",
  "portalDisplayLoginHistory": 1,
  "portalDisplayOidcConsents": "$_oidcConsents && $_oidcConsents =~ /\\w+/",
  "portalDisplayLogout": 1,
  "portalSkin": "bootstrap",
  "portalTimezone": "UTC",
  "restAuthUrl": "",
  "restUserDBUrl": "",
  "restTimeout": 10,
  "issuerDBOpenIDConnectActivation": 0,
  "issuerDBOpenIDConnectPath": "^/oauth2/",
  "oidcRPMetaDataOptions": {},
  "oidcRPMetaDataExportedVars": {},
  "oidcServiceAuthorizationCodeExpiration": 60,
  "oidcServiceAccessTokenExpiration": 3600,
  "oidcServiceIDTokenExpiration": 3600,
  "oidcServiceOfflineSessionExpiration": 2592000,
  "oidcServiceAllowAuthorizationCodeFlow": 1,
  "oidcServiceDynamicRegistrationRate": 5,
  "oidcServiceDynamicRegistrationMaxClients": 100,
  "oidcServiceDynamicRegistrationMaxSize": 8192,
  "oidcServiceDynamicRegistrationKeptVersions": 10,
  "notification": 0,
  "notificationWildcard": "allusers",
  "notificationsExplorer": 0,
  "notificationsMaxRetrieve": 3,
  "notificationServer": 0,
  "notificationServerPOST": 1,
  "notificationServerGET": 0,
  "notificationServerDELETE": 0,
  "notificationServerSentAttributes": "uid reference date title subtitle text check",
  "notificationDefaultCond": "",
  "oldNotifFormat": 0,
  "fileNameSeparator": "_",
  "notificationStorage": "",
  "notificationStorageOptions": {}
}"#;

/// The defaults as a JSON object.
pub fn defaults() -> Map<String, Value> {
    match serde_json::from_str::<Value>(DEFAULTS) {
        Ok(Value::Object(m)) => m,
        // The table is a literal checked by the unit test below.
        _ => Map::new(),
    }
}

/// `stored` with every absent default key filled in.
pub fn merged(stored: &Map<String, Value>) -> Map<String, Value> {
    let mut out = defaults();
    for (k, v) in stored {
        out.insert(k.clone(), v.clone());
    }
    out
}

/// The listening address of a node without `-l` or `listen`, and so the portal URL of the
/// embedded default (`http://127.0.0.1:8080/`).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// The portal URL of a node listening on `listen` (`ADDR:PORT`, `[V6]:PORT` or `HOST:PORT`)
/// when the configuration sets none: `http://<listen>/`, an unspecified address (0.0.0.0,
/// [::]) replaced by the loopback address of its family, which is what a browser on that
/// machine can reach.
pub fn portal_for(listen: &str) -> String {
    match listen.parse::<SocketAddr>() {
        Ok(sa) => format!("http://{}/", reachable(sa)),
        Err(_) => format!("http://{}/", listen.trim_end_matches('/')),
    }
}

/// True when `listen` is an unspecified address (0.0.0.0 or [::]): the default portal URL
/// then names loopback, which other machines cannot reach.
pub fn listen_unspecified(listen: &str) -> bool {
    listen
        .parse::<SocketAddr>()
        .map(|sa| sa.ip().is_unspecified())
        .unwrap_or(false)
}

/// True when `listen` asks the system for a free port (`:0`): the portal URL is then only
/// known once bound.
pub fn listen_port_zero(listen: &str) -> bool {
    listen
        .rsplit_once(':')
        .map(|(_, port)| port.parse::<u16>() == Ok(0))
        .unwrap_or(false)
}

/// True when `portal` names the host and port a node listens on (an unspecified listening
/// address matches any host on that port). The scheme's default port applies when the URL
/// names none.
pub fn portal_matches(portal: &str, listen: &str) -> bool {
    let Some((scheme, rest)) = portal.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let default_port = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    let (host, port) = split_port(authority, default_port);
    let (lhost, lport) = match listen.parse::<SocketAddr>() {
        Ok(sa) if sa.ip().is_unspecified() => return port == sa.port(),
        Ok(sa) => (sa.ip().to_string(), sa.port()),
        Err(_) => {
            let (h, p) = split_port(listen, 0);
            (h.to_string(), p)
        }
    };
    port == lport && host.trim_matches(['[', ']']).eq_ignore_ascii_case(&lhost)
}

/// `host:port` (or `[v6]:port`) split; `default` when no port is given.
fn split_port(authority: &str, default: u16) -> (&str, u16) {
    match authority.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && !p.contains(']') => (h, p.parse().unwrap_or(default)),
        _ => (authority, default),
    }
}

/// The socket address with an unspecified IP replaced by loopback.
fn reachable(sa: SocketAddr) -> SocketAddr {
    match sa.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(Ipv4Addr::LOCALHOST.into(), sa.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(Ipv6Addr::LOCALHOST.into(), sa.port())
        }
        _ => sa,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses() {
        let d = defaults();
        assert_eq!(d["notificationWildcard"], "allusers");
        assert_eq!(d["timeout"], 72000);
        assert_eq!(d["portal"], "", "portal follows the listening address");
        assert_eq!(portal_for(DEFAULT_LISTEN), "http://127.0.0.1:8080/");
    }

    #[test]
    fn portal_follows_the_listening_address() {
        assert_eq!(portal_for("127.0.0.1:8080"), "http://127.0.0.1:8080/");
        assert_eq!(portal_for("127.0.0.1:9090"), "http://127.0.0.1:9090/");
        assert_eq!(portal_for("0.0.0.0:8080"), "http://127.0.0.1:8080/");
        assert_eq!(portal_for("[::]:8080"), "http://[::1]:8080/");
        assert_eq!(portal_for("[::1]:81"), "http://[::1]:81/");
        assert_eq!(portal_for("localhost:8080"), "http://localhost:8080/");
        assert!(listen_unspecified("0.0.0.0:1") && listen_unspecified("[::]:1"));
        assert!(!listen_unspecified("127.0.0.1:1") && !listen_unspecified("localhost:1"));
        assert!(listen_port_zero("127.0.0.1:0") && listen_port_zero("[::1]:0"));
        assert!(!listen_port_zero("127.0.0.1:8080") && !listen_port_zero("nonsense"));
    }

    #[test]
    fn portal_matching() {
        assert!(portal_matches("http://127.0.0.1:8080/", "127.0.0.1:8080"));
        assert!(portal_matches("http://LOCALHOST:8080/x", "localhost:8080"));
        assert!(portal_matches("http://[::1]:8080/", "[::1]:8080"));
        assert!(portal_matches("https://auth.example.com/", "0.0.0.0:443"));
        assert!(portal_matches("http://auth.example.com/", "[::]:80"));
        assert!(!portal_matches("http://127.0.0.1:8080/", "127.0.0.1:9090"));
        assert!(!portal_matches("http://auth.example.com/", "127.0.0.1:80"));
        assert!(!portal_matches("https://127.0.0.1/", "127.0.0.1:80"));
        assert!(!portal_matches("http://evil@127.0.0.2:80/", "127.0.0.1:80"));
        assert!(!portal_matches("nonsense", "127.0.0.1:80"));
    }
}
