//! LemonLDAP::NG's `__secret` cipher (`Common/Crypto.pm`), used by its REST session protocol to
//! prove that a session-creating `PUT` comes from a holder of the configuration's `key`:
//! `base64(IV[16] || AES-256-CBC(key = SHA-256(conf key), IV)(SHA-256(pt) || pt))`, where `pt`
//! is the text NUL-padded to a multiple of 16 bytes. The server accepts a secret whose text is
//! an epoch within `restClockTolerance` seconds of now. Pure functions: no clock, no I/O
//! except the random IV.
use aes::cipher::{block_padding::NoPadding, BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use sha2::{Digest, Sha256};

type Enc = cbc::Encryptor<aes::Aes256>;
type Dec = cbc::Decryptor<aes::Aes256>;

/// Why a secret was refused (the reason goes to the log, never to the client).
#[derive(Debug, PartialEq)]
pub enum Refused {
    /// Not base64, too short, or not whole blocks.
    Malformed,
    /// The inner SHA-256 does not match: wrong key or tampered data.
    BadKey,
    /// The text is not a decimal epoch.
    NotAnEpoch,
    /// The epoch is further than the tolerance from now.
    Stale,
}

/// Encrypts `text` with a random IV.
pub fn encrypt(conf_key: &str, text: &str) -> String {
    let mut iv = [0u8; 16];
    iv.copy_from_slice(&crate::util::random_bytes(16));
    encrypt_with_iv(conf_key, text, &iv)
}

/// Encrypts `text` with the given IV (deterministic, for test vectors).
pub fn encrypt_with_iv(conf_key: &str, text: &str, iv: &[u8; 16]) -> String {
    let mut pt = text.as_bytes().to_vec();
    pad(&mut pt);
    let mut data = Sha256::digest(&pt).to_vec();
    data.extend_from_slice(&pt);
    let ct =
        Enc::new(&derive(conf_key).into(), iv.into()).encrypt_padded_vec_mut::<NoPadding>(&data);
    let mut out = iv.to_vec();
    out.extend_from_slice(&ct);
    STANDARD.encode(out)
}

/// Decrypts a secret to its text (trailing NULs removed), checking the inner SHA-256.
pub fn decrypt(conf_key: &str, secret: &str) -> Result<String, Refused> {
    let raw = STANDARD
        .decode(secret.trim())
        .map_err(|_| Refused::Malformed)?;
    // At least the IV, the 32-byte hash, and whole 16-byte blocks.
    if raw.len() < 16 + 32 || raw.len() % 16 != 0 {
        return Err(Refused::Malformed);
    }
    let (iv, ct) = raw.split_at(16);
    let iv: [u8; 16] = iv.try_into().map_err(|_| Refused::Malformed)?;
    let data = Dec::new(&derive(conf_key).into(), &iv.into())
        .decrypt_padded_vec_mut::<NoPadding>(ct)
        .map_err(|_| Refused::Malformed)?;
    // The length check above leaves at least 32 bytes of plaintext.
    let (hash, pt) = data.split_at(32);
    if !crate::util::ct_eq(hash, &Sha256::digest(pt)) {
        return Err(Refused::BadKey);
    }
    // `end` is at most `pt.len()`.
    let end = pt.iter().rposition(|b| *b != 0).map(|i| i + 1).unwrap_or(0);
    String::from_utf8(pt[..end].to_vec()).map_err(|_| Refused::NotAnEpoch)
}

/// A fresh secret for now, as LemonLDAP::NG's session client sends it.
pub fn fresh(conf_key: &str, now: i64) -> String {
    encrypt(conf_key, &now.to_string())
}

/// Checks a secret: it decrypts with the key to an epoch within `tolerance` seconds of `now`.
pub fn check(conf_key: &str, secret: &str, now: i64, tolerance: i64) -> Result<(), Refused> {
    let text = decrypt(conf_key, secret)?;
    let epoch: i64 = text.trim().parse().map_err(|_| Refused::NotAnEpoch)?;
    if (now - epoch).abs() > tolerance {
        return Err(Refused::Stale);
    }
    Ok(())
}

/// The AES key: SHA-256 of the configuration key.
fn derive(conf_key: &str) -> [u8; 32] {
    Sha256::digest(conf_key.as_bytes()).into()
}

/// NUL-pads to a multiple of 16 bytes (nothing added when already aligned).
fn pad(v: &mut Vec<u8>) {
    let rem = v.len() % 16;
    if rem != 0 {
        v.resize(v.len() + 16 - rem, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_layout() {
        let s = encrypt("k", "1795313127");
        let raw = STANDARD.decode(&s).unwrap();
        // IV + hash (32) + one padded block.
        assert_eq!(raw.len(), 16 + 32 + 16);
        assert_eq!(decrypt("k", &s).unwrap(), "1795313127");
        assert_eq!(decrypt("other", &s), Err(Refused::BadKey));
        let aligned = "0123456789abcdef";
        assert_eq!(decrypt("k", &encrypt("k", aligned)).unwrap(), aligned);
    }

    /// A known answer computed without Limette: `openssl enc -aes-256-cbc -nopad` with
    /// `-K $(printf k | sha256sum)` and `-iv 07...07` over SHA-256(pt) || pt, where pt is "42"
    /// NUL-padded to 16 bytes, the IV put in front and the whole in base64; LemonLDAP::NG's own
    /// `Lemonldap::NG::Common::Crypto->new("k")->decrypt` reads it back as "42".
    #[test]
    fn deterministic_vector() {
        let expected = "BwcHBwcHBwcHBwcHBwcHB4Uq42nskdM9XsihbYulisWMZ6ZX0GtoHe8JKZub9kf/q5zUSpiekhlRCInKMvio9A==";
        assert_eq!(encrypt_with_iv("k", "42", &[7u8; 16]), expected);
        assert_eq!(decrypt("k", expected).unwrap(), "42");
    }

    #[test]
    fn check_tolerance() {
        let now = 1_795_313_127;
        assert!(check("k", &fresh("k", now), now + 15, 15).is_ok());
        assert!(check("k", &fresh("k", now), now - 15, 15).is_ok());
        assert_eq!(
            check("k", &fresh("k", now), now + 16, 15),
            Err(Refused::Stale)
        );
        assert_eq!(
            check("k", &encrypt("k", "soon"), now, 15),
            Err(Refused::NotAnEpoch)
        );
        assert_eq!(check("k", &fresh("x", now), now, 15), Err(Refused::BadKey));
    }

    #[test]
    fn malformed_never_panics() {
        for bad in [
            "",
            "!!",
            "AAAA",
            &STANDARD.encode([0u8; 47]),
            &STANDARD.encode([1u8; 65]),
        ] {
            assert!(decrypt("k", bad).is_err(), "{bad}");
        }
        assert_eq!(
            decrypt("k", &STANDARD.encode([0u8; 64])),
            Err(Refused::BadKey)
        );
    }
}
