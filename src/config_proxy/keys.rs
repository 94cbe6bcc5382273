//! One configuration key as LemonLDAP::NG's configuration proxy serves it
//! (`Common/Conf/RESTServer.pm::getKey`): scalars as `{"value":..}`, the manager's "simple hash"
//! keys as a sorted list of `{id,title,type,data}` items, other hashes raw inside `value`,
//! `issuerDBGetParameters` as its double-hash list, and the manager's virtual nodes
//! (`virtualHosts`, `oidcRPMetaDataNodes`, ...) as lists of nodes whose keys are read through
//! the node. Plain values in, JSON out; the handler and the CLI share it.
use crate::error::{Error, Result};
use serde_json::{json, Map, Value};

/// Keys the manager shows as a flat list of key/value pairs.
const SIMPLE_HASH_KEYS: &[&str] = &[
    "adaptativeAuthenticationLevelRules",
    "applicationList",
    "authChoiceModules",
    "autoSigninRules",
    "captchaOptions",
    "casAttributes",
    "casStorageOptions",
    "checkUserHiddenHeaders",
    "combModules",
    "customAddParams",
    "customPluginsParams",
    "dbiExportedVars",
    "demoExportedVars",
    "exportedVars",
    "facebookExportedVars",
    "findUserExcludingAttributes",
    "findUserSearchingAttributes",
    "globalStorageOptions",
    "grantSessionRules",
    "groups",
    "ldapExportedVars",
    "localSessionStorageOptions",
    "logoutServices",
    "lwpOpts",
    "lwpSslOpts",
    "macros",
    "nginxCustomHandlers",
    "notificationStorageOptions",
    "oidcOPMetaDataJSON",
    "oidcOPMetaDataJWKS",
    "oidcServiceDynamicRegistrationExportedVars",
    "oidcServiceDynamicRegistrationExtraClaims",
    "oidcServiceMetaDataAuthnContext",
    "oidcStorageOptions",
    "openIdExportedVars",
    "persistentStorageOptions",
    "portalSkinRules",
    "radiusExportedVars",
    "reloadUrls",
    "remoteGlobalStorageOptions",
    "rest2fInitArgs",
    "rest2fVerifyArgs",
    "samlStorageOptions",
    "sessionDataToRemember",
    "sfExtra",
    "slaveExportedVars",
    "SMTPTLSOpts",
    "SSLVarIf",
    "webIDExportedVars",
];

/// The one key holding a hash of hashes, listed as `[{k, h:[{k, v}]}]`.
const DOUBLE_HASH_KEY: &str = "issuerDBGetParameters";

/// The manager's virtual nodes: name, node type, and the keys holding one entry per node (the
/// options hash, read by option name, is the one whose name ends in `Options`).
const NODES: &[(&str, &str, &[&str])] = &[
    (
        "virtualHosts",
        "virtualHost",
        &["locationRules", "exportedHeaders", "post", "vhostOptions"],
    ),
    (
        "oidcRPMetaDataNodes",
        "oidcRPMetaDataNode",
        &[
            "oidcRPMetaDataOptions",
            "oidcRPMetaDataExportedVars",
            "oidcRPMetaDataOptionsExtraClaims",
            "oidcRPMetaDataMacros",
            "oidcRPMetaDataScopeRules",
        ],
    ),
    (
        "oidcOPMetaDataNodes",
        "oidcOPMetaDataNode",
        &[
            "oidcOPMetaDataOptions",
            "oidcOPMetaDataJSON",
            "oidcOPMetaDataJWKS",
            "oidcOPMetaDataExportedVars",
        ],
    ),
    (
        "samlIDPMetaDataNodes",
        "samlIDPMetaDataNode",
        &[
            "samlIDPMetaDataOptions",
            "samlIDPMetaDataXML",
            "samlIDPMetaDataExportedAttributes",
        ],
    ),
    (
        "samlSPMetaDataNodes",
        "samlSPMetaDataNode",
        &[
            "samlSPMetaDataOptions",
            "samlSPMetaDataXML",
            "samlSPMetaDataExportedAttributes",
            "samlSPMetaDataMacros",
        ],
    ),
    (
        "casSrvMetaDataNodes",
        "casSrvMetaDataNode",
        &["casSrvMetaDataOptions", "casSrvMetaDataExportedVars"],
    ),
    (
        "casAppMetaDataNodes",
        "casAppMetaDataNode",
        &[
            "casAppMetaDataOptions",
            "casAppMetaDataExportedVars",
            "casAppMetaDataMacros",
        ],
    ),
];

