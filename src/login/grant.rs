//! Grant, the pipeline's fifth step: whether the built session may open at all. This is where
//! LemonLDAP::NG's `grantSessionRules` and `singleSession` will go; Limette implements neither
//! yet (the start-up gate refuses a configuration that sets them), so every session is granted.
use crate::config::Conf;
use crate::error::PortalCode;
use crate::storage::Session;

/// `None`: granted; `Some`: refused with this portal error and status.
pub fn check(_conf: &Conf, _s: &Session) -> Option<(PortalCode, u16)> {
    None
}
