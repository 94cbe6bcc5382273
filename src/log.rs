//! Log lines on stderr: one access line per request and leveled messages. Never a secret or a
//! cookie value: callers log paths without query strings and never log bodies, and every line
//! passes [`redact`], which cuts anything shaped like a session id or token (a run of 32 or
//! more letters, digits, `-` or `_`, with a digit among them) to its first four characters:
//! `/sessions/global/<id>`, a file path in a storage error, an id in a message. Configuration
//! key names, however long, have no digit and stay whole. A caller may hold the lines of a
//! step back ([`collect`]) to fold a loop's repeated rounds ([`Fold`]) or drop what does not
//! concern it.
use std::cell::RefCell;
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

/// One leveled log line, as [`collect`] hands it back: its level and text (no timestamp).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1 error, 2 warn, 3 notice, 4 info, 5 debug.
    pub level: u8,
    tag: &'static str,
    /// The message, redacted.
    pub text: String,
}

impl Line {
    /// A warning to replay with others.
    pub fn warn(text: &str) -> Line {
        Line {
            level: 2,
            tag: "warn",
            text: redact(text),
        }
    }
}

thread_local! {
    /// The lines held by [`collect`] on this thread (None: lines are written at once).
    static HELD: RefCell<Option<Vec<Line>>> = const { RefCell::new(None) };
    /// Access lines a worker gathers under load ([`gather_access`]), with the time of the
    /// first one; `None` on other threads, whose access lines are written at once.
    static GATHERED: RefCell<Option<Gathered>> = const { RefCell::new(None) };
}

/// Access lines waiting for one write.
struct Gathered {
    text: Vec<u8>,
    since: Option<std::time::Instant>,
}

/// Gathered access lines are written at this size, or ...
const GATHER_BYTES: usize = 8 * 1024;
/// ... when the first of them is this old, whichever comes first.
const GATHER_AGE: std::time::Duration = std::time::Duration::from_millis(100);

/// From now on this thread gathers its access lines and writes them together: at
/// [`flush_access`], before any leveled line of its own, and when they fill 8 KiB or a line
/// is added 100 ms or more after the first. One write (and one turn of the stderr lock) per many
/// requests under load; a worker flushes whenever no request waits, so a quiet server still
/// writes each line before its answer leaves.
pub fn gather_access() {
    GATHERED.with(|g| {
        g.borrow_mut().get_or_insert(Gathered {
            text: Vec::new(),
            since: None,
        });
    });
}

/// Writes the access lines this thread gathered.
pub fn flush_access() {
    GATHERED.with(|g| {
        if let Some(g) = g.borrow_mut().as_mut().filter(|g| !g.text.is_empty()) {
            write_bytes(&g.text);
            // The buffer keeps its room: the next lines fill it again.
            g.text.clear();
            g.since = None;
        }
    });
}

/// Runs `f` with the leveled lines it logs on this thread held back and returned rather than
/// written, for the caller to decide: the reload loop says a line it said on its last round
/// once only, one-shot commands drop what concerns a running portal. Nested calls hold into
/// the innermost.
pub fn collect<T>(f: impl FnOnce() -> T) -> (T, Vec<Line>) {
    let outer = HELD.with(|h| h.borrow_mut().replace(Vec::new()));
    let out = f();
    let held = HELD.with(|h| std::mem::replace(&mut *h.borrow_mut(), outer));
    (out, held.unwrap_or_default())
}

/// Writes lines that [`collect`] held (or into the enclosing `collect`).
pub fn replay(lines: &[Line]) {
    for l in lines {
        emit_line(l.clone());
    }
}

/// Folds repeated rounds of a loop: the lines of a round are written when they differ from
/// those of the round before (a situation said once, then once more when it changes).
#[derive(Debug, Default)]
pub struct Fold {
    last: Vec<Line>,
}

impl Fold {
    /// Writes `lines` unless they are the last round's again; returns whether it wrote them.
    pub fn round(&mut self, lines: Vec<Line>) -> bool {
        if lines == self.last {
            return false;
        }
        replay(&lines);
        self.last = lines;
        true
    }
}

fn emit(level: u8, tag: &'static str, msg: &str) {
    if level <= LEVEL.load(Ordering::Relaxed) {
        emit_line(Line {
            level,
            tag,
            text: redact(msg),
        });
    }
}

fn emit_line(line: Line) {
    // This thread's access lines came first.
    flush_access();
    let held = HELD.with(|h| match h.borrow_mut().as_mut() {
        Some(v) => {
            v.push(line.clone());
            true
        }
        None => false,
    });
    if !held {
        let text = format!(
            "{} [{}] {}\n",
            crate::util::timestamp14(crate::util::now()),
            line.tag,
            line.text
        );
        write_bytes(text.as_bytes());
    }
}

/// Shortest run of id characters taken for a secret.
const SECRET_RUN: usize = 32;