/// The answer for `path` (`["macros"]`, `["macros","UA"]`, `["virtualHosts","h","post"]`) in a
/// configuration with defaults merged. Unknown key: `NotFound("Unknown key K")`; a sub-key of
/// something that is not a hash: `BadRequest("Key K is not a hash")`.
pub fn answer(conf: &Map<String, Value>, path: &[String]) -> Result<Value> {
    let Some((key, subs)) = path.split_first() else {
        return Err(Error::bad("Missing key"));
    };
    if let Some(node) = NODES.iter().find(|(name, _, _)| name == key) {
        return node_answer(conf, node, subs);
    }
    let value = conf.get(key).ok_or_else(|| unknown(key))?;
    if subs.is_empty() {
        return Ok(match value {
            Value::Object(m) if SIMPLE_HASH_KEYS.contains(&key.as_str()) => {
                simple_hash_list(key, m)
            }
            Value::Object(m) if key == DOUBLE_HASH_KEY => json!({ "value": double_hash_list(m) }),
            other => json!({ "value": other }),
        });
    }
    descend(key, value, subs).map(|v| json!({ "value": v }))
}

/// The raw value at `path` (`["macros","UA"]`), with the same errors as `answer`.
pub fn lookup<'a>(conf: &'a Map<String, Value>, path: &[String]) -> Result<&'a Value> {
    let Some((key, subs)) = path.split_first() else {
        return Err(Error::bad("Missing key"));
    };
    descend(key, conf.get(key).ok_or_else(|| unknown(key))?, subs)
}

/// Follows sub-keys through nested hashes; `shown` is the key path so far, for messages.
fn descend<'a>(shown: &str, mut value: &'a Value, subs: &[String]) -> Result<&'a Value> {
    let mut shown = shown.to_string();
    for sub in subs {
        let Value::Object(m) = value else {
            return Err(Error::bad(format!("Key {shown} is not a hash")));
        };
        shown = format!("{shown}/{sub}");
        value = m.get(sub).ok_or_else(|| unknown(&shown))?;
    }
    Ok(value)
}

fn unknown(key: &str) -> Error {
    Error::not_found(format!("Unknown key {key}"))
}

/// `[{"id":"macros/UA","title":"UA","type":"keyText","data":..}]`, sorted by key.
fn simple_hash_list(key: &str, m: &Map<String, Value>) -> Value {
    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
    crate::util::sort::sort_by(&mut entries, |a, b| a.0.cmp(b.0));
    let items: Vec<Value> = entries
        .into_iter()
        .map(|(k, v)| json!({ "id": format!("{key}/{k}"), "title": k, "type": "keyText", "data": v }))
        .collect();
    Value::Array(items)
}

/// `[{"k":host,"h":[{"k":..,"v":..}]}]`, sorted at both levels.
fn double_hash_list(m: &Map<String, Value>) -> Value {
    let sorted = |m: &Map<String, Value>| {
        let mut v: Vec<(String, Value)> = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        crate::util::sort::sort_by(&mut v, |a, b| a.0.cmp(&b.0));
        v
    };
    let items: Vec<Value> = sorted(m)
        .into_iter()
        .map(|(k, inner)| {
            let h: Vec<Value> = match &inner {
                Value::Object(i) => sorted(i)
                    .into_iter()
                    .map(|(k, v)| json!({ "k": k, "v": v }))
                    .collect(),
                _ => Vec::new(),
            };
            json!({ "k": k, "h": h })
        })
        .collect();
    Value::Array(items)
}

