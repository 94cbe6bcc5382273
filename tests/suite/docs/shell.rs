//! A page's terminal: one `sh` that lives for the whole page, in the folder of the page's own
//! fresh portal, where `limette` is the binary under test. Commands run one after the other in
//! it, so variables, files and `cd` carry over as they do for a reader pasting the page; each
//! runs with stdin closed, and what it prints (stdout and stderr together, as a terminal shows
//! them; curl without its progress meter, as on a terminal) is its answer. The program's log
//! lines (a timestamp and a `[level]`) are left out: pages show answers, not logs. `<NAME>` in
//! a command is a value an earlier answer captured; the page's addresses are replaced by the
//! ones the test uses. A save (`Saved under number N`) waits until the portal says number N is
//! in force, which the pages promise within seconds.
use super::common::{bin, free_port, Portal, TempDir};
use super::parse::Step;
use super::shape::{lines_match, Captures};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The pages' address for the portal.
pub const PAGE_ADDR: &str = "127.0.0.1:8080";
/// How long one command may take.
const STEP_LIMIT: Duration = Duration::from_secs(60);
/// How long a saved configuration may take to be in force.
const RELOAD_LIMIT: Duration = Duration::from_secs(10);
/// The line that ends each command's output, with its exit status.
const END: &str = "__limette_docs_step_end__";

/// The portal as `cargo run --release` (or `limette`) starts it: no arguments, in a fresh
/// folder, on the pages' address when free; otherwise on a free port (the commands then get
/// that address). Returns the portal and its address.
pub fn fresh_portal() -> (Portal, String) {
    if std::net::TcpListener::bind(PAGE_ADDR).is_ok() {
        // Freed again: a concurrent run may still take it first, hence the fallback.
        if let Ok(portal) = start(&[]) {
            return (portal, PAGE_ADDR.to_string());
        }
    }
    let addr = format!("127.0.0.1:{}", free_port());
    let portal = start(&["-l", &addr]).unwrap_or_else(|log| panic!("no start on {addr}: {log}"));
    (portal, addr)
}

/// Starts the binary in a fresh folder and waits for its listening line (or its exit, whose
/// log is the error).
fn start(args: &[&str]) -> Result<Portal, String> {
    let mut cmd = Command::new(bin());
    cmd.args(args);
    super::common::embedded::spawn_listening(TempDir::new("docs"), cmd).map(|(portal, _)| portal)
}

/// The terminal of one page.
pub struct Shell<'a> {
    page: &'a str,
    portal: Option<&'a Portal>,
    /// (the page's text, the test's) for addresses.
    subs: Vec<(String, String)>,
    pub vars: Captures,
    sh: Child,
    stdin: ChildStdin,
    out: Receiver<String>,
}

