//! The digests behind LemonLDAP::NG's DBI hash schemes and their encodings, computed here
//! rather than by database functions. LemonLDAP::NG calls the SQL function the scheme names
//! (`{sha256}` calls `sha256(hex)`, `{ssha512}` calls `sha512(hex)` with the salt appended)
//! and stores, after the scheme, `encode_base64(digest || salt)` (`Lib/DBI.pm`,
//! `hash_password_from_database`): the salt is 8 random bytes (`gen_salt`), read back as the
//! last 8 bytes of the decoded value (`get_salt`). The static mode (`dbiAuthPasswordHash`)
//! compares with what the SQL function returns for the clear password: its hexadecimal text.
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine;
use sha2::Digest;

/// The salt length LemonLDAP::NG writes.
pub const SALT_LEN: usize = 8;

/// A digest a scheme names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    /// `md5`.
    Md5,
    /// `sha` or `sha1`.
    Sha1,
    /// `sha224`.
    Sha224,
    /// `sha256`.
    Sha256,
    /// `sha384`.
    Sha384,
    /// `sha512`.
    Sha512,
}

/// The digest names understood, as the SQL functions a site creates for LemonLDAP::NG.
pub const NAMES: &[&str] = &["md5", "sha", "sha1", "sha224", "sha256", "sha384", "sha512"];

impl Algo {
    /// The digest of an SQL function name (case does not matter: SQL's function names).
    pub fn from_name(name: &str) -> Option<Algo> {
        Some(match name.to_ascii_lowercase().as_str() {
            "md5" => Algo::Md5,
            "sha" | "sha1" => Algo::Sha1,
            "sha224" => Algo::Sha224,
            "sha256" => Algo::Sha256,
            "sha384" => Algo::Sha384,
            "sha512" => Algo::Sha512,
            _ => return None,
        })
    }

    /// The digest of `data`.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Algo::Md5 => md5::Md5::digest(data).to_vec(),
            Algo::Sha1 => ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, data)
                .as_ref()
                .to_vec(),
            Algo::Sha224 => sha2::Sha224::digest(data).to_vec(),
            Algo::Sha256 => sha2::Sha256::digest(data).to_vec(),
            Algo::Sha384 => sha2::Sha384::digest(data).to_vec(),
            Algo::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }

    /// The digest's length in bytes.
    pub fn size(self) -> usize {
        match self {
            Algo::Md5 => 16,
            Algo::Sha1 => 20,
            Algo::Sha224 => 28,
            Algo::Sha256 => 32,
            Algo::Sha384 => 48,
            Algo::Sha512 => 64,
        }
    }
}

/// `{scheme}` + base64(digest(password)): an unsalted dynamic hash.
pub fn plain(scheme: &str, algo: Algo, password: &str) -> String {
    format!(
        "{{{scheme}}}{}",
        STANDARD.encode(algo.digest(password.as_bytes()))
    )
}

/// `{scheme}` + base64(digest(password || salt) || salt): a salted dynamic hash.
pub fn salted(scheme: &str, algo: Algo, password: &str, salt: &[u8]) -> String {
    format!(
        "{{{scheme}}}{}",
        STANDARD.encode(salted_bytes(algo, password, salt))
    )
}

fn salted_bytes(algo: Algo, password: &str, salt: &[u8]) -> Vec<u8> {
    let mut data = password.as_bytes().to_vec();
    data.extend_from_slice(salt);
    let mut out = algo.digest(&data);
    out.extend_from_slice(salt);
    out
}

/// Whether `encoded` (the text after `{scheme}`) is the unsalted digest of `password`.
pub fn check_plain(algo: Algo, encoded: &str, password: &str) -> bool {
    let Some(stored) = decode(encoded) else {
        return false;
    };
    crate::util::ct_eq(&stored, &algo.digest(password.as_bytes()))
}

/// Whether `encoded` is a salted digest of `password`: the salt is what follows the digest
/// (8 bytes when LemonLDAP::NG wrote it, as `get_salt` reads it back; an LDAP export's
/// `{SSHA}` may carry another length, which LemonLDAP::NG nodes cannot check).
pub fn check_salted(algo: Algo, encoded: &str, password: &str) -> bool {
    let Some(stored) = decode(encoded) else {
        return false;
    };
    if stored.len() <= algo.size() {
        return false;
    }
    let salt = &stored[algo.size()..];
    crate::util::ct_eq(&stored, &salted_bytes(algo, password, salt))
}

/// The static mode's value: lowercase hexadecimal of the digest, as SQL functions answer.
pub fn hex(algo: Algo, password: &str) -> String {
    crate::util::hex(&algo.digest(password.as_bytes()))
}

/// Base64 as LemonLDAP::NG's `decode_base64` reads it, padding optional; `None` for text that
/// is not base64 at all.
pub fn decode(encoded: &str) -> Option<Vec<u8>> {
    let trimmed: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    STANDARD_NO_PAD.decode(trimmed.trim_end_matches('=')).ok()
}

/// Whether `encoded` decodes to a digest of `algo` with or without a salt (for hashes given
/// to `limette users add` and imports).
pub fn fits(algo: Algo, encoded: &str, salted: bool) -> bool {
    decode(encoded).is_some_and(|b| {
        if salted {
            b.len() > algo.size()
        } else {
            b.len() == algo.size()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        // RFC 3174 / FIPS 180 values of "abc".
        assert_eq!(
            hex(Algo::Sha1, "abc"),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(Algo::Sha256, "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(hex(Algo::Md5, "abc"), "900150983cd24fb0d6963f7d28e17f72");
        let h = salted("ssha256", Algo::Sha256, "secret", b"12345678");
        let enc = h.strip_prefix("{ssha256}").unwrap();
        assert!(check_salted(Algo::Sha256, enc, "secret"));
        assert!(!check_salted(Algo::Sha256, enc, "Secret"));
        assert!(check_plain(
            Algo::Sha512,
            plain("sha512", Algo::Sha512, "x").get(8..).unwrap(),
            "x"
        ));
        assert!(!check_salted(Algo::Sha256, "", "secret"));
        assert!(!check_plain(Algo::Sha256, "!!!", "secret"));
        for name in NAMES {
            let a = Algo::from_name(name).unwrap();
            assert_eq!(a.digest(b"").len(), a.size());
        }
        assert_eq!(Algo::from_name("SHA256"), Some(Algo::Sha256));
        assert_eq!(Algo::from_name("whirlpool"), None);
    }
}
