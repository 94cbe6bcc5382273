//! What the login's notifications hold (`crate::login::holds::notifications`) and the explorer
//! read: the notifications due for a session (own and wildcard ones, filtered by
//! `accept::due`), the frame of their pages, the session's `whatToTrace`. The answer to the
//! form (`/notifback`) is the portal's login entry point.
use super::accept;
use super::model::Notification;
use crate::app::App;
use crate::config::{value_string, Conf};
use crate::error::Result;
use crate::http::Request;
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

/// The notification of a stored record; an unreadable one is logged and skipped.
pub fn readable(r: &super::store::Record) -> Option<Notification> {
    match r.notification() {
        Ok(n) => Some(n),
        Err(e) => {
            crate::log::error(&format!(
                "notification {} of {} is unreadable: {e:?}",
                r.reference, r.uid
            ));
            None
        }
    }
}

/// The frame of this area's pages, skinned by `portalSkinRules` for the session's user.
pub fn frame<'a>(conf: &'a Conf, req: &Request, s: &Session) -> crate::web::Page<'a> {
    let rules = conf.area::<crate::sso::skin::SkinRules>();
    crate::web::Page::new(conf, req).with_skin(rules.choose(Some(s), &req.ip(), None))
}

/// The `whatToTrace` value of a session.
pub fn trace(s: &Session) -> String {
    s.get("_whatToTrace").map(value_string).unwrap_or_default()
}
