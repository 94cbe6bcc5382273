//! The attestation object (§6.5.4: a CBOR map of `fmt`, `authData`, `attStmt`) and the two
//! statement formats verified: `none` (§8.7, an empty statement) and `packed` self attestation
//! (§8.2: `alg` and `sig`, signed by the credential's own key). Packed with a certificate chain
//! (`x5c`) or ECDAA, and every other format (`fido-u2f`, `tpm`, `android-key`, `apple`, ...),
//! are refused by name: the portal asks for no attestation (`attestation: "none"`), so a browser
//! sends one of these two, and Limette keeps no list of trusted attestation roots.
use super::cose::CoseKey;
use super::Refused;
use minicbor::data::Type;
use minicbor::Decoder;

/// Members a statement may have before it is refused as not a statement.
const MAX_MEMBERS: u64 = 8;

/// A decoded attestation object.
pub struct Object<'a> {
    pub fmt: &'a str,
    pub auth_data: &'a [u8],
    stmt: Statement<'a>,
}

/// The statement's members that the two formats know.
#[derive(Default)]
struct Statement<'a> {
    members: u64,
    alg: Option<i64>,
    sig: Option<&'a [u8]>,
    x5c: bool,
    ecdaa: bool,
}

impl<'a> Object<'a> {
    /// Decodes the object: a definite map with text keys, each of the three once, nothing after.
    pub fn parse(raw: &'a [u8]) -> Result<Object<'a>, Refused> {
        let mut d = Decoder::new(raw);
        let n = definite_map(&mut d)?;
        let (mut fmt, mut auth_data, mut stmt) = (None, None, None);
        for _ in 0..n {
            let key = d.str().map_err(err)?;
            match key {
                "fmt" if fmt.is_none() => fmt = Some(d.str().map_err(err)?),
                "authData" if auth_data.is_none() => auth_data = Some(d.bytes().map_err(err)?),
                "attStmt" if stmt.is_none() => stmt = Some(read_statement(&mut d)?),
                "fmt" | "authData" | "attStmt" => return Err(malformed(format!("{key} twice"))),
                _ => d.skip().map_err(err)?,
            }
        }
        if d.position() != raw.len() {
            return Err(malformed("trailing bytes".into()));
        }
        match (fmt, auth_data, stmt) {
            (Some(fmt), Some(auth_data), Some(stmt)) => Ok(Object {
                fmt,
                auth_data,
                stmt,
            }),
            _ => Err(malformed("fmt, authData or attStmt missing".into())),
        }
    }

    /// §7.1 steps 18 and 19: verifies the statement over `auth_data || client_data_hash`;
    /// returns the format's name.
    pub fn verify(
        &self,
        auth_data: &[u8],
        client_data_hash: &[u8],
        key: &CoseKey,
    ) -> Result<&'static str, Refused> {
        let s = &self.stmt;
        match self.fmt {
            // §8.7: the statement of `none` is the empty map.
            "none" if s.members == 0 => Ok("none"),
            "none" => Err(malformed("a none statement with members".into())),
            "packed" if s.x5c => Err(Refused::AttestationFormat("packed with x5c".into())),
            "packed" if s.ecdaa => Err(Refused::AttestationFormat("packed with ECDAA".into())),
            "packed" => {
                // §8.2, self attestation: alg is the credential key's, sig verifies with it.
                let (alg, sig) = match (s.alg, s.sig) {
                    (Some(alg), Some(sig)) => (alg, sig),
                    _ => return Err(malformed("packed statement without alg or sig".into())),
                };
                if alg != key.alg().number() {
                    return Err(malformed(format!(
                        "statement alg {alg} is not the key's {}",
                        key.alg().number()
                    )));
                }
                let mut signed = auth_data.to_vec();
                signed.extend_from_slice(client_data_hash);
                key.verify(&signed, sig)?;
                Ok("packed")
            }
            other => Err(Refused::AttestationFormat(other.into())),
        }
    }
}

/// Reads `attStmt`: the members `alg`, `sig`, `x5c` and `ecdaaKeyId` noted, others skipped.
fn read_statement<'a>(d: &mut Decoder<'a>) -> Result<Statement<'a>, Refused> {
    let n = definite_map(d)?;
    if n > MAX_MEMBERS {
        return Err(malformed(format!("attStmt of {n} members")));
    }
    let mut s = Statement {
        members: n,
        ..Statement::default()
    };
    for _ in 0..n {
        match d.str().map_err(err)? {
            "alg" => s.alg = Some(d.i64().map_err(err)?),
            "sig" => s.sig = Some(d.bytes().map_err(err)?),
            "x5c" => {
                s.x5c = true;
                d.skip().map_err(err)?;
            }
            "ecdaaKeyId" => {
                s.ecdaa = true;
                d.skip().map_err(err)?;
            }
            _ => d.skip().map_err(err)?,
        }
    }
    Ok(s)
}

fn definite_map(d: &mut Decoder) -> Result<u64, Refused> {
    if !matches!(d.datatype(), Ok(Type::Map)) {
        return Err(malformed("not a map".into()));
    }
    d.map()
        .map_err(err)?
        .ok_or_else(|| malformed("indefinite-length map".into()))
}

fn err(e: minicbor::decode::Error) -> Refused {
    malformed(e.to_string())
}

fn malformed(why: String) -> Refused {
    Refused::Malformed("attestation object", why)
}
