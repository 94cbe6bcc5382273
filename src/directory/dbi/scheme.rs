//! How the password column is read and written, as LemonLDAP::NG's `Lib/DBI.pm` decides:
//! the static mode (`dbiAuthPasswordHash`: clear text, or the hexadecimal value of an SQL
//! digest function, or `encrypt` against a crypt string) and the dynamic mode
//! (`dbiDynamicHashEnabled`: the scheme is read from the stored value, `{sha256}...`,
//! `{ssha512}...`, `$6$...`, and must be one of `dbiDynamicHashValidSchemes` or
//! `dbiDynamicHashValidSaltedSchemes`; new passwords use `dbiDynamicHashNewPasswordScheme`).
//!
//! Two rules are Limette's own, both stricter: a value starting with `!` is a locked account
//! (`users lock`) and never matches; a value shaped like a hash Limette cannot check (`{...}`
//! of a scheme not configured, `$2y$...`) never matches as clear text either, where
//! LemonLDAP::NG would compare it with the typed password as text.
use super::crypt;
use super::digest::{self, Algo};

/// `dbiAuthPasswordHash`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaticHash {
    /// Empty: clear text.
    Clear,
    /// `MD5`, `SHA`, `SHA1`, `SHA256`...: the digest's hexadecimal text.
    Hex(Algo),
    /// `ENCRYPT`: `crypt(password, stored)` (`$1$`, `$5$`, `$6$`; new passwords `$6$`).
    Encrypt,
}

/// A scheme of `dbiDynamicHashValidSaltedSchemes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Salted {
    /// `s` + a digest name (`ssha256`): base64(digest(password || salt) || salt).
    Digest(Algo),
    /// `unixcrypt1`, `unixcrypt5`, `unixcrypt6`: crypt strings.
    Crypt(u8),
    /// `argon2id` (Limette only).
    Argon2id,
}

/// `dbiDynamicHashNewPasswordScheme`, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewScheme {
    /// Empty: clear text (LemonLDAP::NG's behaviour; `config check` warns).
    Clear,
    /// An unsalted scheme of the valid list, by its name.
    Plain(String, Algo),
    /// A salted scheme of the valid salted list, by its name.
    Salted(String, Salted),
}

/// Everything about hashes a configuration says.
#[derive(Debug, Clone)]
pub struct Hashing {
    /// `dbiDynamicHashEnabled` = 1.
    pub dynamic: bool,
    /// `dbiAuthPasswordHash` (the static mode).
    pub static_hash: StaticHash,
    /// `dbiDynamicHashValidSchemes`, by name.
    pub valid: Vec<(String, Algo)>,
    /// `dbiDynamicHashValidSaltedSchemes`, by name.
    pub salted: Vec<(String, Salted)>,
    /// `dbiDynamicHashNewPasswordScheme`.
    pub new: NewScheme,
}

/// The accepted names, for messages.
pub const STATIC_NAMES: &str = "(empty), MD5, SHA, SHA1, SHA224, SHA256, SHA384, SHA512, ENCRYPT";