impl<'a> Shell<'a> {
    /// A shell in `dir` for `page`, whose `127.0.0.1:8080` is `addr`.
    pub fn new(page: &'a str, dir: &Path, addr: &str, portal: Option<&'a Portal>) -> Shell<'a> {
        let bin_dir = dir.join("bin");
        std::fs::create_dir_all(&bin_dir).unwrap();
        std::os::unix::fs::symlink(bin(), bin_dir.join("limette")).unwrap();
        // A terminal shows no progress meter; a pipe would (on stderr, which we read too).
        std::fs::write(dir.join(".curlrc"), "no-progress-meter\n").unwrap();
        let mut sh = Command::new("sh")
            .current_dir(dir)
            .env("PATH", path_with(&bin_dir))
            .env("HOME", dir)
            .env("CURL_HOME", dir) // the .curlrc above, no other
            .env("no_proxy", "*") // loopback only, whatever proxy the environment names
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("sh runs");
        let mut stdin = sh.stdin.take().unwrap();
        stdin.write_all(b"exec 2>&1\n").unwrap();
        let (tx, out) = channel();
        let stdout = sh.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Shell {
            page,
            portal,
            subs: vec![(PAGE_ADDR.to_string(), addr.to_string())],
            vars: Captures::new(),
            sh,
            stdin,
            out,
        }
    }

    /// The page's `from` (an address) is `to` in this test.
    pub fn substitute(&mut self, from: &str, to: &str) {
        self.subs.push((from.to_string(), to.to_string()));
    }

    /// Runs the step; panics with the page, its line and what happened when the status or the
    /// output is not what the page shows.
    pub fn run(&mut self, step: &Step) {
        let command = self.fill(&step.command);
        let script = format!("{{ {command}\n}} </dev/null\nprintf '\\n%s %s\\n' {END} \"$?\"\n");
        self.stdin.write_all(script.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
        let deadline = Instant::now() + STEP_LIMIT;
        let mut lines = Vec::new();
        let status = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.out.recv_timeout(left) {
                Ok(line) => match line.strip_prefix(END) {
                    Some(rc) => break rc.trim().parse::<i32>().unwrap_or(-1),
                    None => lines.push(line),
                },
                Err(_) => panic!(
                    "{}: no end after {STEP_LIMIT:?} for `{command}`; so far: {lines:#?}{}",
                    self.page,
                    self.log()
                ),
            }
        };
        let actual: Vec<&str> = lines
            .iter()
            .map(|l| l.trim_end()) // a terminal shows no trailing blanks
            .filter(|l| !l.trim().is_empty() && !is_log_line(l))
            .collect();
        let (want_status, answer) = step.expected();
        let answer: Vec<String> = answer.iter().map(|l| self.at_addrs(l)).collect();
        let context = || {
            format!(
                "{} line {}: {}\nrun as: {command}\nexit status {status}\noutput:\n{}{}",
                self.page,
                step.line,
                step.command,
                lines.join("\n"),
                self.log()
            )
        };
        assert_eq!(status, want_status, "exit status\n{}", context());
        if !answer.is_empty() {
            match lines_match(&answer, &actual) {
                Ok(captured) => self.vars.extend(captured),
                Err(why) => panic!("{why}\nthe page shows: {answer:#?}\n{}", context()),
            }
        }
        if let Some(num) = lines
            .iter()
            .find_map(|l| l.strip_prefix("Saved under number "))
        {
            self.wait_in_force(num.trim());
        }
    }

    /// Waits until the portal logs that configuration `num` is in force.
    fn wait_in_force(&self, num: &str) {
        let Some(portal) = self.portal else { return };
        let line = format!("configuration {num} is now in force");
        let deadline = Instant::now() + RELOAD_LIMIT;
        while !portal.log().contains(&line) {
            assert!(
                Instant::now() < deadline,
                "{}: configuration {num} not in force after {RELOAD_LIMIT:?}{}",
                self.page,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log(&self) -> String {
        self.portal
            .map(|p| format!("\nserver log:\n{}", p.log()))
            .unwrap_or_default()
    }

    /// The command with `<NAME>` and `<NAME …>` replaced by the captured NAME (other `<...>`
    /// is left to the shell), on the test's addresses.
    fn fill(&self, command: &str) -> String {
        let mut out = String::new();
        let mut rest = command;
        while let Some((before, after)) = rest.split_once('<') {
            out.push_str(before);
            let name = after
                .split_once('>')
                .map(|(inside, tail)| (inside.split(' ').next().unwrap_or_default(), tail));
            match name.and_then(|(n, tail)| Some((self.vars.get(n)?, tail))) {
                Some((value, tail)) => {
                    out.push_str(value);
                    rest = tail;
                }
                None => {
                    out.push('<');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        self.at_addrs(&out)
    }

    /// The page's addresses replaced by the test's, in one pass (a replacement is never
    /// replaced again, whatever port it names).
    fn at_addrs(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        'scan: while let Some(c) = rest.chars().next() {
            for (from, to) in &self.subs {
                if let Some(after) = rest.strip_prefix(from.as_str()) {
                    out.push_str(to);
                    rest = after;
                    continue 'scan;
                }
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }
}

impl Drop for Shell<'_> {
    fn drop(&mut self) {
        let _ = self.sh.kill();
        let _ = self.sh.wait();
    }
}

/// A log line of the program: `YYYYMMDDhhmmss [level] ...`.
fn is_log_line(line: &str) -> bool {
    let (stamp, rest) = line.split_at(line.len().min(14));
    stamp.len() == 14 && stamp.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(" [")
}

/// `$PATH` with `dir` first.
fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut dirs: Vec<PathBuf> = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).expect("PATH entries have no ':'")
}

#[test]
fn log_lines_are_told_from_answers() {
    assert!(is_log_line("20261126181056 [warn] authentication = Demo"));
    assert!(!is_log_line("Saved under number 2"));
    assert!(!is_log_line("2026"));
}

#[test]
fn addresses_are_replaced_once() {
    let dir = TempDir::new("docs-subs");
    let mut shell = Shell::new("test", dir.path(), "127.0.0.1:8081", None);
    shell.substitute("127.0.0.1:8081", "127.0.0.1:4242");
    assert_eq!(
        shell.at_addrs("http://127.0.0.1:8080/ and http://127.0.0.1:8081/"),
        "http://127.0.0.1:8081/ and http://127.0.0.1:4242/"
    );
}
