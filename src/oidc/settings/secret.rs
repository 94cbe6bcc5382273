//! A relying party's client secret as the settings hold it: compared in constant time, never
//! printed (its `Debug` is redacted). What a secret is checked against is `clients::client`'s.
use std::fmt;

/// A client secret: compared in constant time, never printed.
#[derive(Clone, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    /// The key bytes (HMAC key of the ID token).
    pub fn expose(&self) -> &[u8] {
        self.0.as_bytes()
    }
    /// Constant-time comparison with what a client sent.
    pub fn matches(&self, sent: &str) -> bool {
        !self.0.is_empty() && crate::util::ct_eq(self.0.as_bytes(), sent.as_bytes())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}
