//! What the login's notifications hold (`crate::login::holds::notifications`) and the explorer
//! read: the notifications due for a session (own and wildcard ones, filtered by
//! `accept::due`), the frame of their pages, the session's `whatToTrace`. The answer to the
//! form (`/notifback`) is the portal's login entry point.
use super::accept;
pub use super::form::frame;
use super::model::Notification;
pub use super::store::{readable, trace};
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::storage::Session;

/// The notifications due for a session: own and wildcard ones, filtered by `accept::due`.
pub fn due_for(app: &App, conf: &Conf, s: &Session) -> Result<Vec<Notification>> {
    let uid = trace(s);
    let records = app.notifications.pending_for(
        &uid,
        &conf.area::<crate::notifications::Settings>().wildcard,
        None,
    )?;
    let candidates = records.iter().filter_map(readable).collect();
    let (_, persistent) = crate::sso::persistent(app, &uid)?;
    Ok(accept::due(
        candidates,
        s,
        &persistent,
        &crate::util::date10(crate::util::now()),
    ))
}
