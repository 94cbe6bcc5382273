//! The factors Limette has (`FACTORS`), apart from the trait they implement (`factor`), so that
//! the factors' modules, which implement it, and the engine, which asks the list, import each
//! in one direction only.
use super::factor::Factor;

/// The factors Limette has, in LemonLDAP::NG's `available2F` order of those it implements.
/// A new factor adds itself here (and its pages to `crate::portal::second_factor::PAGES`);
/// its `<prefix>2fActivation` key must then leave the refused keys of `config::support`.
pub static FACTORS: &[&dyn Factor] = &[&super::totp::Totp, &super::webauthn::WebAuthn];

/// The factor of that prefix.
pub fn by_prefix(prefix: &str) -> Option<&'static dyn Factor> {
    FACTORS.iter().copied().find(|f| f.prefix() == prefix)
}
