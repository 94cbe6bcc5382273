//! The provider's signing keys: read from the configuration (PEM, as LemonLDAP::NG's manager
//! writes them), signing with `ring`, and their public halves as JSON Web Keys (RFC 7517,
//! RFC 7518 6, RFC 8037 2). One key per family: RSA in LemonLDAP::NG's own places
//! (`oidcServicePrivateKeySig`, `oidcServicePublicKeySig`, `oidcServiceKeyIdSig`), P-256 and
//! Ed25519 beside it under the same pattern; public keys retired by a rotation stay published
//! until their `until` time (`oidcServiceRetiredKeysSig`). Generating and rotating keys is
//! `keygen`'s business; no HTTP here.
//!
//! The folder holds what the provider signs with, below the settings that read it: the
//! algorithms and key families (`alg`), JSON Web Tokens (`jwt`), which algorithms an RP's
//! options ask for (`signing`), and generating and rotating the keys in a configuration
//! document (`keygen`). It imports nothing of the endpoints or of `settings`.
pub mod alg;
pub mod jwt;
pub mod keygen;
pub mod signing;

pub use alg::{Alg, KeyKind};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair};
use serde_json::{json, Map, Value};
use std::fmt;

/// The configuration key of the public keys retired by a rotation, each a JWK with `until`.
pub const RETIRED: &str = "oidcServiceRetiredKeysSig";

/// The public half of a key, as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicJwk {
    /// `kid`.
    pub kid: String,
    /// The family, with the public parameters.
    pub params: Params,
}

/// Public parameters (RFC 7518 6.2, 6.3; RFC 8037 2), big-endian bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Params {
    /// Modulus and exponent.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// P-256 coordinates.
    Ec { x: Vec<u8>, y: Vec<u8> },
    /// The Ed25519 public key.
    Okp { x: Vec<u8> },
}

impl PublicJwk {
    /// The family of the key.
    pub fn kind(&self) -> KeyKind {
        match self.params {
            Params::Rsa { .. } => KeyKind::Rsa,
            Params::Ec { .. } => KeyKind::Ec,
            Params::Okp { .. } => KeyKind::Ed,
        }
    }

    /// The JWK: `kid`, `kty`, `alg`, `use: sig` and the public parameters only.
    pub fn to_json(&self) -> Value {
        let alg = self.kind().jwk_alg().as_str();
        let mut m = match &self.params {
            Params::Rsa { n, e } => json!({"kty": "RSA", "n": B64.encode(n), "e": B64.encode(e)}),
            Params::Ec { x, y } => {
                json!({"kty": "EC", "crv": "P-256", "x": B64.encode(x), "y": B64.encode(y)})
            }
            Params::Okp { x } => json!({"kty": "OKP", "crv": "Ed25519", "x": B64.encode(x)}),
        };
        if let Value::Object(o) = &mut m {
            o.insert("kid".into(), json!(self.kid));
            o.insert("alg".into(), json!(alg));
            o.insert("use".into(), json!("sig"));
        }
        m
    }

    /// Reads a JWK written by `to_json` (a retired key); `None` when it is not one.
    pub fn from_json(v: &Value) -> Option<PublicJwk> {
        PublicJwk::parse(v).ok().filter(|k| !k.kid.is_empty())
    }

    /// Reads a public JWK (RFC 7517 4, RFC 7518 6): an RSA, EC P-256 or OKP Ed25519 key and
    /// its `kid` (absent: empty); the error says what is wrong, for a relying party's keys.
    pub fn parse(v: &Value) -> Result<PublicJwk, String> {
        let part = |name: &str| -> Result<Vec<u8>, String> {
            let text = v.get(name).and_then(Value::as_str);
            let bytes = text.and_then(|s| B64.decode(s.trim_end_matches('=')).ok());
            bytes
                .filter(|b| !b.is_empty())
                .ok_or_else(|| format!("\"{name}\" is missing or not base64url"))
        };
        let kty = v.get("kty").and_then(Value::as_str).unwrap_or("");
        let crv = v.get("crv").and_then(Value::as_str);
        let params = match (kty, crv) {
            ("RSA", _) => Params::Rsa {
                n: part("n")?,
                e: part("e")?,
            },
            ("EC", Some("P-256")) => Params::Ec {
                x: coordinate(part("x")?, "x")?,
                y: coordinate(part("y")?, "y")?,
            },
            ("OKP", Some("Ed25519")) => Params::Okp { x: part("x")? },
            _ => {
                return Err(format!(
                    "kty {kty} (crv {}) is not RSA, EC P-256 or OKP Ed25519",
                    crv.unwrap_or("-")
                ))
            }
        };
        let kid = match v.get("kid") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err("\"kid\" is not a string".into()),
        };
        Ok(PublicJwk { kid, params })
    }

    /// Checks a signature made with `alg` (which must be of this key's family).
    pub fn verify(&self, alg: Alg, msg: &[u8], sig: &[u8]) -> bool {
        use signature::{RsaPublicKeyComponents, UnparsedPublicKey};
        let ok = match (&self.params, alg) {
            (Params::Rsa { n, e }, Alg::RS256 | Alg::RS384 | Alg::RS512) => {
                let params = match alg {
                    Alg::RS384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Alg::RS512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    _ => &signature::RSA_PKCS1_2048_8192_SHA256,
                };
                RsaPublicKeyComponents { n, e }.verify(params, msg, sig)
            }
            (Params::Ec { x, y }, Alg::ES256) => {
                let point = [&[4u8][..], x, y].concat();
                UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point).verify(msg, sig)
            }
            (Params::Okp { x }, Alg::EdDSA) => {
                UnparsedPublicKey::new(&signature::ED25519, x).verify(msg, sig)
            }
            _ => return false,
        };
        ok.is_ok()
    }
}

