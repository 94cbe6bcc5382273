//! What the command line writes on stdout and stderr. `println!` panics when its stream is
//! gone (`limette sessions list | head -1` closes the pipe after one line); these write the
//! same text and tell the caller instead, so a listing stops there and the command ends with
//! its own exit code, quietly: whoever closed the pipe has read all they wanted.
use std::io::Write;

/// Writes `text` and a newline on stdout; false once stdout is closed (stop writing).
pub fn line(text: &str) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .is_ok()
}

/// Writes `text` as it is on stdout; false once stdout is closed.
pub fn text(text: &str) -> bool {
    std::io::stdout().lock().write_all(text.as_bytes()).is_ok()
}

/// Writes `text` and a newline on stderr in one write; a closed stderr is ignored.
pub fn err(text: &str) {
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{text}\n").as_bytes());
}
