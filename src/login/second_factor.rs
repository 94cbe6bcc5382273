//! The second factor, the pipeline's fifth step: the engine (`crate::second_factor::step`)
//! says whether the login must prove a factor, choose one, or register one (`sfRequired`);
//! then the login stops here as a pending login (`crate::second_factor::pending`) and the
//! portal shows the page (`Step::Hold`). No SSO session is stored, no cookie set, before
//! the factor passed; the portal's `/<prefix>2fcheck` then resumes the login with
//! `crate::login::after_second_factor` (grant, holds, release).
use super::holds::Held;
use crate::app::App;
use crate::config::Conf;
use crate::error::{PortalCode, Result};
use crate::second_factor::step::{self, Ask, Why};
use crate::storage::Session;

/// What the second-factor step says of a login.
pub enum Step {
    /// Go on to the next step.
    Continue,
    /// Stop here: the login waits for the user, on the page of this hold.
    Hold(Held),
    /// Refused with this portal error.
    Refused(PortalCode),
}

/// Asks the engine about the session built, going to `url` afterwards.
pub fn check(app: &App, conf: &Conf, s: &Session, url: Option<&str>) -> Result<Step> {
    Ok(match step::ask(app, conf, s, url, Why::Login)? {
        Ask::Nothing => Step::Continue,
        Ask::Asked(asked) => Step::Hold(Held::SecondFactor(asked)),
        Ask::Refused(code) => Step::Refused(code),
    })
}
