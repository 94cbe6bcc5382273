//! Unix crypt strings (`$1$` MD5, `$5$` SHA-256, `$6$` SHA-512, as glibc's `crypt(3)` makes
//! them and LemonLDAP::NG's `unixcrypth` database function returns them) and argon2id PHC
//! strings (`$argon2id$v=19$m=...`, Limette's own new-password scheme beyond 2.16). A stored
//! value whose cost is out of bounds (a `rounds=` or an argon2 memory a login must not pay)
//! never matches: the login fails rather than one request taking minutes.
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use md5::{Digest, Md5};

/// The `$N$` families of crypt strings.
pub const FAMILIES: [u8; 3] = [1, 5, 6];
/// The most `rounds=` a stored SHA crypt may ask (glibc's default is 5,000).
pub const MAX_ROUNDS: usize = 1_000_000;
/// The most memory (KiB) a stored argon2 hash may ask.
pub const MAX_ARGON2_KIB: u32 = 256 * 1024;
/// The most passes a stored argon2 hash may ask.
pub const MAX_ARGON2_PASSES: u32 = 16;

const ITOA64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The family of a crypt string (`$1$`, `$5$`, `$6$`), if it is one.
pub fn family(stored: &str) -> Option<u8> {
    let b = stored.as_bytes();
    (b.len() > 3 && b[0] == b'$' && b[2] == b'$')
        .then(|| b[1].wrapping_sub(b'0'))
        .filter(|n| FAMILIES.contains(n))
}

/// `crypt(password, setting)` for a `$1$`, `$5$` or `$6$` setting (a whole stored string
/// works: only its salt and rounds are read); `None` for another or a malformed one.
pub fn crypt(password: &str, setting: &str) -> Option<String> {
    let n = family(setting)?;
    let rest = setting.get(3..)?;
    let (rounds, rest) = match rest.strip_prefix("rounds=") {
        Some(r) if n != 1 => {
            let (num, after) = r.split_once('$')?;
            (Some(num.parse::<usize>().ok()?), after)
        }
        _ => (None, rest),
    };
    let salt: String = rest
        .split('$')
        .next()?
        .chars()
        .take(if n == 1 { 8 } else { 16 })
        .collect();
    let prefix = match rounds {
        Some(r) => format!("${n}$rounds={}$", r.clamp(1000, 999_999_999)),
        None => format!("${n}$"),
    };
    let hash = match n {
        1 => md5_crypt(password.as_bytes(), salt.as_bytes()),
        _ => sha_crypt(n, password.as_bytes(), salt.as_bytes(), rounds)?,
    };
    Some(format!("{prefix}{salt}${hash}"))
}

/// Whether `stored` is the crypt string of `password`.
pub fn check(password: &str, stored: &str) -> bool {
    crypt(password, stored).is_some_and(|c| crate::util::ct_eq(c.as_bytes(), stored.as_bytes()))
}

/// A new crypt string of family `n` with LemonLDAP::NG's 16-character salt (`gen_salt_text`:
/// base64url of 16 random bytes, `-` and `_` read as `.` and `/`).
pub fn new_hash(n: u8, password: &str) -> Option<String> {
    crypt(password, &format!("${n}${}$", salt_text()))
}

/// LemonLDAP::NG's `gen_salt_text`: 16 characters of the crypt alphabet.
pub fn salt_text() -> String {
    crate::util::random_bytes(16)
        .iter()
        .map(|b| ITOA64[(b & 63) as usize] as char)
        .collect()
}

fn sha_crypt(n: u8, password: &[u8], salt: &[u8], rounds: Option<usize>) -> Option<String> {
    let rounds = rounds.unwrap_or(5000).clamp(1000, 999_999_999);
    if rounds > MAX_ROUNDS {
        return None;
    }
    if n == 5 {
        let p = sha_crypt::Sha256Params::new(rounds).ok()?;
        sha_crypt::sha256_crypt_b64(password, salt, &p).ok()
    } else {
        let p = sha_crypt::Sha512Params::new(rounds).ok()?;
        sha_crypt::sha512_crypt_b64(password, salt, &p).ok()
    }
}