/// A virtual node: the list of nodes, one node's hashes, or one key of a node.
fn node_answer(
    conf: &Map<String, Value>,
    node: &(&str, &str, &[&str]),
    subs: &[String],
) -> Result<Value> {
    let (name, ty, hashes) = *node;
    let entry = |h: &str, n: &str| {
        conf.get(h)
            .and_then(Value::as_object)
            .and_then(|m| m.get(n))
            .cloned()
    };
    let Some((member, rest)) = subs.split_first() else {
        let mut members: Vec<String> = hashes
            .iter()
            .filter_map(|h| conf.get(*h).and_then(Value::as_object))
            .flat_map(|m| m.keys().cloned())
            .collect();
        crate::util::sort::sort(&mut members);
        members.dedup();
        let items: Vec<Value> = members
            .iter()
            .map(|m| json!({ "id": format!("{name}/{m}"), "title": m, "type": ty, "template": ty }))
            .collect();
        return Ok(Value::Array(items));
    };
    let shown = format!("{name}/{member}");
    if !hashes.iter().any(|h| entry(h, member).is_some()) {
        return Err(unknown(&shown));
    }
    let Some((key, deeper)) = rest.split_first() else {
        let all: Map<String, Value> = hashes
            .iter()
            .filter_map(|h| entry(h, member).map(|v| (h.to_string(), v)))
            .collect();
        return Ok(json!({ "value": all }));
    };
    let shown = format!("{shown}/{key}");
    let value = if hashes.contains(&key.as_str()) {
        entry(key, member).unwrap_or_else(|| json!({}))
    } else {
        let options = hashes
            .iter()
            .find(|h| h.ends_with("Options"))
            .and_then(|h| entry(h, member));
        options
            .and_then(|o| o.get(key.as_str()).cloned())
            .ok_or_else(|| unknown(&shown))?
    };
    descend(&shown, &value, deeper).map(|v| json!({ "value": v }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf() -> Map<String, Value> {
        match json!({
            "portal": "http://auth.example.com/",
            "timeout": 72000,
            "macros": {"UA": "$ENV{HTTP_USER_AGENT}", "A": "1"},
            "locationRules": {"auth.example.com": {"default": "accept"}},
            "vhostOptions": {"auth.example.com": {"vhostPort": 443}},
            "oidcRPMetaDataOptions": {"rp1": {"oidcRPMetaDataOptionsClientID": "rp1"}},
            "oidcRPMetaDataExportedVars": {"rp1": {"email": "mail"}},
            "issuerDBGetParameters": {"h": {"b": "2", "a": "1"}}
        }) {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn ask(path: &str) -> Result<Value> {
        let p: Vec<String> = path.split('/').map(str::to_string).collect();
        answer(&conf(), &p)
    }

    #[test]
    fn scalars_and_raw_hashes_come_as_value() {
        assert_eq!(
            ask("portal").unwrap(),
            json!({"value": "http://auth.example.com/"})
        );
        assert_eq!(ask("timeout").unwrap(), json!({"value": 72000}));
        assert_eq!(
            ask("locationRules").unwrap()["value"]["auth.example.com"]["default"],
            "accept"
        );
        assert_eq!(
            ask("locationRules/auth.example.com/default").unwrap(),
            json!({"value": "accept"})
        );
    }

    #[test]
    fn simple_hashes_are_sorted_lists() {
        let v = ask("macros").unwrap();
        assert_eq!(
            v[0],
            json!({"id": "macros/A", "title": "A", "type": "keyText", "data": "1"})
        );
        assert_eq!(v[1]["id"], "macros/UA");
        assert_eq!(
            ask("macros/UA").unwrap(),
            json!({"value": "$ENV{HTTP_USER_AGENT}"})
        );
        assert_eq!(
            ask("issuerDBGetParameters").unwrap()["value"][0]["h"][0],
            json!({"k": "a", "v": "1"})
        );
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            ask("nokeyatall").unwrap_err().to_string(),
            "not found: Unknown key nokeyatall"
        );
        assert_eq!(
            ask("macros/nope").unwrap_err().to_string(),
            "not found: Unknown key macros/nope"
        );
        assert_eq!(
            ask("portal/x").unwrap_err().to_string(),
            "bad request: Key portal is not a hash"
        );
    }

    #[test]
    fn virtual_nodes() {
        let v = ask("virtualHosts").unwrap();
        assert_eq!(
            v,
            json!([{"id": "virtualHosts/auth.example.com", "title": "auth.example.com",
                    "type": "virtualHost", "template": "virtualHost"}])
        );
        assert_eq!(
            ask("oidcRPMetaDataNodes").unwrap()[0]["id"],
            "oidcRPMetaDataNodes/rp1"
        );
        assert_eq!(
            ask("oidcRPMetaDataNodes/rp1/oidcRPMetaDataOptionsClientID").unwrap(),
            json!({"value": "rp1"})
        );
        assert_eq!(
            ask("oidcRPMetaDataNodes/rp1/oidcRPMetaDataExportedVars").unwrap()["value"]["email"],
            "mail"
        );
        assert_eq!(
            ask("virtualHosts/auth.example.com/vhostPort").unwrap(),
            json!({"value": 443})
        );
        assert!(ask("virtualHosts/other.example.com").is_err());
        assert!(ask("oidcRPMetaDataNodes/rp1/nothing").is_err());
    }
}
