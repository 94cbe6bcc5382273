//! Second factors, LemonLDAP::NG 2.16's way: the engine (`step`), the devices of the
//! persistent session (`devices`), the pending login between the two factors (`pending`), the
//! settings (`settings`), and the factors themselves (`totp`, `webauthn`; `FACTORS` lists them). Domain
//! code: plain values in and out, no HTTP; the pages and paths are the portal's
//! (`crate::portal::second_factor`).
//!
//! # The contract a factor implements
//! A factor is a value implementing [`Factor`] listed in [`FACTORS`], with:
//! - `prefix()` (`"totp"`): its keys are `<prefix>2fActivation`, `<prefix>2fSelfRegistration`,
//!   `<prefix>2fAuthnLevel`, `<prefix>2fLabel`, `<prefix>2fLogo`, `<prefix>2fUserCanRemoveKey`,
//!   `<prefix>2fTTL`, which [`Settings`] parses for every listed factor ([`settings::Module`]);
//!   its paths are `/<prefix>2fcheck` and `/2fregisters/<prefix>[/<action>]`;
//! - `kind()` (`"TOTP"`): the `type` of its devices in `_2fDevices` ([`devices::Device`]: a
//!   JSON object kept whole, `type`, `name`, `epoch` plus the factor's own fields; written
//!   with [`devices::add`], [`devices::remove`], [`devices::update`]);
//! - `amr()`: the RFC 8176 values an ID token carries once it passed (`mfa` and `pwd` are the
//!   engine's: [`step::amr`]);
//! - `usable()`: a device of its type whose fields parse (a device that does not is no
//!   device: never a panic, never a bypass);
//! - `challenge()`: data its check page needs, kept in the pending login's `state` map under
//!   its prefix when it must be remembered (a WebAuthn challenge); also returned to JSON
//!   clients;
//! - `verify()`: right or wrong for the posted fields; the engine has taken the pending
//!   login (single use), refused a locked user, and counts a wrong answer in the
//!   brute-force lock itself.
//!
//! Its pages implement `crate::portal::second_factor::FactorPages` (the check form inside the
//! portal's frame, and the registration page and actions) and are listed in that module's
//! `PAGES`. Registration stores a device with [`devices::add`] (at most `max2FDevices`); a
//! registration under `sfRequired` then calls [`step::passed`] and the portal releases the
//! login. The pending login's `token` is the form field the check posts back (JSON clients
//! get it as `"token"`).
pub mod devices;
pub mod expiry;
pub mod factor;
pub mod list;
pub mod pending;
pub mod settings;
pub mod step;
pub mod totp;
pub mod webauthn;

pub use factor::Factor;
pub use list::{by_prefix, FACTORS};
pub use settings::Settings;

/// The audit line of a removed device (`by`: `user`, `admin:<name>`, `cli`).
pub fn audit_removal(trace: &str, d: &devices::Device, by: &str) {
    let user: String = trace.chars().filter(|c| !c.is_control()).take(64).collect();
    let name: String = d
        .name()
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect();
    let epoch = d.epoch().to_string();
    crate::log::audit(
        "second_factor_removed",
        &[
            ("user", user.as_str()),
            ("type", d.kind()),
            ("name", name.as_str()),
            ("epoch", epoch.as_str()),
            ("by", by),
        ],
    );
}

/// Whether the user of these session attributes may register a factor (the menu then links
/// the second-factor manager, as LemonLDAP::NG's `display2fRegisters`).
pub fn offers_registration(conf: &crate::config::Conf, attrs: &crate::storage::Session) -> bool {
    let settings = conf.area::<Settings>();
    settings
        .modules
        .iter()
        .any(|m| m.self_registration.as_ref().is_some_and(|r| r.eval(attrs)))
}

/// Whether a session whose level is too low may raise it with a second factor (at least one
/// factor is enabled): the provider then sends the user to `/upgradesession`.
pub fn can_upgrade(conf: &crate::config::Conf) -> bool {
    conf.area::<Settings>().any()
}
