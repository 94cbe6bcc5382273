//! Removal of expired sessions and stale internal records, on a timer in the server and on
//! demand from the CLI.
use crate::app::App;
use crate::error::{Error, Result};
use crate::log;
use crate::storage::{Kind, Session};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the server purges.
const PERIOD: Duration = Duration::from_secs(600);

/// Deletes expired SSO sessions and expired internal records (those with an `_exp` epoch in
/// the past); returns how many were removed.
pub fn purge(app: &App) -> Result<usize> {
    let conf = app.conf();
    let now = crate::util::now();
    let mut n = purge_kind(app, Kind::Global, |s| crate::sso::is_expired(&conf, s, now))?;
    for kind in [Kind::Oidc, Kind::Pending] {
        n += purge_kind(app, kind, |s| {
            let exp = s
                .get("_exp")
                .and_then(crate::config::as_i64)
                .unwrap_or(i64::MAX);
            exp < now
        })?;
    }
    Ok(n)
}

/// Deletes the records of one kind that `expired` selects (an SSO session through `sso::end`,
/// so its relying parties hear of it). A store that cannot list (a REST session store: the
/// remote server purges its own) is skipped.
fn purge_kind(app: &App, kind: Kind, expired: impl Fn(&Session) -> bool) -> Result<usize> {
    let store = app.sessions(kind);
    let ids = match store.ids(kind) {
        Ok(ids) => ids,
        Err(Error::Upstream(m)) => {
            log::debug(&format!("purge of {} skipped: {m}", kind.as_str()));
            return Ok(0);
        }
        Err(e) => return Err(e),
    };
    let mut n = 0;
    for id in ids {
        if let Some(s) = store.get(kind, &id)? {
            let removed = match kind {
                Kind::Global => expired(&s) && crate::sso::end(app, &id)?,
                _ => expired(&s) && store.delete(kind, &id)?,
            };
            if removed {
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Purges every `PERIOD` until `stop` is set. The period is counted on the portal's clock
/// (`util::now`), the one expiry is judged by, so a clock moved forward by the test hooks
/// brings the next purge forward too.
pub fn spawn(app: Arc<App>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let tick = Duration::from_millis(100);
        let period = PERIOD.as_secs() as i64;
        let mut next = crate::util::now() + period;
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(tick);
            if crate::util::now() >= next {
                match purge(&app) {
                    Ok(0) => {}
                    Ok(n) => log::info(&format!("purged {n} expired sessions")),
                    Err(e) => log::warn(&format!("session purge failed: {e}")),
                }
                next = crate::util::now() + period;
            }
        }
    })
}
