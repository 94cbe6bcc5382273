//! THE table of what Limette does with each LemonLDAP::NG configuration key: honoured, ignored
//! (harmless), or refused (ignoring it would change who gets in or what they get). `config
//! check`, the start-up gate and the generated document "Using an existing LemonLDAP::NG
//! configuration" all read this one table, so they cannot drift. Relying-party options have
//! their own table of the same shape in `oidc::options`.

/// What Limette does with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Read and honoured as LemonLDAP::NG documents it (values it cannot honour are refused by
    /// the code that reads the key).
    Implemented,
    /// Not read. Harmless to ignore (cosmetic, or for a page Limette does not have): `config
    /// check` warns when the value differs from LemonLDAP::NG's default.
    Ignored,
    /// Not implemented, and ignoring it would widen access or change what users get: a value
    /// other than LemonLDAP::NG's default refuses start-up (for a relying-party option: the
    /// relying party is disabled).
    Refused,
}

/// One key of the table.
#[derive(Debug, Clone, Copy)]
pub struct KeyInfo {
    /// LemonLDAP::NG's key name.
    pub key: &'static str,
    /// What Limette does with it.
    pub support: Support,
    /// A short note for the generated document (what is supported, why refused).
    pub note: &'static str,
}
