//! Making signing keys and changing them in a configuration document: the keys a relying
//! party needs but the configuration lacks (generated once, saved as a new configuration so
//! that every node shares them), and rotation (`limette config rotate-keys`, in the spirit of
//! LemonLDAP::NG's `rotateOidcKeys`, which keeps no old key: here the retired public key stays
//! published until every token it signed has expired). EC and Ed25519 keys come from `ring`,
//! RSA keys (which `ring` cannot make) from the `rsa` crate; only `ring` ever signs.
use super::{KeyKind, PrivateKey, RETIRED};
use crate::config::{as_i64, value_string};
use crate::log;
use crate::oidc::options;
use crate::storage::save;
use crate::storage::ConfStore;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use rsa::pkcs1::{EncodeRsaPrivateKey, LineEnding};
use rsa::pkcs8::EncodePublicKey;
use serde_json::{json, Map, Value};

/// RSA key size, as LemonLDAP::NG's manager and `rotateOidcKeys` make them.
const RSA_BITS: usize = 2048;

/// A new key of a family: `(private PEM, public PEM)`. RSA in PKCS#1 (as LemonLDAP::NG writes
/// it), the others in PKCS#8; public keys as SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`).
pub fn generate(kind: KeyKind) -> Result<(String, String), String> {
    let rng = SystemRandom::new();
    let failed = |e: ring::error::Unspecified| format!("key generation failed: {e}");
    match kind {
        KeyKind::Rsa => {
            let key = rsa::RsaPrivateKey::new(&mut RingRng(rng), RSA_BITS)
                .map_err(|e| format!("RSA key generation failed: {e}"))?;
            let private = key
                .to_pkcs1_pem(LineEnding::LF)
                .map_err(|e| e.to_string())?;
            let public = key
                .to_public_key()
                .to_public_key_pem(LineEnding::LF)
                .map_err(|e| e.to_string())?;
            Ok((private.to_string(), public))
        }
        KeyKind::Ec => {
            let alg = &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING;
            let doc = EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(failed)?;
            let pair =
                EcdsaKeyPair::from_pkcs8(alg, doc.as_ref(), &rng).map_err(|e| e.to_string())?;
            // SubjectPublicKeyInfo of id-ecPublicKey on prime256v1 (RFC 5480 2), then the point.
            let spki = [SPKI_P256, pair.public_key().as_ref()].concat();
            Ok((pem("PRIVATE KEY", doc.as_ref()), pem("PUBLIC KEY", &spki)))
        }
        KeyKind::Ed => {
            let doc = Ed25519KeyPair::generate_pkcs8(&rng).map_err(failed)?;
            let pair = Ed25519KeyPair::from_pkcs8(doc.as_ref()).map_err(|e| e.to_string())?;
            // SubjectPublicKeyInfo of id-Ed25519 (RFC 8410 4), then the key.
            let spki = [SPKI_ED25519, pair.public_key().as_ref()].concat();
            Ok((pem("PRIVATE KEY", doc.as_ref()), pem("PUBLIC KEY", &spki)))
        }
    }
}

/// The families the enabled relying parties of a configuration (defaults merged) sign with:
/// ID tokens, signed userinfo, JWT access tokens.
pub fn needed(raw: &Map<String, Value>) -> Vec<KeyKind> {
    let mut out = Vec::new();
    for opts in rp_options(raw) {
        let algs = super::signing::signing_algs(opts);
        for alg in algs.into_iter().filter_map(|a| a.ok().flatten()) {
            if let Some(kind) = alg.key_kind() {
                if !out.contains(&kind) {
                    out.push(kind);
                }
            }
        }
    }
    out
}

/// Adds a key of every needed family the configuration lacks; the `cfgLog` text that says
/// why, or `None` when nothing was missing.
pub fn complete(conf: &mut Map<String, Value>) -> Result<Option<String>, String> {
    let raw = crate::config::defaults::merged(conf);
    let missing: Vec<KeyKind> = needed(&raw)
        .into_iter()
        .filter(|k| text(&raw, k.conf_keys()[0]).is_empty())
        .collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let mut made = Vec::new();
    for kind in missing {
        install(conf, kind)?;
        made.push(format!("{} ({})", kind.name(), kind.conf_keys()[0]));
    }
    Ok(Some(format!(
        "Signing keys generated for relying parties that need them: {}",
        made.join(", ")
    )))
}

