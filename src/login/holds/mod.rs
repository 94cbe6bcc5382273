//! Holds, the pipeline's sixth step: what may keep a granted login back, before its SSO
//! session exists, until the user has answered a page (the notifications to accept today,
//! consent tomorrow). Each kind registers itself in `HOLDS`, asked in order; the first that
//! holds stops the login, which waits as a pending record (`crate::sso::pending`). The entry
//! point that answers the user encodes the `Held` value (its page or JSON); the answer to the
//! page comes back to the pipeline through the hold's own module.
pub mod notifications;

use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::storage::Session;

/// A login kept back, and what its page needs.
pub enum Held {
    /// Notifications to accept (`notifications`).
    Notifications(notifications::Due),
    /// The second factor to prove, or to register (`crate::second_factor::step`).
    SecondFactor(Box<crate::second_factor::step::Asked>),
}

/// One kind of hold: given the app, the configuration, the session built and the URL the
/// login goes to afterwards, it keeps the login back (`Some`) or lets it through.
type Hold = fn(&App, &Conf, &Session, Option<&str>) -> Result<Option<Held>>;

/// The holds, in the order they are asked.
const HOLDS: &[Hold] = &[notifications::hold];

/// The first hold that keeps the login back, if any.
pub fn first(app: &App, conf: &Conf, s: &Session, url: Option<&str>) -> Result<Option<Held>> {
    for hold in HOLDS {
        if let Some(held) = hold(app, conf, s, url)? {
            return Ok(Some(held));
        }
    }
    Ok(None)
}
