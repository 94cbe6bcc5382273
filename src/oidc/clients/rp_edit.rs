//! Editing relying parties in a configuration document, as LemonLDAP::NG's manager stores
//! them (`oidcRPMetaDataOptions/<name>/...` and the per-RP hashes beside it): add one (with
//! the manager's default exported claims), change the options a form edits, set one option of
//! `options::RP_OPTIONS`, delete one from every per-RP hash, give one a new secret. Plain
//! documents in and out; `loads` then says whether the portal would serve the RP as edited
//! (a relying party the settings would disable is refused with their reason: fail closed).
use crate::config::support::Support;
use crate::oidc::keys;
use crate::oidc::options::{self, key, RP_OPTIONS};
use crate::oidc::settings;
use serde_json::{json, Map, Value};

/// The 0/1 options the console's form shows as check boxes (all default to 0).
pub const FLAGS: [&str; 9] = [
    "Public",
    "RequirePKCE",
    "BypassConsent",
    "RefreshToken",
    "AllowOffline",
    "IDTokenForceClaims",
    "AccessTokenJWT",
    "LogoutBypassConfirm",
    "LogoutSessionRequired",
];

/// The ID token algorithms a form may choose (`none` is left to `limette config set`).
pub const ID_ALGS: [&str; 8] = [
    "HS512", "HS384", "HS256", "RS256", "RS384", "RS512", "ES256", "EdDSA",
];

/// What the console's relying-party form carries.
#[derive(Debug, Clone, Default)]
pub struct Form {
    /// `ClientID`.
    pub client_id: String,
    /// `DisplayName` (empty: unset).
    pub display_name: String,
    /// `RedirectUris`, space-separated.
    pub redirect_uris: String,
    /// `PostLogoutRedirectUris`, space-separated (empty: unset).
    pub post_logout_uris: String,
    /// `IDTokenSignAlg`, one of `ID_ALGS`.
    pub id_alg: String,
    /// The `FLAGS` that are checked.
    pub flags: Vec<String>,
}

/// Adds relying party `name`; the secret generated for a confidential client, to show once.
pub fn add(
    doc: &mut Map<String, Value>,
    name: &str,
    form: &Form,
) -> Result<Option<String>, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(format!(
            "{name:?}: a relying party's name is letters, digits, '-', '_' and '.'"
        ));
    }
    if rp(doc, name).is_some() {
        return Err(format!("a relying party named {name} exists already"));
    }
    put(doc, "oidcRPMetaDataOptions", name, json!({}));
    put(
        doc,
        "oidcRPMetaDataExportedVars",
        name,
        json!({"email": "mail", "family_name": "sn", "name": "cn"}),
    );
    edit(doc, name, form)
}

/// Applies `form` to relying party `name`; a secret generated when the client is confidential
/// and has none.
pub fn edit(
    doc: &mut Map<String, Value>,
    name: &str,
    form: &Form,
) -> Result<Option<String>, String> {
    if form.client_id.trim().is_empty() {
        return Err("the client id is required".into());
    }
    if !ID_ALGS.contains(&form.id_alg.as_str()) {
        return Err(format!(
            "{:?} is not an ID token algorithm the console offers",
            form.id_alg
        ));
    }
    let taken = rps(doc).into_iter().any(|(other, o)| {
        other != name
            && o.get(&key("ClientID")).and_then(Value::as_str) == Some(form.client_id.trim())
    });
    if taken {
        return Err(format!(
            "another relying party has the client id {}",
            form.client_id.trim()
        ));
    }
    let o = rp(doc, name).ok_or_else(|| format!("no relying party named {name}"))?;
    let mut set = |short: &str, v: &str| {
        if v.trim().is_empty() {
            o.remove(&key(short));
        } else {
            o.insert(key(short), json!(v.trim()));
        }
    };
    set("ClientID", &form.client_id);
    set("DisplayName", &form.display_name);
    set("RedirectUris", &form.redirect_uris);
    set("PostLogoutRedirectUris", &form.post_logout_uris);
    set("IDTokenSignAlg", &form.id_alg);
    for flag in FLAGS {
        let on = form.flags.iter().any(|f| f == flag);
        if on {
            o.insert(key(flag), json!(1));
        } else if o.contains_key(&key(flag)) {
            o.insert(key(flag), json!(0));
        }
    }
    let public = form.flags.iter().any(|f| f == "Public");
    let has_secret = o
        .get(&key("ClientSecret"))
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
    if public || has_secret {
        return Ok(None);
    }
    new_secret(doc, name).map(Some)
}

/// Sets one honoured option of relying party `name` (`short`: the name after
/// `oidcRPMetaDataOptions`); an empty value removes it.
pub fn set_option(
    doc: &mut Map<String, Value>,
    name: &str,
    short: &str,
    value: &str,
) -> Result<(), String> {
    let k = key(short);
    match options::rp_option(&k) {
        Some(info) if info.support == Support::Implemented && k != key("ClientSecret") => {}
        _ => return Err(format!("{k} is not an option the console edits")),
    }
    let o = rp(doc, name).ok_or_else(|| format!("no relying party named {name}"))?;
    if value.trim().is_empty() {
        o.remove(&k);
    } else {
        o.insert(k, json!(value.trim()));
    }
    Ok(())
}