impl Hashing {
    /// Reads the five keys; a value Limette cannot honour is refused, naming the key.
    pub fn parse(
        dynamic: bool,
        static_hash: &str,
        valid: &str,
        salted: &str,
        new: &str,
    ) -> Result<Hashing, String> {
        let static_hash = match static_hash.trim() {
            "" => StaticHash::Clear,
            s if s.eq_ignore_ascii_case("encrypt") => StaticHash::Encrypt,
            s => StaticHash::Hex(Algo::from_name(s).ok_or_else(|| {
                format!("dbiAuthPasswordHash = {s} is not supported (supported: {STATIC_NAMES})")
            })?),
        };
        let valid = valid
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(|s| match Algo::from_name(s) {
                Some(a) => Ok((s.to_string(), a)),
                None => Err(format!(
                    "dbiDynamicHashValidSchemes = {s} is not supported (supported: {})",
                    digest::NAMES.join(", ")
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let salted = salted
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(|s| salted_scheme(s).map(|k| (s.to_string(), k)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut h = Hashing {
            dynamic,
            static_hash,
            valid,
            salted,
            new: NewScheme::Clear,
        };
        h.new = h.new_scheme(new.trim())?;
        Ok(h)
    }

    /// The new-password scheme: one the lists hold (LemonLDAP::NG's rule), a `unixcryptN`
    /// only when the salted list holds it too (else nobody could check what is written), or
    /// `argon2id`.
    fn new_scheme(&self, name: &str) -> Result<NewScheme, String> {
        if name.is_empty() {
            return Ok(NewScheme::Clear);
        }
        if name == "argon2id" {
            return Ok(NewScheme::Salted(name.into(), Salted::Argon2id));
        }
        if let Some((n, k)) = self.salted.iter().find(|(n, _)| n == name) {
            return Ok(NewScheme::Salted(n.clone(), k.clone()));
        }
        if let Some((n, a)) = self.valid.iter().find(|(n, _)| n == name) {
            return Ok(NewScheme::Plain(n.clone(), *a));
        }
        Err(format!(
            "dbiDynamicHashNewPasswordScheme = {name} is not supported (supported: a scheme of \
             dbiDynamicHashValidSchemes or dbiDynamicHashValidSaltedSchemes, or argon2id)"
        ))
    }

    /// Whether `password` is right for the stored value, as LemonLDAP::NG's `check_password`
    /// decides (with Limette's two stricter rules above).
    pub fn verify(&self, stored: &str, password: &str) -> bool {
        if stored.starts_with('!') {
            return false;
        }
        if !self.dynamic {
            return match &self.static_hash {
                StaticHash::Clear => clear(stored, password),
                StaticHash::Hex(a) => {
                    let h = digest::hex(*a, password);
                    crate::util::ct_eq(stored.to_ascii_lowercase().as_bytes(), h.as_bytes())
                }
                StaticHash::Encrypt => crypt::check(password, stored),
            };
        }
        if let Some((scheme, encoded)) = braced(stored) {
            if let Some((_, k)) = self.salted.iter().find(|(n, _)| n == scheme) {
                return match k {
                    Salted::Digest(a) => digest::check_salted(*a, encoded, password),
                    _ => false,
                };
            }
            return match self.valid.iter().find(|(n, _)| n == scheme) {
                Some((_, a)) => digest::check_plain(*a, encoded, password),
                None => false,
            };
        }
        if let Some(n) = crypt::family(stored) {
            let name = format!("unixcrypt{n}");
            return self.salted.iter().any(|(s, _)| *s == name) && crypt::check(password, stored);
        }
        if crypt::is_argon2(stored) {
            return self.argon2_allowed() && crypt::argon2_check(password, stored);
        }
        clear(stored, password)
    }

    /// argon2id hashes are checked when it is the new-password scheme or a valid salted one.
    fn argon2_allowed(&self) -> bool {
        self.new == NewScheme::Salted("argon2id".into(), Salted::Argon2id)
            || self.salted.iter().any(|(_, k)| *k == Salted::Argon2id)
    }

    /// The value to store for a new password (`users add`, `users passwd`, the portal's
    /// password change): the dynamic mode's new-password scheme, else the static one.
    pub fn hash_new(&self, password: &str) -> Option<String> {
        if !self.dynamic {
            return match &self.static_hash {
                StaticHash::Clear => Some(password.to_string()),
                StaticHash::Hex(a) => Some(digest::hex(*a, password)),
                StaticHash::Encrypt => crypt::new_hash(6, password),
            };
        }
        match &self.new {
            NewScheme::Clear => Some(password.to_string()),
            NewScheme::Plain(name, a) => Some(digest::plain(name, *a, password)),
            NewScheme::Salted(name, Salted::Digest(a)) => {
                let salt = crate::util::random_bytes(digest::SALT_LEN);
                Some(digest::salted(name, *a, password, &salt))
            }
            NewScheme::Salted(_, Salted::Crypt(n)) => crypt::new_hash(*n, password),
            NewScheme::Salted(_, Salted::Argon2id) => crypt::argon2_hash(password),
        }
    }

    /// Costs what checking a password of a real user costs (a new hash of it, thrown away):
    /// run for unknown users and unusable values, so that timing tells nothing.
    pub fn dummy(&self, password: &str) {
        let h = self.hash_new(password);
        std::hint::black_box(h);
    }

    /// Whether a given hash is a value this configuration can check (`users add --hash`,
    /// imports); the error says why not.
    pub fn accepts(&self, stored: &str) -> Result<(), String> {
        let probe = "\u{0}probe";
        let checkable = match (self.dynamic, &self.static_hash) {
            (false, StaticHash::Clear) => {
                return Err("passwords are stored in clear text (dbiAuthPasswordHash is empty and dbiDynamicHashEnabled is off): give the password, not a hash".into())
            }
            (false, StaticHash::Hex(a)) => {
                stored.len() == a.size() * 2 && stored.bytes().all(|b| b.is_ascii_hexdigit())
            }
            (false, StaticHash::Encrypt) => crypt::crypt(probe, stored).is_some(),
            (true, _) => self.dynamic_form(stored),
        };
        if checkable {
            Ok(())
        } else {
            Err(format!(
                "the hash scheme {} is not one this configuration checks",
                describe(stored)
            ))
        }
    }

    fn dynamic_form(&self, stored: &str) -> bool {
        if let Some((scheme, encoded)) = braced(stored) {
            if let Some((_, k)) = self.salted.iter().find(|(n, _)| n == scheme) {
                return matches!(k, Salted::Digest(a) if digest::fits(*a, encoded, true));
            }
            return self
                .valid
                .iter()
                .any(|(n, a)| n == scheme && digest::fits(*a, encoded, false));
        }
        if let Some(n) = crypt::family(stored) {
            let name = format!("unixcrypt{n}");
            return self.salted.iter().any(|(s, _)| *s == name)
                && crypt::crypt("x", stored).is_some();
        }
        crypt::is_argon2(stored) && self.argon2_allowed()
    }
}

/// A salted scheme's meaning: `s` + a digest, `unixcryptN`, `argon2id`.
fn salted_scheme(name: &str) -> Result<Salted, String> {
    if name == "argon2id" {
        return Ok(Salted::Argon2id);
    }
    if let Some(n) = name.strip_prefix("unixcrypt") {
        if let Some(f) = crypt::FAMILIES.iter().find(|f| f.to_string() == n) {
            return Ok(Salted::Crypt(*f));
        }
    }
    // LemonLDAP::NG drops the leading s (either case) to name the SQL function.
    let method = name.strip_prefix(['s', 'S']).unwrap_or("");
    Algo::from_name(method).map(Salted::Digest).ok_or_else(|| {
        format!(
            "dbiDynamicHashValidSaltedSchemes = {name} is not supported (supported: s + one of \
             {}, unixcrypt1, unixcrypt5, unixcrypt6, argon2id)",
            digest::NAMES.join(", ")
        )
    })
}

/// `{scheme}rest` split as LemonLDAP::NG's `^\{([^}]+)\}(.*)$` reads it.
fn braced(stored: &str) -> Option<(&str, &str)> {
    let rest = stored.strip_prefix('{')?;
    let (scheme, encoded) = rest.split_once('}')?;
    (!scheme.is_empty()).then_some((scheme, encoded))
}

/// A clear-text comparison, refused for values shaped like hashes.
fn clear(stored: &str, password: &str) -> bool {
    !looks_hashed(stored) && crate::util::ct_eq(stored.as_bytes(), password.as_bytes())
}

/// `{scheme}...` or `$id$...`: a hash, whether or not Limette can check it.
fn looks_hashed(stored: &str) -> bool {
    braced(stored).is_some()
        || stored
            .strip_prefix('$')
            .is_some_and(|r| r.len() > 2 && r.contains('$'))
}

/// The scheme of a stored value, never the value: `{ssha512}`, `$6$`, `$argon2id$`, `clear`,
/// `hex`, `none` (empty or NULL); a locked value is described by what follows the `!`.
pub fn describe(stored: &str) -> String {
    let v = stored.strip_prefix('!').unwrap_or(stored);
    if let Some((scheme, _)) = braced(v) {
        return format!("{{{scheme}}}");
    }
    if let Some(id) = v.strip_prefix('$').and_then(|r| r.split('$').next()) {
        return format!("${id}$");
    }
    if v.is_empty() {
        return "none".into();
    }
    let hex = v.bytes().all(|b| b.is_ascii_hexdigit());
    if hex && [32, 40, 56, 64, 96, 128].contains(&v.len()) {
        return "hex".into();
    }
    "clear".into()
}