/// A P-256 coordinate as its 32 bytes. RFC 7518 6.2.1.2 asks for the full length, but some
/// clients' libraries write the number without its leading zero bytes (Authlib 1.9, for one
/// key in 128): the same number, padded back. Longer is not a P-256 coordinate.
fn coordinate(bytes: Vec<u8>, name: &str) -> Result<Vec<u8>, String> {
    if bytes.len() > 32 {
        return Err(format!("\"{name}\" is longer than a P-256 coordinate"));
    }
    let mut full = vec![0; 32 - bytes.len()];
    full.extend(bytes);
    Ok(full)
}

/// A key that signs. Its private half never leaves this type (`Debug` shows the `kid` only).
pub struct PrivateKey {
    pair: Pair,
    public: PublicJwk,
}

enum Pair {
    Rsa(RsaKeyPair),
    Ec(EcdsaKeyPair),
    Ed(Ed25519KeyPair),
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PrivateKey({}, kid {}, ***)",
            self.kind().name(),
            self.kid()
        )
    }
}

impl PrivateKey {
    /// Reads a PEM private key of a family: RSA as PKCS#1 (`BEGIN RSA PRIVATE KEY`, what
    /// LemonLDAP::NG writes) or PKCS#8 (`BEGIN PRIVATE KEY`); P-256 and Ed25519 as PKCS#8.
    pub fn from_pem(kind: KeyKind, pem: &str, kid: &str) -> Result<PrivateKey, String> {
        let rng = SystemRandom::new();
        let pair = match kind {
            // Read by `ring` alone, which checks the key's consistency (no `rsa` crate here).
            KeyKind::Rsa => {
                let bad = |e: ring::error::KeyRejected| format!("not an RSA private key: {e}");
                let pair = match pem_der(pem)? {
                    (label, der) if label == "RSA PRIVATE KEY" => RsaKeyPair::from_der(&der),
                    (label, der) if label == "PRIVATE KEY" => RsaKeyPair::from_pkcs8(&der),
                    (label, _) => return Err(format!(
                        "BEGIN {label}: an RSA private key (BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY) is expected"
                    )),
                };
                Pair::Rsa(pair.map_err(bad)?)
            }
            KeyKind::Ec => {
                let der = pkcs8_der(pem)?;
                let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
                Pair::Ec(EcdsaKeyPair::from_pkcs8(alg, &der, &rng).map_err(|e| e.to_string())?)
            }
            KeyKind::Ed => {
                let der = pkcs8_der(pem)?;
                let pair =
                    Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der).map_err(|e| e.to_string())?;
                Pair::Ed(pair)
            }
        };
        let params = match &pair {
            Pair::Rsa(p) => {
                let c = signature::RsaPublicKeyComponents::<Vec<u8>>::from(p.public());
                Params::Rsa { n: c.n, e: c.e }
            }
            Pair::Ec(p) => {
                // An uncompressed P-256 point: 0x04, then 32 bytes of x and 32 of y.
                let xy = p.public_key().as_ref().get(1..).unwrap_or_default();
                let (x, y) = xy.split_at(xy.len() / 2);
                Params::Ec {
                    x: x.to_vec(),
                    y: y.to_vec(),
                }
            }
            Pair::Ed(p) => Params::Okp {
                x: p.public_key().as_ref().to_vec(),
            },
        };
        let public = PublicJwk {
            kid: kid.to_string(),
            params,
        };
        Ok(PrivateKey { pair, public })
    }

    /// Its `kid`.
    pub fn kid(&self) -> &str {
        &self.public.kid
    }

    /// Its family.
    pub fn kind(&self) -> KeyKind {
        self.public.kind()
    }

    /// Its public half.
    pub fn public(&self) -> &PublicJwk {
        &self.public
    }

    /// The JWS signature of `msg` with `alg` (RFC 7518 3.3, 3.4; RFC 8037 3.1). `None` when
    /// the algorithm is not of this key's family or the system's randomness failed.
    pub fn sign(&self, alg: Alg, msg: &[u8]) -> Option<Vec<u8>> {
        let rng = SystemRandom::new();
        match (&self.pair, alg) {
            (Pair::Rsa(p), Alg::RS256 | Alg::RS384 | Alg::RS512) => {
                let padding: &'static dyn signature::RsaEncoding = match alg {
                    Alg::RS384 => &signature::RSA_PKCS1_SHA384,
                    Alg::RS512 => &signature::RSA_PKCS1_SHA512,
                    _ => &signature::RSA_PKCS1_SHA256,
                };
                let mut sig = vec![0; p.public().modulus_len()];
                p.sign(padding, &rng, msg, &mut sig).ok()?;
                Some(sig)
            }
            (Pair::Ec(p), Alg::ES256) => p.sign(&rng, msg).ok().map(|s| s.as_ref().to_vec()),
            (Pair::Ed(p), Alg::EdDSA) => Some(p.sign(msg).as_ref().to_vec()),
            _ => None,
        }
    }
}

