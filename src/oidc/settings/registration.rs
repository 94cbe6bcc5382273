//! The bounds of dynamic registration as the settings read them (`Limits`, parsed with the
//! provider's settings), and the name prefix that marks a self-registered relying party.
//! Applying them (the rate per address, the count, pruning old versions) is
//! `clients::register::limits`'s.
use crate::config::as_u64;
use serde_json::{Map, Value};

/// The name prefix of a self-registered relying party (LemonLDAP::NG's `register-<time>`).
pub const PREFIX: &str = "register-";

/// The limits in force, parsed with the provider's settings (`oidc::Settings`); the default
/// (all 0) allows no registration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Registration requests a minute from one address (0: none).
    pub rate: u32,
    /// Self-registered relying parties at most (0: none).
    pub max_clients: usize,
    /// Bytes of metadata at most.
    pub max_size: usize,
    /// Versions made by registrations kept (0: all, as LemonLDAP::NG).
    pub kept_versions: usize,
}

impl Limits {
    /// The limits of a configuration (defaults merged): each key a non-negative integer, else
    /// the error that refuses the configuration (naming key and value).
    pub fn from_raw(raw: &Map<String, Value>) -> Result<Limits, String> {
        let n = |k: &str| -> Result<u64, String> {
            match raw.get(k) {
                // Defaults are merged before; absent only in a test's bare document: none.
                None => Ok(0),
                Some(v) => as_u64(v)
                    .filter(|n| *n <= u64::from(u32::MAX))
                    .ok_or_else(|| format!("{k} = {v}: not a non-negative integer")),
            }
        };
        Ok(Limits {
            rate: n("oidcServiceDynamicRegistrationRate")? as u32,
            max_clients: n("oidcServiceDynamicRegistrationMaxClients")? as usize,
            max_size: n("oidcServiceDynamicRegistrationMaxSize")? as usize,
            kept_versions: n("oidcServiceDynamicRegistrationKeptVersions")? as usize,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_non_negative_integers() {
        let raw = |v: Value| {
            let mut m = Map::new();
            m.insert("oidcServiceDynamicRegistrationRate".into(), v);
            m
        };
        assert_eq!(
            Limits::from_raw(&raw(serde_json::json!("7"))).unwrap().rate,
            7
        );
        for bad in [
            serde_json::json!(-1),
            serde_json::json!("soon"),
            serde_json::json!(1e12),
        ] {
            let e = Limits::from_raw(&raw(bad)).unwrap_err();
            assert!(
                e.starts_with("oidcServiceDynamicRegistrationRate = "),
                "{e}"
            );
        }
    }
}
