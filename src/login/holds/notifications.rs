//! The notifications hold: after a granted login, the user's due notifications (own and
//! wildcard ones, `crate::notifications::portal::due_for`) keep it back as a pending record
//! until every box is checked; then the acceptance is stored (the persistent session, the
//! notifications marked done) and the login goes on to `release`. The form itself is the
//! notifications' page (`crate::notifications::form`), which the entry points render.
use super::Held;
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::notifications::model::Notification;
use crate::notifications::{accept, portal::due_for, portal::trace};
use crate::sso::pending::{self, Pending};
use crate::storage::{Kind, Session};
use serde_json::json;

/// A login held by notifications: the pending login and the notifications its form shows.
pub struct Due {
    /// The pending login (its id names the cookie and the form's token).
    pub pending: Pending,
    /// The notifications to accept.
    pub list: Vec<Notification>,
}

/// What the answer to the form gave.
pub enum Answer {
    /// Some boxes are not checked: the form again, with these ticks.
    Incomplete(Due, Vec<Vec<bool>>),
    /// Accepted already (a double submit): the first answer released the login.
    Twice,
    /// Every notification accepted: the login goes on to `release`.
    Accepted(Pending),
}

/// The hold: when notifications are due, stores the login as pending.
pub fn hold(app: &App, conf: &Conf, s: &Session, url: Option<&str>) -> Result<Option<Held>> {
    if !conf.area::<crate::notifications::Settings>().enabled {
        return Ok(None);
    }
    let list = due_for(app, conf, s)?;
    if list.is_empty() {
        return Ok(None);
    }
    let pending = pending::create(app, conf, s.clone(), url)?;
    Ok(Some(Held::Notifications(Due { pending, list })))
}

/// The hold of a login still pending, shown again (the page reloaded, its language switched):
/// what is due now, `None` when nothing is any more.
pub fn again(app: &App, conf: &Conf, p: Pending) -> Result<Option<Due>> {
    let list = due_for(app, conf, &p.session)?;
    Ok((!list.is_empty()).then_some(Due { pending: p, list }))
}

/// Checks the posted form against what is due now; stores the acceptance and ends the pending
/// login when complete.
pub fn answer(app: &App, conf: &Conf, p: Pending, form: &[(String, String)]) -> Result<Answer> {
    let list = due_for(app, conf, &p.session)?;
    if !accept::all_accepted(&list, form) {
        let ticks = accept::ticked(&list, form);
        return Ok(Answer::Incomplete(Due { pending: p, list }, ticks));
    }
    record_acceptance(app, conf, &p.session, &list)?;
    if !pending::finish(app, &p.id)? {
        return Ok(Answer::Twice);
    }
    Ok(Answer::Accepted(p))
}

/// Stores reference and acceptance epoch in the persistent session (only those), and marks
/// the user's own notifications done. Idempotent.
fn record_acceptance(app: &App, conf: &Conf, s: &Session, list: &[Notification]) -> Result<()> {
    let uid = trace(s);
    let (pid, mut ps) = crate::sso::persistent(app, &uid)?;
    let now = crate::util::now();
    for n in list {
        ps.insert(accept::accepted_key(&n.reference), json!(now));
    }
    app.sessions(Kind::Persistent)
        .put(Kind::Persistent, &pid, &ps)?;
    for n in list
        .iter()
        .filter(|n| n.uid != conf.area::<crate::notifications::Settings>().wildcard)
    {
        app.notifications.mark_done(&n.uid, &n.reference, now)?;
    }
    Ok(())
}