/// Poul-Henning Kamp's MD5 crypt, as glibc computes `$1$`.
fn md5_crypt(pw: &[u8], salt: &[u8]) -> String {
    let alt = Md5::new()
        .chain_update(pw)
        .chain_update(salt)
        .chain_update(pw)
        .finalize();
    let mut ctx = Md5::new()
        .chain_update(pw)
        .chain_update(b"$1$")
        .chain_update(salt);
    let mut left = pw.len();
    while left > 0 {
        ctx.update(&alt[..left.min(16)]);
        left = left.saturating_sub(16);
    }
    let mut i = pw.len();
    while i > 0 {
        ctx.update(if i & 1 == 1 { &[0u8][..] } else { &pw[..1] });
        i >>= 1;
    }
    let mut fin = ctx.finalize();
    for r in 0..1000 {
        let mut c = Md5::new();
        c.update(if r & 1 == 1 { pw } else { &fin[..] });
        if r % 3 != 0 {
            c.update(salt);
        }
        if r % 7 != 0 {
            c.update(pw);
        }
        c.update(if r & 1 == 1 { &fin[..] } else { pw });
        fin = c.finalize();
    }
    let mut out = String::with_capacity(22);
    for (a, b, c) in [(0, 6, 12), (1, 7, 13), (2, 8, 14), (3, 9, 15), (4, 10, 5)] {
        let v = (u32::from(fin[a]) << 16) | (u32::from(fin[b]) << 8) | u32::from(fin[c]);
        to64(&mut out, v, 4);
    }
    to64(&mut out, u32::from(fin[11]), 2);
    out
}

fn to64(out: &mut String, mut v: u32, n: usize) {
    for _ in 0..n {
        out.push(ITOA64[(v & 63) as usize] as char);
        v >>= 6;
    }
}

/// Whether `stored` is an argon2 PHC string.
pub fn is_argon2(stored: &str) -> bool {
    stored.starts_with("$argon2")
}

/// A new argon2id PHC string (the crate's defaults: 19 MiB, 2 passes, 1 lane; a 16-byte salt).
pub fn argon2_hash(password: &str) -> Option<String> {
    let salt = SaltString::encode_b64(&crate::util::random_bytes(16)).ok()?;
    argon2::Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .ok()
        .map(|h| h.to_string())
}

/// Whether `stored` is the argon2 hash of `password`, within the cost bounds.
pub fn argon2_check(password: &str, stored: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else {
        return false;
    };
    let Ok(params) = argon2::Params::try_from(&parsed) else {
        return false;
    };
    if params.m_cost() > MAX_ARGON2_KIB
        || params.t_cost() > MAX_ARGON2_PASSES
        || params.p_cost() > 16
    {
        return false;
    }
    argon2::Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glibc_values() {
        // Made by glibc's crypt(3) (perl -e 'print crypt("pw", q{$6$abc$})').
        assert_eq!(
            crypt("pw", "$6$abc$").as_deref(),
            Some("$6$abc$MtSdWSZbhct2oe.SOqOUM2M/GA/uj5.vyVtJgRHgKi9uqXuWuJqOYE7H/YlsYGVg/YYzDV0xt3fEIwYt580.5.")
        );
        assert_eq!(family("$5$x$y"), Some(5));
        assert_eq!(family("$2y$10$x"), None);
        assert_eq!(family("{ssha}x"), None);
        let h = new_hash(1, "secret").unwrap();
        assert!(check("secret", &h) && !check("Secret", &h), "{h}");
        assert!(!check("pw", "$6$rounds=99999999$abc$x"));
    }

    #[test]
    fn argon2id() {
        let h = argon2_hash("secret").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(argon2_check("secret", &h));
        assert!(!argon2_check("secret2", &h));
        assert!(!argon2_check(
            "secret",
            "$argon2id$v=19$m=9999999,t=2,p=1$c2FsdHNhbHQ$aGFzaA"
        ));
    }
}
