//! Credential public keys in COSE (RFC 9052 §7, RFC 9053 §2 and §7): ES256 (EC2, P-256),
//! RS256 (RSA PKCS#1 v1.5 with SHA-256, RFC 8812 §2) and EdDSA (OKP, Ed25519); any other
//! algorithm, key type or curve is refused. Signatures are verified through `ring`.
use super::Refused;
use minicbor::data::Type;
use minicbor::Decoder;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};

/// The COSE algorithms accepted, with their registered numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// -7: ECDSA with SHA-256 on P-256; signatures in ASN.1 DER (WebAuthn §6.5.6).
    Es256,
    /// -257: RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// -8: EdDSA, on Ed25519 only.
    EdDsa,
}

impl Alg {
    /// The COSE number, as `pubKeyCredParams` and the attestation statement carry it.
    pub fn number(self) -> i64 {
        match self {
            Alg::Es256 => -7,
            Alg::Rs256 => -257,
            Alg::EdDsa => -8,
        }
    }

    /// The algorithms offered to the browser, preferred first.
    pub const OFFERED: [Alg; 3] = [Alg::Es256, Alg::EdDsa, Alg::Rs256];
}

/// A parsed credential public key.
#[derive(Debug, PartialEq, Eq)]
pub enum CoseKey {
    /// An uncompressed P-256 point (0x04 || x || y).
    Es256(Vec<u8>),
    /// The modulus and the public exponent, big-endian without leading zeros.
    Rs256 { n: Vec<u8>, e: Vec<u8> },
    /// The Ed25519 public key.
    EdDsa(Vec<u8>),
}

/// COSE key parameters (RFC 9052 §7.1, RFC 9053 §7): kty, alg, and the type's own.
const KTY: i64 = 1;
const ALG: i64 = 3;
const P1: i64 = -1; // crv (EC2, OKP) or n (RSA)
const P2: i64 = -2; // x (EC2, OKP) or e (RSA)
const P3: i64 = -3; // y (EC2)
/// A COSE key map has a handful of members; more is not a key.
const MAX_MEMBERS: u64 = 16;

/// The members read from the map: integers and byte strings by label.
#[derive(Default)]
struct Members<'b> {
    kty: Option<i64>,
    alg: Option<i64>,
    ints: [Option<i64>; 3],
    bytes: [Option<&'b [u8]>; 3],
}

impl CoseKey {
    /// Parses a whole COSE key (as kept in `_credentialPublicKey`); trailing bytes refused.
    pub fn parse(bytes: &[u8]) -> Result<CoseKey, Refused> {
        let (key, used) = CoseKey::parse_prefix(bytes)?;
        if used != bytes.len() {
            return Err(malformed("trailing bytes after the key".into()));
        }
        Ok(key)
    }

    /// Parses the COSE key at the start of `bytes` and says how many bytes it took (in the
    /// authenticator data it is followed by the extensions, with no length before it).
    pub fn parse_prefix(bytes: &[u8]) -> Result<(CoseKey, usize), Refused> {
        let mut d = Decoder::new(bytes);
        let m = read_members(&mut d)?;
        Ok((key_of(&m)?, d.position()))
    }

    /// The key's algorithm.
    pub fn alg(&self) -> Alg {
        match self {
            CoseKey::Es256(_) => Alg::Es256,
            CoseKey::Rs256 { .. } => Alg::Rs256,
            CoseKey::EdDsa(_) => Alg::EdDsa,
        }
    }

    /// Verifies `sig` over `msg` with this key and its algorithm.
    pub fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<(), Refused> {
        let ok = match self {
            CoseKey::Es256(point) => {
                UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_ASN1, point).verify(msg, sig)
            }
            CoseKey::EdDsa(x) => UnparsedPublicKey::new(&signature::ED25519, x).verify(msg, sig),
            CoseKey::Rs256 { n, e } => RsaPublicKeyComponents { n, e }.verify(
                &signature::RSA_PKCS1_2048_8192_SHA256,
                msg,
                sig,
            ),
        };
        ok.map_err(|_| Refused::Signature)
    }
}

