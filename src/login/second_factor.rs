//! The second factor, the pipeline's third step: where a second factor (TOTP, WebAuthn, a
//! code by mail) will be asked for once the first one passed. None is configured yet, so every
//! login continues; a factor to ask answers `Step::Hold` with what its page shows, and the
//! pipeline stops there as it does for a hold.
use super::holds::Held;
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::storage::Session;

/// What the second-factor step says of a login.
pub enum Step {
    /// Go on to the next step.
    Continue,
    /// Stop here: the login waits for the user, on the page of this hold.
    #[allow(dead_code)] // No factor asks yet: the second-factor issues construct it.
    Hold(Held),
}

/// Today: no second factor is configured, every login continues.
pub fn check(_app: &App, _conf: &Conf, _s: &Session) -> Result<Step> {
    Ok(Step::Continue)
}
