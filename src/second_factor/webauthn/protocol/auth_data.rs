//! Authenticator data (§6.1): rpIdHash (32 bytes), flags (1), signCount (4, big-endian), then
//! the attested credential data when AT is set (§6.5.1: AAGUID, credential id length and id,
//! COSE key) and the extensions (a CBOR map) when ED is set. Nothing else may follow.
use super::cose::CoseKey;
use super::Refused;
use minicbor::data::Type;
use minicbor::Decoder;

const UP: u8 = 0x01;
const UV: u8 = 0x04;
const AT: u8 = 0x40;
const ED: u8 = 0x80;
/// §5.8.3: a credential id is at most 1023 bytes.
const MAX_CREDENTIAL_ID: usize = 1023;

/// Parsed authenticator data, borrowing the bytes it came from.
pub struct AuthData<'a> {
    pub rp_id_hash: &'a [u8],
    pub flags: u8,
    pub sign_count: u32,
    pub attested: Option<Attested<'a>>,
}

/// The attested credential data of a registration.
pub struct Attested<'a> {
    pub credential_id: &'a [u8],
    /// The COSE key's bytes, as they are kept.
    pub public_key: &'a [u8],
    pub key: CoseKey,
}

impl<'a> AuthData<'a> {
    /// Parses `raw`; anything short, left over or not as the flags announce is refused.
    pub fn parse(raw: &'a [u8]) -> Result<AuthData<'a>, Refused> {
        if raw.len() < 37 {
            return Err(malformed(format!(
                "{} bytes, at least 37 expected",
                raw.len()
            )));
        }
        let (head, mut rest) = raw.split_at(37);
        let (rp_id_hash, tail) = head.split_at(32);
        let (flags, count) = tail.split_at(1);
        let flags = flags.first().copied().unwrap_or_default();
        let mut cnt = [0u8; 4];
        cnt.copy_from_slice(count);
        let attested = if flags & AT != 0 {
            let (acd, used) = parse_attested(rest)?;
            rest = rest.get(used..).unwrap_or_default();
            Some(acd)
        } else {
            None
        };
        if flags & ED != 0 {
            // The extensions: exactly one CBOR map, and nothing after it.
            let mut d = Decoder::new(rest);
            if !matches!(d.datatype(), Ok(Type::Map)) {
                return Err(malformed("extensions are not a map".into()));
            }
            d.skip()
                .map_err(|e| malformed(format!("extensions: {e}")))?;
            rest = rest.get(d.position()..).unwrap_or_default();
        }
        if !rest.is_empty() {
            return Err(malformed(format!("{} trailing bytes", rest.len())));
        }
        Ok(AuthData {
            rp_id_hash,
            flags,
            sign_count: u32::from_be_bytes(cnt),
            attested,
        })
    }

    pub fn user_present(&self) -> bool {
        self.flags & UP != 0
    }

    pub fn user_verified(&self) -> bool {
        self.flags & UV != 0
    }
}

/// Parses the attested credential data at the start of `b`; says how many bytes it took.
fn parse_attested(b: &[u8]) -> Result<(Attested<'_>, usize), Refused> {
    if b.len() < 18 {
        return Err(malformed("attested credential data too short".into()));
    }
    // (Indexing below 18 is safe: the length was checked above.)
    // 16 bytes of AAGUID (not used: no attestation trust is assessed), then the id's length.
    let len = usize::from(u16::from_be_bytes([b[16], b[17]]));
    if len == 0 || len > MAX_CREDENTIAL_ID {
        return Err(malformed(format!("credential id of {len} bytes")));
    }
    let credential_id = b
        .get(18..18 + len)
        .ok_or_else(|| malformed("credential id cut short".into()))?;
    let key_bytes = b.get(18 + len..).unwrap_or_default();
    let (key, key_len) = CoseKey::parse_prefix(key_bytes)?;
    let public_key = key_bytes.get(..key_len).unwrap_or_default();
    Ok((
        Attested {
            credential_id,
            public_key,
            key,
        },
        18 + len + key_len,
    ))
}

fn malformed(why: String) -> Refused {
    Refused::Malformed("authenticator data", why)
}
