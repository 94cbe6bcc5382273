//! The checks of a relying party's signing algorithms against the provider: an RP whose
//! algorithm needs a provider key that is not there is disabled (`has_keys`), and `none`-signed
//! tokens earn a warning (`none_warnings`). Reading the algorithms is `keys::signing`'s.
use super::rp::Rp;
use crate::oidc::keys::{Alg, Keyring};
use crate::oidc::options::{key, reason};
use serde_json::Value;

/// An RP whose algorithms need a provider key that is not there is disabled.
pub fn has_keys(rp: Rp, keys: &Keyring) -> Result<Rp, String> {
    let uses = [
        ("IDTokenSignAlg", Some(rp.id_alg)),
        ("UserInfoSignAlg", rp.userinfo_alg),
        ("AccessTokenSignAlg", rp.access_jwt),
    ];
    for (short, alg) in uses {
        let Some((alg, kind)) = alg.and_then(|a| a.key_kind().map(|k| (a, k))) else {
            continue;
        };
        if keys.signer(kind).is_none() {
            let why = format!(
                "no usable {} key: {} does not read, or is missing until a portal loads this configuration and generates it",
                kind.name(),
                kind.conf_keys()[0]
            );
            return Err(reason(&key(short), &Value::from(alg.as_str()), &why));
        }
    }
    Ok(rp)
}

/// `none`-signed tokens: anybody can forge them, so `config check` says so.
pub fn none_warnings(rps: &[Rp]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for rp in rps {
        for (short, alg) in [
            ("IDTokenSignAlg", Some(rp.id_alg)),
            ("UserInfoSignAlg", rp.userinfo_alg),
        ] {
            if alg == Some(Alg::None) {
                let k = format!("oidcRPMetaDataOptions/{}/{}", rp.name, key(short));
                let msg = format!(
                    "relying party {}: {} = none: its tokens are unsigned, anybody can forge them",
                    rp.name,
                    key(short)
                );
                out.push((k, msg));
            }
        }
    }
    out
}