/// Saves the latest configuration of `store` again, as a new number, when a relying party
/// needs a key it lacks (the number saved is logged). Every node then loads the same keys. Called
/// before a configuration is loaded (start, reload); a failure is logged and the RPs that
/// need the key stay disabled.
pub fn save_missing(store: &dyn ConfStore) {
    let result = (|| -> crate::error::Result<Option<u64>> {
        let Some(num) = store.latest()? else {
            return Ok(None);
        };
        let mut conf = store.load(num)?;
        let Some(log) = complete(&mut conf).map_err(crate::error::Error::internal)? else {
            return Ok(None);
        };
        // Another node may have done the same meanwhile: its keys win, ours are dropped.
        if store.latest()? != Some(num) {
            return Ok(None);
        }
        let author = save::Author {
            name: "limette".into(),
            ip: "127.0.0.1".into(),
            log,
        };
        save::save_new(store, &conf, &author).map(Some)
    })();
    match result {
        Ok(Some(n)) => log::notice(&format!(
            "signing keys generated and saved as configuration {n}"
        )),
        Ok(None) => {}
        Err(e) => log::error(&format!(
            "signing keys could not be generated and saved: {e}"
        )),
    }
}

/// Puts a newer stored configuration in force (`App::reload_if_newer`), the signing keys a
/// relying party needs and it lacks saved first (`save_missing`): what the reloader, the
/// console and dynamic registration do after a configuration is saved.
pub fn reload(app: &crate::app::App) -> crate::error::Result<bool> {
    if app.newer_waiting()? {
        save_missing(app.confs.as_ref());
    }
    app.reload_if_newer()
}

/// Rotation at `now`: every family that has a key gets a new one, which signs from then on;
/// the previous public key joins `oidcServiceRetiredKeysSig` until `now` plus the longest
/// lifetime of a token it may have signed. Retired keys already past their time leave.
/// Returns the `cfgLog` text.
pub fn rotate(conf: &mut Map<String, Value>, now: i64) -> Result<String, String> {
    let raw = crate::config::defaults::merged(conf);
    let until = now + longest_lifetime(&raw);
    let mut retired: Vec<Value> = match raw.get(RETIRED) {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    retired.retain(|v| v.get("until").and_then(as_i64).unwrap_or(0) > now);
    for kind in KeyKind::ALL {
        let [private, _, kid] = kind.conf_keys();
        let has = !text(&raw, private).is_empty();
        if has {
            let old = PrivateKey::from_pem(kind, &text(&raw, private), &text(&raw, kid))
                .map_err(|e| format!("{private}: {e}"))?;
            let mut jwk = old.public().to_json();
            jwk["until"] = json!(until);
            retired.push(jwk);
        }
        // RSA is OpenID's mandatory algorithm (and all `rotateOidcKeys` makes): always one.
        if has || kind == KeyKind::Rsa {
            install(conf, kind)?;
        }
    }
    conf.insert(RETIRED.into(), Value::Array(retired));
    Ok(format!(
        "Signing keys rotated: the previous public keys stay published until {until}"
    ))
}

/// The longest lifetime, in seconds, of anything signed: ID tokens and access tokens, of the
/// service and of each relying party.
pub fn longest_lifetime(raw: &Map<String, Value>) -> i64 {
    let num = |v: Option<&Value>| v.and_then(as_i64).unwrap_or(0);
    let mut longest = [
        "oidcServiceIDTokenExpiration",
        "oidcServiceAccessTokenExpiration",
    ]
    .iter()
    .map(|k| num(raw.get(*k)))
    .max()
    .unwrap_or(0);
    for opts in rp_options(raw) {
        for k in ["IDTokenExpiration", "AccessTokenExpiration"] {
            longest = longest.max(num(opts.get(&options::key(k))));
        }
    }
    longest
}

/// A fresh key of a family, with a new `kid`, in the configuration's three places.
fn install(conf: &mut Map<String, Value>, kind: KeyKind) -> Result<(), String> {
    let (private, public) = generate(kind)?;
    let [pk, pubk, kid] = kind.conf_keys();
    conf.insert(pk.into(), json!(private));
    conf.insert(pubk.into(), json!(public));
    conf.insert(kid.into(), json!(crate::util::random_hex(8)));
    Ok(())
}

fn rp_options(raw: &Map<String, Value>) -> impl Iterator<Item = &Map<String, Value>> {
    raw.get("oidcRPMetaDataOptions")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|all| all.values().filter_map(Value::as_object))
}

