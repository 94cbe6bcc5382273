//! The JWS algorithms (RFC 7518 3.1, RFC 8037 3.1) and the key families that sign with them:
//! the two names `jwt` and the keyring (`keys`) share, here so that both import them from one
//! place and neither imports the other's. Plain enums; no keys, no signing.

/// JWS algorithms (RFC 7518 3.1; EdDSA: RFC 8037 3.1). The serialized form is the `alg` value.
/// The default is HS256, the demo relying party's (not LemonLDAP::NG's default, HS512, which
/// `settings` applies to an unset option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Alg {
    /// `none` (RFC 7518 3.6): no signature, only where LemonLDAP::NG allows it.
    None,
    /// HMAC with SHA-256, keyed by the client secret (RFC 7518 3.2).
    #[default]
    HS256,
    /// HMAC with SHA-384.
    HS384,
    /// HMAC with SHA-512: LemonLDAP::NG 2.16's default for ID tokens.
    HS512,
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 3.3): OpenID's mandatory algorithm.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// ECDSA on P-256 with SHA-256 (RFC 7518 3.4).
    ES256,
    /// Ed25519 (RFC 8037 3.1).
    EdDSA,
}

impl Alg {
    /// Every algorithm, `none` first.
    pub const ALL: [Alg; 9] = [
        Alg::None,
        Alg::HS256,
        Alg::HS384,
        Alg::HS512,
        Alg::RS256,
        Alg::RS384,
        Alg::RS512,
        Alg::ES256,
        Alg::EdDSA,
    ];

    /// The `alg` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Alg::None => "none",
            Alg::HS256 => "HS256",
            Alg::HS384 => "HS384",
            Alg::HS512 => "HS512",
            Alg::RS256 => "RS256",
            Alg::RS384 => "RS384",
            Alg::RS512 => "RS512",
            Alg::ES256 => "ES256",
            Alg::EdDSA => "EdDSA",
        }
    }

    /// The algorithm an `alg` value names (exact spelling).
    pub fn parse(s: &str) -> Option<Alg> {
        Alg::ALL.into_iter().find(|a| a.as_str() == s)
    }

    /// The key family that signs with this algorithm; `None` for HMAC and `none`.
    pub fn key_kind(self) -> Option<KeyKind> {
        match self {
            Alg::RS256 | Alg::RS384 | Alg::RS512 => Some(KeyKind::Rsa),
            Alg::ES256 => Some(KeyKind::Ec),
            Alg::EdDSA => Some(KeyKind::Ed),
            Alg::None | Alg::HS256 | Alg::HS384 | Alg::HS512 => None,
        }
    }
}

/// A family of asymmetric keys: one key of each may sign at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// RSA (RS256, RS384, RS512): LemonLDAP::NG's keys.
    Rsa,
    /// ECDSA on P-256 (ES256), a Limette extension.
    Ec,
    /// Ed25519 (EdDSA), a Limette extension.
    Ed,
}

impl KeyKind {
    /// Every family, in the order the JWKS lists them.
    pub const ALL: [KeyKind; 3] = [KeyKind::Rsa, KeyKind::Ec, KeyKind::Ed];

    /// The configuration keys of its private key, public key and key id.
    pub fn conf_keys(self) -> [&'static str; 3] {
        match self {
            KeyKind::Rsa => [
                "oidcServicePrivateKeySig",
                "oidcServicePublicKeySig",
                "oidcServiceKeyIdSig",
            ],
            KeyKind::Ec => [
                "oidcServiceEcPrivateKeySig",
                "oidcServiceEcPublicKeySig",
                "oidcServiceEcKeyIdSig",
            ],
            KeyKind::Ed => [
                "oidcServiceEdPrivateKeySig",
                "oidcServiceEdPublicKeySig",
                "oidcServiceEdKeyIdSig",
            ],
        }
    }

    /// The algorithm its JWK announces (RSA: OpenID's mandatory RS256; the same key also
    /// signs RS384 and RS512 for the relying parties that ask for them).
    pub fn jwk_alg(self) -> Alg {
        match self {
            KeyKind::Rsa => Alg::RS256,
            KeyKind::Ec => Alg::ES256,
            KeyKind::Ed => Alg::EdDSA,
        }
    }

    /// A short name for logs.
    pub fn name(self) -> &'static str {
        match self {
            KeyKind::Rsa => "RSA",
            KeyKind::Ec => "EC P-256",
            KeyKind::Ed => "Ed25519",
        }
    }
}