/// The key the members describe: the key type and algorithm pairs accepted, with their own
/// parameters (RFC 9053 §7.1 EC2, §7.2 OKP; RFC 8230 §4 RSA).
fn key_of(m: &Members) -> Result<CoseKey, Refused> {
    match (m.kty, m.alg) {
        (Some(2), Some(-7)) => {
            // EC2: crv 1 is P-256; x and y are 32 bytes each.
            if m.ints[0] != Some(1) {
                return Err(Refused::Algorithm("ES256 key not on P-256".into()));
            }
            match (m.bytes[1], m.bytes[2]) {
                (Some(x), Some(y)) if x.len() == 32 && y.len() == 32 => {
                    Ok(CoseKey::Es256([&[4u8][..], x, y].concat()))
                }
                _ => Err(malformed("EC2 key without 32-byte x and y".into())),
            }
        }
        (Some(3), Some(-257)) => match (m.bytes[0], m.bytes[1]) {
            (Some(n), Some(e)) => Ok(CoseKey::Rs256 {
                n: strip_zeros(n),
                e: strip_zeros(e),
            }),
            _ => Err(malformed("RSA key without n and e".into())),
        },
        (Some(1), Some(-8)) => {
            // OKP: crv 6 is Ed25519.
            if m.ints[0] != Some(6) {
                return Err(Refused::Algorithm("EdDSA key not on Ed25519".into()));
            }
            match m.bytes[1] {
                Some(x) if x.len() == 32 => Ok(CoseKey::EdDsa(x.to_vec())),
                _ => Err(malformed("OKP key without a 32-byte x".into())),
            }
        }
        (kty, alg) => Err(Refused::Algorithm(format!(
            "kty {} alg {}",
            opt(kty),
            opt(alg)
        ))),
    }
}

/// Reads the key's map: definite length, integer labels, each label once.
fn read_members<'b>(d: &mut Decoder<'b>) -> Result<Members<'b>, Refused> {
    let n = d
        .map()
        .map_err(|e| malformed(e.to_string()))?
        .ok_or_else(|| malformed("indefinite-length map".into()))?;
    if n > MAX_MEMBERS {
        return Err(malformed(format!("{n} members")));
    }
    let mut m = Members::default();
    let mut seen = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let label = d.i64().map_err(|e| malformed(format!("label: {e}")))?;
        if seen.contains(&label) {
            return Err(malformed(format!("label {label} twice")));
        }
        seen.push(label);
        let slot = match label {
            P1 => Some(0),
            P2 => Some(1),
            P3 => Some(2),
            _ => None,
        };
        match d.datatype().map_err(|e| malformed(e.to_string()))? {
            Type::Bytes => {
                let b = d.bytes().map_err(|e| malformed(e.to_string()))?;
                if let Some(i) = slot {
                    m.bytes[i] = Some(b);
                }
            }
            Type::U8
            | Type::U16
            | Type::U32
            | Type::U64
            | Type::I8
            | Type::I16
            | Type::I32
            | Type::I64 => {
                let v = d.i64().map_err(|e| malformed(e.to_string()))?;
                match (label, slot) {
                    (KTY, _) => m.kty = Some(v),
                    (ALG, _) => m.alg = Some(v),
                    (_, Some(i)) => m.ints[i] = Some(v),
                    _ => {}
                }
            }
            _ => d.skip().map_err(|e| malformed(e.to_string()))?,
        }
    }
    Ok(m)
}

/// A big-endian integer without its leading zero bytes (`ring` reads minimal encodings).
fn strip_zeros(b: &[u8]) -> Vec<u8> {
    let start = b.iter().position(|&x| x != 0).unwrap_or(b.len());
    b.get(start..).unwrap_or_default().to_vec()
}

fn opt(v: Option<i64>) -> String {
    v.map_or_else(|| "missing".into(), |v| v.to_string())
}

fn malformed(why: String) -> Refused {
    Refused::Malformed("COSE key", why)
}
