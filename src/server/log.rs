//! Log lines on stderr: one access line per request and leveled messages. Never a secret or a
//! cookie value: callers log paths without query strings and never log bodies.
use std::sync::atomic::{AtomicU8, Ordering};

static LEVEL: AtomicU8 = AtomicU8::new(3);

/// Sets the level from LemonLDAP::NG's names (error, warn, notice, info, debug).
pub fn set_level(name: &str) -> bool {
    let l = match name {
        "error" => 1,
        "warn" => 2,
        "notice" => 3,
        "info" => 4,
        "debug" => 5,
        _ => return false,
    };
    LEVEL.store(l, Ordering::Relaxed);
    true
}

fn emit(level: u8, tag: &str, msg: &str) {
    if level <= LEVEL.load(Ordering::Relaxed) {
        write_line(format!(
            "{} [{tag}] {msg}\n",
            crate::util::timestamp14(crate::util::now())
        ));
    }
}

/// One line in one write: whole lines under load, and one system call instead of one per
/// formatted piece (stderr is unbuffered).
fn write_line(line: String) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// An error: something failed and an operator should look.
pub fn error(msg: &str) {
    emit(1, "error", msg);
}
/// A warning.
pub fn warn(msg: &str) {
    emit(2, "warn", msg);
}
/// A notable event (start, configuration change).
pub fn notice(msg: &str) {
    emit(3, "notice", msg);
}
/// Routine detail.
pub fn info(msg: &str) {
    emit(4, "info", msg);
}
/// Debug detail.
pub fn debug(msg: &str) {
    emit(5, "debug", msg);
}

/// The access line: time, method, path, status, duration in ms.
pub fn access(method: &str, path: &str, status: u16, ms: u128) {
    if LEVEL.load(Ordering::Relaxed) >= 3 {
        let path: String = path.chars().take(200).filter(|c| !c.is_control()).collect();
        write_line(format!(
            "{} {method} {path} {status} {ms}ms\n",
            crate::util::timestamp14(crate::util::now())
        ));
    }
}
