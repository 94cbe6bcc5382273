//! The reloader: a thread that checks the store for a newer configuration every
//! `checkInterval` and puts it in force (`oidc::keygen::reload`: the signing keys a relying
//! party needs completed first, then `App::reload_if_newer`), until the stop flag is set. It
//! does not decide what a configuration may hold; the loader does.
use crate::app::App;
use crate::log;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Checks for a newer configuration every `checkInterval` until `stop` is set.
pub fn spawn(app: &Arc<App>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    let app = app.clone();
    std::thread::spawn(move || {
        let tick = std::time::Duration::from_millis(50);
        let mut waited = std::time::Duration::ZERO;
        // A newer configuration refused (or a store that fails) stays so for many rounds:
        // its lines are said once, then again when they change.
        let mut fold = log::Fold::default();
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(tick);
            waited += tick;
            if waited >= app.local.check_interval {
                waited = std::time::Duration::ZERO;
                let (res, mut lines) = log::collect(|| crate::oidc::keygen::reload(&app));
                if let Err(e) = res {
                    lines.push(log::Line::warn(&format!("configuration check failed: {e}")));
                }
                fold.round(lines);
                crate::app::count_reload_round();
            }
        }
    })
}