/// Removes relying party `name` from the options and every per-RP hash.
pub fn delete(doc: &mut Map<String, Value>, name: &str) -> Result<(), String> {
    if rp(doc, name).is_none() {
        return Err(format!("no relying party named {name}"));
    }
    for (k, v) in doc.iter_mut() {
        if let (true, Value::Object(per_rp)) = (k.starts_with("oidcRPMetaData"), v) {
            per_rp.remove(name);
        }
    }
    Ok(())
}

/// A new random secret for relying party `name`, returned to be shown once.
pub fn new_secret(doc: &mut Map<String, Value>, name: &str) -> Result<String, String> {
    let o = rp(doc, name).ok_or_else(|| format!("no relying party named {name}"))?;
    let secret = crate::util::random_hex(24);
    o.insert(key("ClientSecret"), json!(secret));
    Ok(secret)
}

/// Whether the portal would serve relying party `name` of `doc`: the signing keys it needs
/// added (as a reload would), then the provider's settings parsed; their reason otherwise.
pub fn loads(doc: &mut Map<String, Value>, name: &str) -> Result<(), String> {
    keys::keygen::complete(doc)?;
    let parsed = settings::Settings::from_conf(&crate::config::defaults::merged(doc))?;
    match parsed.disabled.iter().find(|d| d.name == name) {
        Some(d) => Err(format!(
            "relying party {name} would be disabled: {}",
            d.reason
        )),
        None => Ok(()),
    }
}

/// The relying parties' options, by name, in name order.
pub fn rps(doc: &Map<String, Value>) -> Vec<(String, Map<String, Value>)> {
    let mut out: Vec<(String, Map<String, Value>)> = match doc.get("oidcRPMetaDataOptions") {
        Some(Value::Object(all)) => all
            .iter()
            .filter_map(|(n, o)| o.as_object().map(|o| (n.clone(), o.clone())))
            .collect(),
        _ => Vec::new(),
    };
    crate::util::sort::sort_by(&mut out, |a, b| a.0.cmp(&b.0));
    out
}

/// The options an option form may set: the honoured scalar ones, the secret aside.
pub fn editable_options() -> impl Iterator<Item = &'static str> {
    RP_OPTIONS
        .iter()
        .filter(|i| i.support == Support::Implemented && i.key.starts_with("oidcRPMetaDataOptions"))
        .map(|i| i.key.trim_start_matches("oidcRPMetaDataOptions"))
        .filter(|s| !s.is_empty() && *s != "ClientSecret")
}

fn rp<'a>(doc: &'a mut Map<String, Value>, name: &str) -> Option<&'a mut Map<String, Value>> {
    doc.get_mut("oidcRPMetaDataOptions")?
        .get_mut(name)?
        .as_object_mut()
}

/// Sets `doc[k][name] = v`, making `doc[k]` an object if absent or not one.
fn put(doc: &mut Map<String, Value>, k: &str, name: &str, v: Value) {
    let slot = doc.entry(k.to_string()).or_insert_with(|| json!({}));
    if let Value::Object(m) = slot {
        m.insert(name.into(), v);
    } else {
        *slot = json!({ name: v });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn embedded() -> Map<String, Value> {
        serde_json::from_str(crate::config::EMBEDDED_CONF).unwrap()
    }

    fn form(id: &str) -> Form {
        Form {
            client_id: id.into(),
            redirect_uris: "https://app.example.com/cb".into(),
            id_alg: "RS256".into(),
            flags: vec!["RequirePKCE".into()],
            ..Form::default()
        }
    }

    #[test]
    fn an_rp_is_added_edited_given_a_secret_and_deleted() {
        let mut doc = embedded();
        let secret = add(&mut doc, "app", &form("app-id")).unwrap().unwrap();
        loads(&mut doc, "app").unwrap();
        let o = &doc["oidcRPMetaDataOptions"]["app"];
        assert_eq!(o["oidcRPMetaDataOptionsClientSecret"], json!(secret));
        assert_eq!(o["oidcRPMetaDataOptionsRequirePKCE"], json!(1));
        assert_eq!(doc["oidcRPMetaDataExportedVars"]["app"]["email"], "mail");
        assert!(add(&mut doc, "app", &form("x"))
            .unwrap_err()
            .contains("exists"));
        assert!(add(&mut doc, "b", &form("app-id"))
            .unwrap_err()
            .contains("client id"));
        assert!(add(&mut doc, "a b", &form("z")).is_err());
        assert_eq!(
            edit(&mut doc, "app", &form("app-id")).unwrap(),
            None,
            "keeps its secret"
        );
        let again = new_secret(&mut doc, "app").unwrap();
        assert_ne!(again, secret);
        set_option(&mut doc, "app", "AuthnLevel", "2").unwrap();
        set_option(&mut doc, "app", "JwksUri", "https://x").unwrap();
        assert!(set_option(&mut doc, "app", "Nope", "1").is_err());
        assert!(set_option(&mut doc, "app", "ClientSecret", "x").is_err());
        delete(&mut doc, "app").unwrap();
        assert!(doc["oidcRPMetaDataOptions"].get("app").is_none());
        assert!(doc["oidcRPMetaDataExportedVars"].get("app").is_none());
    }

    #[test]
    fn an_rp_the_settings_would_disable_is_refused() {
        let mut doc = embedded();
        let mut f = form("pub");
        f.flags = vec!["Public".into()];
        f.id_alg = "HS256".into();
        assert_eq!(add(&mut doc, "pub", &f).unwrap(), None);
        let e = loads(&mut doc, "pub").unwrap_err();
        assert!(e.contains("would be disabled"), "{e}");
    }
}
