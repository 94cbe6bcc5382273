//! TOTP codes (RFC 6238 over HOTP, RFC 4226, with HMAC-SHA-1 as LemonLDAP::NG's
//! `Common/TOTP.pm` computes them) and the base32 text of secrets (RFC 4648, as
//! `Convert::Base32` writes it: lower case, no padding). Pure functions: the time is given.
use hmac::{Hmac, Mac};
use sha1::Sha1;

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// The HOTP value of `key` at `counter` with `digits` digits (RFC 4226 5.3), zero-padded.
pub fn hotp(key: &[u8], counter: u64, digits: u32) -> String {
    let Ok(mut mac) = Hmac::<Sha1>::new_from_slice(key) else {
        // HMAC takes keys of any length: this cannot fail.
        return String::new();
    };
    mac.update(&counter.to_be_bytes());
    let h = mac.finalize().into_bytes();
    // RFC 4226 5.3 dynamic truncation: the low nibble of the last byte picks 4 bytes.
    let off = usize::from(h[19] & 0x0f);
    let bin = u32::from_be_bytes([h[off] & 0x7f, h[off + 1], h[off + 2], h[off + 3]]);
    let modulus = 10u64.pow(digits.min(10));
    format!(
        "{:0width$}",
        u64::from(bin) % modulus,
        width = digits as usize
    )
}

/// The time step of `epoch` for an `interval` (RFC 6238 4.2: T = floor((now - T0) / X)).
pub fn step(epoch: i64, interval: i64) -> i64 {
    epoch.div_euclid(interval.max(1))
}

/// The TOTP code of `key` at time step `t`.
pub fn at_step(key: &[u8], t: i64, digits: u32) -> String {
    hotp(key, u64::try_from(t).unwrap_or(0), digits)
}

/// The time step within `range` steps of `now` whose code is `code` (compared in constant
/// time), the nearest first as LemonLDAP::NG tries them (`-range .. range`).
pub fn matching_step(
    key: &[u8],
    code: &str,
    now: i64,
    interval: i64,
    range: i64,
    digits: u32,
) -> Option<i64> {
    let t = step(now, interval);
    let mut found = None;
    for r in -range..=range {
        let candidate = at_step(key, t - r, digits);
        if crate::util::ct_eq(candidate.as_bytes(), code.as_bytes()) && found.is_none() {
            found = Some(t - r);
        }
    }
    found
}

/// Base32 text of bytes, lower case without padding (`Convert::Base32::encode_base32`).
pub fn base32_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    let (mut buf, mut bits) = (0u32, 0u32);
    for b in bytes {
        buf = (buf << 8) | u32::from(*b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buf >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buf << (5 - bits)) & 31) as usize]));
    }
    out
}

/// Bytes of base32 text, either case; spaces and `=` padding are ignored. `None`: another
/// character.
pub fn base32_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut buf, mut bits) = (0u32, 0u32);
    for c in text.chars().filter(|c| !c.is_whitespace() && *c != '=') {
        let c = c.to_ascii_lowercase() as u8;
        let v = ALPHABET.iter().position(|a| *a == c)? as u32;
        buf = ((buf << 5) | v) & 0xffff;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push(((buf >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 Appendix B, the SHA-1 rows (8 digits, 30-second steps, the 20-byte key).
    #[test]
    fn rfc6238_vectors() {
        let key = b"12345678901234567890";
        for (time, code) in [
            (59, "94287082"),
            (1111111109, "07081804"),
            (1111111111, "14050471"),
            (1234567890, "89005924"),
            (2000000000, "69279037"),
            (20000000000, "65353130"),
        ] {
            assert_eq!(at_step(key, step(time, 30), 8), code, "at {time}");
        }
    }

    /// RFC 4226 Appendix D (6 digits).
    #[test]
    fn rfc4226_vectors() {
        let key = b"12345678901234567890";
        let want = ["755224", "287082", "359152", "969429", "338314"];
        for (i, code) in want.iter().enumerate() {
            assert_eq!(hotp(key, i as u64, 6), *code);
        }
    }

    #[test]
    fn the_window_and_its_edges() {
        let key = b"12345678901234567890";
        let now = 1111111111;
        let t = step(now, 30);
        let prev = at_step(key, t - 1, 6);
        assert_eq!(matching_step(key, &prev, now, 30, 1, 6), Some(t - 1));
        assert_eq!(matching_step(key, &prev, now, 30, 0, 6), None);
        let old = at_step(key, t - 2, 6);
        assert_eq!(matching_step(key, &old, now, 30, 1, 6), None);
        assert_eq!(matching_step(key, "", now, 30, 1, 6), None);
    }

    #[test]
    fn base32_round_trips_as_convert_base32() {
        assert_eq!(
            base32_encode(b"12345678901234567890"),
            "gezdgnbvgy3tqojqgezdgnbvgy3tqojq"
        );
        assert_eq!(
            base32_decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").unwrap(),
            b"12345678901234567890"
        );
        assert_eq!(base32_decode("mzxw6===").unwrap(), b"foo");
        assert_eq!(base32_encode(b"foo"), "mzxw6");
        assert!(base32_decode("abc1").is_none());
    }
}
