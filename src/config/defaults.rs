//! THE table of defaults for main-configuration keys that a stored configuration may omit.
//! They are merged under the stored values when a configuration is loaded, and served with it
//! by the configuration proxy (as LemonLDAP::NG's `setDefault`).
use serde_json::{Map, Value};

/// Default values, by LemonLDAP::NG key name.
const DEFAULTS: &str = r#"{
  "authentication": "Demo",
  "userDB": "Same",
  "passwordDB": "Demo",
  "portal": "http://127.0.0.1:8080/",
  "domain": "",
  "cookieName": "lemonldap",
  "securedCookie": 0,
  "httpOnly": 1,
  "timeout": 72000,
  "timeoutActivity": 0,
  "whatToTrace": "uid",
  "exportedVars": {},
  "demoExportedVars": {"cn": "cn", "mail": "mail", "uid": "uid"},
  "macros": {},
  "groups": {},
  "locationRules": {},
  "hiddenAttributes": "_password _2fDevices",
  "exportedAttr": "",
  "restSessionServer": 0,
  "restConfigServer": 0,
  "restExportSecretKeys": 0,
  "restClockTolerance": 15,
  "requireToken": 1,
  "formTimeout": 120,
  "portalSkin": "bootstrap",
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

#[cfg(test)]
mod tests {
    #[test]
    fn table_parses() {
        let d = super::defaults();
        assert_eq!(d["notificationWildcard"], "allusers");
        assert_eq!(d["timeout"], 72000);
    }
}