fn text(raw: &Map<String, Value>, key: &str) -> String {
    raw.get(key)
        .map(value_string)
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// DER prefix of a P-256 SubjectPublicKeyInfo: SEQUENCE { SEQUENCE { id-ecPublicKey,
/// prime256v1 }, BIT STRING (66 bytes, no unused bits) }.
const SPKI_P256: &[u8] = &[
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// DER prefix of an Ed25519 SubjectPublicKeyInfo: SEQUENCE { SEQUENCE { id-Ed25519 },
/// BIT STRING (33 bytes, no unused bits) }.
const SPKI_ED25519: &[u8] = &[
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// A PEM envelope (RFC 7468): base64 in lines of 64.
fn pem(label: &str, der: &[u8]) -> String {
    let b64 = STANDARD.encode(der);
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        lines.join("\n")
    )
}

/// The `rsa` crate draws its primes from `rand_core`; this feeds it the system's randomness
/// through `ring`, so no second random-number crate is needed.
struct RingRng(SystemRandom);

impl rsa::rand_core::RngCore for RingRng {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0; 4];
        self.fill_bytes(&mut b);
        u32::from_le_bytes(b)
    }
    fn next_u64(&mut self) -> u64 {
        let mut b = [0; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        // A key drawn from a failing random source must never be made: stop here (this runs
        // at start-up or in the CLI, never on the request path).
        if self.0.fill(dest).is_err() {
            panic!("the system's random source failed during key generation");
        }
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rsa::rand_core::Error> {
        self.0
            .fill(dest)
            .map_err(|_| rsa::rand_core::Error::from(std::num::NonZeroU32::MIN))
    }
}

impl rsa::rand_core::CryptoRng for RingRng {}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(alg: &str) -> Map<String, Value> {
        let v = json!({"oidcRPMetaDataOptions": {"a": {"oidcRPMetaDataOptionsClientID": "a",
            "oidcRPMetaDataOptionsIDTokenSignAlg": alg}}, "oidcServiceIDTokenExpiration": 7200});
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn missing_keys_are_added_once() {
        let mut c = conf("ES256");
        let log = complete(&mut c).unwrap().unwrap();
        assert!(log.contains("oidcServiceEcPrivateKeySig"), "{log}");
        assert!(c["oidcServiceEcPublicKeySig"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN PUBLIC KEY"));
        assert!(!c.contains_key("oidcServicePrivateKeySig"));
        assert_eq!(complete(&mut c).unwrap(), None);
        // HS512, LemonLDAP::NG's default for an unset option, needs no key.
        let mut hs = conf("");
        assert_eq!(complete(&mut hs).unwrap(), None);
    }

    #[test]
    fn rotation_retires_the_previous_key_until_its_tokens_expire() {
        let mut c = conf("EdDSA");
        complete(&mut c).unwrap();
        let old_kid = c["oidcServiceEdKeyIdSig"].clone();
        rotate(&mut c, 1000).unwrap();
        assert_ne!(c["oidcServiceEdKeyIdSig"], old_kid);
        let retired = c[RETIRED].as_array().unwrap();
        assert_eq!(retired.len(), 1);
        assert_eq!(retired[0]["kid"], old_kid);
        assert_eq!(retired[0]["until"], 1000 + 7200);
        // RSA is OpenID's mandatory algorithm: a rotation always leaves an RSA key.
        assert!(c.contains_key("oidcServicePrivateKeySig"));
        rotate(&mut c, 9000).unwrap();
        let kids: Vec<&Value> = c[RETIRED]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| &k["kid"])
            .collect();
        assert_eq!(
            kids.len(),
            2,
            "the first retired key left, the two previous keys joined"
        );
        assert!(!kids.contains(&&old_kid));
    }
}