/// Every key of a configuration: the signing key of each family, and retired public keys.
#[derive(Debug, Default)]
pub struct Keyring {
    current: Vec<PrivateKey>,
    retired: Vec<(PublicJwk, i64)>,
}

impl Keyring {
    /// Reads the keys of a configuration (defaults merged). A key that does not read is left
    /// out and named in the returned errors (`<key>: <why>`); RPs that need it are disabled.
    pub fn from_conf(raw: &Map<String, Value>) -> (Keyring, Vec<String>) {
        let text = |k: &str| raw.get(k).and_then(Value::as_str).unwrap_or("").trim();
        let mut ring = Keyring::default();
        let mut errors = Vec::new();
        for kind in KeyKind::ALL {
            let [private, _, kid] = kind.conf_keys();
            if text(private).is_empty() {
                continue;
            }
            match PrivateKey::from_pem(kind, text(private), text(kid)) {
                Ok(k) => ring.current.push(k),
                Err(e) => errors.push(format!("{private}: {e}")),
            }
        }
        if let Some(Value::Array(all)) = raw.get(RETIRED) {
            for v in all {
                let until = v.get("until").and_then(crate::config::as_i64).unwrap_or(0);
                match PublicJwk::from_json(v) {
                    Some(k) => ring.retired.push((k, until)),
                    None => errors.push(format!("{RETIRED}: an entry is not a public JWK")),
                }
            }
        }
        (ring, errors)
    }

    /// The key that signs for a family.
    pub fn signer(&self, kind: KeyKind) -> Option<&PrivateKey> {
        self.current.iter().find(|k| k.kind() == kind)
    }

    /// Every published public key at `now`: the signing keys, then the retired keys whose
    /// tokens may still be alive.
    pub fn published(&self, now: i64) -> Vec<&PublicJwk> {
        let current = self.current.iter().map(PrivateKey::public);
        let retired = self.retired.iter().filter(|(_, until)| *until > now);
        current.chain(retired.map(|(k, _)| k)).collect()
    }

    /// The published key with this `kid` at `now`.
    pub fn find(&self, kid: &str, now: i64) -> Option<&PublicJwk> {
        self.published(now).into_iter().find(|k| k.kid == kid)
    }

    /// The JSON Web Key Set at `now` (RFC 7517 5).
    pub fn jwks(&self, now: i64) -> Value {
        let keys: Vec<Value> = self.published(now).iter().map(|k| k.to_json()).collect();
        json!({ "keys": keys })
    }
}

/// The DER inside a `BEGIN PRIVATE KEY` PEM envelope (PKCS#8, RFC 7468 10).
fn pkcs8_der(pem: &str) -> Result<Vec<u8>, String> {
    let (label, der) = pem_der(pem)?;
    if label != "PRIVATE KEY" {
        return Err(format!(
            "BEGIN {label}: a PKCS#8 key (BEGIN PRIVATE KEY) is expected"
        ));
    }
    Ok(der)
}

/// The label and DER of the first PEM envelope in `pem` (RFC 7468 2: `-----BEGIN label-----`,
/// base64 lines, `-----END label-----` with the same label). Envelopes with headers
/// (`Proc-Type: 4,ENCRYPTED`, the old encrypted form) are refused by the base64 decoding.
fn pem_der(pem: &str) -> Result<(String, Vec<u8>), String> {
    let not_pem = || "not a PEM document".to_string();
    let start = pem.find("-----BEGIN ").ok_or_else(not_pem)?;
    let rest = &pem[start + "-----BEGIN ".len()..];
    let (label, rest) = rest.split_once("-----").ok_or_else(not_pem)?;
    let end = format!("-----END {label}-----");
    let body = &rest[..rest.find(&end).ok_or_else(not_pem)?];
    let b64: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| format!("not a PEM document: {e}"))?;
    Ok((label.to_string(), der))
}

#[cfg(test)]
mod tests;