/// `text` with every run of [`SECRET_RUN`] or more id characters (ASCII letters, digits, `-`,
/// `_`) holding a digit cut to its first four and `…`.
pub fn redact(text: &str) -> String {
    let is_id = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() >= SECRET_RUN && run.bytes().any(|b| b.is_ascii_digit()) {
            out.push_str(&run[..4]);
            out.push('…');
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if is_id(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Text in one write: whole lines under load, and one system call instead of one per
/// formatted piece (stderr is unbuffered).
fn write_bytes(text: &[u8]) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text);
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
/// An audit event, at notice level: one line `audit event=<event> k=v k=v` in a stable format
/// (login success and failure, lock, logout, ...). A value with a space, a quote, a backslash or
/// an `=` is quoted (`"..."`, with `\\` and `\"` escaped); control characters are dropped, so
/// a value cannot forge a second line or a second field.
pub fn audit(event: &str, fields: &[(&str, &str)]) {
    let mut line = format!("audit event={}", audit_value(event));
    for (k, v) in fields {
        line.push(' ');
        line.push_str(k);
        line.push('=');
        line.push_str(&audit_value(v));
    }
    notice(&line);
}

/// A value of an audit line: bare when it holds no space, quote, backslash or `=`.
fn audit_value(v: &str) -> String {
    let v: String = v.chars().filter(|c| !c.is_control()).take(256).collect();
    if !v.is_empty() && !v.contains([' ', '"', '\\', '=']) {
        return v;
    }
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
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
        let line = format!(
            "{} {method} {} {status} {ms}ms\n",
            crate::util::timestamp14(crate::util::now()),
            redact(&path)
        );
        let full = GATHERED.with(|g| match g.borrow_mut().as_mut() {
            Some(g) => {
                g.text.extend_from_slice(line.as_bytes());
                let since = *g.since.get_or_insert_with(std::time::Instant::now);
                Some(g.text.len() >= GATHER_BYTES || since.elapsed() >= GATHER_AGE)
            }
            None => None,
        });
        match full {
            None => write_bytes(line.as_bytes()),
            Some(true) => flush_access(),
            Some(false) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{access, audit_value, flush_access, gather_access, redact, GATHERED};

    fn gathered() -> String {
        GATHERED.with(|g| {
            g.borrow()
                .as_ref()
                .map(|g| String::from_utf8_lossy(&g.text).into_owned())
                .unwrap_or_default()
        })
    }

    #[test]
    fn a_gathering_thread_holds_its_access_lines_until_flushed_or_full() {
        // Other threads (this test's before the call) write at once: nothing is held.
        access("GET", "/before", 200, 0);
        assert_eq!(gathered(), "");
        gather_access();
        access("GET", "/one", 200, 1);
        access("POST", "/two", 302, 2);
        let held = gathered();
        assert!(held.contains(" GET /one 200 1ms\n"), "{held}");
        assert!(held.ends_with(" POST /two 302 2ms\n"), "{held}");
        assert_eq!(held.lines().count(), 2);
        flush_access();
        assert_eq!(gathered(), "");
        // A leveled line of the thread writes what it gathered first.
        access("GET", "/three", 200, 0);
        super::error("after the access line");
        assert_eq!(gathered(), "");
        // At 8 KiB the lines go out without a flush.
        for _ in 0..200 {
            access(
                "GET",
                "/a-rather-long-path-to-fill-the-buffer-quickly",
                200,
                0,
            );
        }
        assert!(
            gathered().len() < super::GATHER_BYTES,
            "{}",
            gathered().len()
        );
        flush_access();
    }

    #[test]
    fn audit_values_are_quoted_when_they_could_split_the_line() {
        assert_eq!(audit_value("dwho"), "dwho");
        assert_eq!(audit_value("127.0.0.1"), "127.0.0.1");
        assert_eq!(audit_value("Doctor Who"), "\"Doctor Who\"");
        assert_eq!(audit_value("a\"b"), "\"a\\\"b\"");
        assert_eq!(audit_value("x=1 y=2"), "\"x=1 y=2\"");
        assert_eq!(
            audit_value("evil\naudit event=login"),
            "\"evilaudit event=login\""
        );
        assert_eq!(audit_value(""), "\"\"");
    }

    #[test]
    fn ids_and_tokens_are_cut_other_words_kept() {
        let sid = "a597b3b59bb6660b922c68e0167e9358d43cfe2a40c4eab0e59764ab9193e827";
        assert_eq!(
            redact(&format!("/sessions/global/{sid}/uid")),
            "/sessions/global/a597…/uid"
        );
        assert_eq!(
            redact(&format!("/tmp/d/sessions/{sid}: Is a directory")),
            "/tmp/d/sessions/a597…: Is a directory"
        );
        let token = "eyJhbGciOiJIUzI1NiJ9_abcdefghijklmnopqrstuvwxyz-0123";
        assert_eq!(redact(&format!("token {token}.sig")), "token eyJh….sig");
        let plain = "user dwho authenticated on /oauth2/authorize 200";
        assert_eq!(redact(plain), plain);
        assert_eq!(redact(&"x".repeat(31)), "x".repeat(31));
        let key = "oidcRPMetaDataOptions/rp/oidcRPMetaDataOptionsClientSecret: missing";
        assert_eq!(redact(key), key);
        assert_eq!(redact("ééé"), "ééé");
    }
}
