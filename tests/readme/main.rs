//! The README tells the truth: its shell commands run as written against a fresh portal and
//! answer what it shows. The commands are read from README.md itself (indented or fenced blocks:
//! `$ ` lines, with `\` continuations, and the lines under each are its answer; bare lines are
//! "the two commands"), so an edited README is tested as edited. `cargo run --release` is the
//! portal started the way cargo would (no arguments, in a fresh folder), on 127.0.0.1:8080 when
//! that is free, otherwise on another port substituted in every command. Answers are matched as
//! shapes: `<NAME>` in an answer captures a value the later commands use (`<NAME …>`), `…`
//! stands for elided text (a line of its own: elided lines), JSON compares keys and the values
//! shown. Any command this file does not know how to run fails the test.
#[path = "../common/mod.rs"]
mod common;
mod install;
mod shape;

use common::{bin, free_port, Portal, TempDir};
use shape::lines_match;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// The README's address for the portal.
const README_ADDR: &str = "127.0.0.1:8080";

#[test]
fn the_readme_commands_run_as_written() {
    let readme = include_str!("../../README.md");
    let doc = parse(readme);
    let in_section = |name: &str| -> Vec<&str> {
        doc.bare
            .iter()
            .filter(|(s, _)| s == name)
            .map(|(_, c)| c.as_str())
            .collect()
    };
    assert_eq!(
        in_section("The two commands"),
        ["cargo run --release", "make test"],
        "the README's two commands changed: teach tests/readme.rs how to run them"
    );
    let install = in_section("Install");
    let known = install.len() + in_section("The two commands").len();
    assert_eq!(
        known,
        doc.bare.len(),
        "commands this test cannot run: {:?}",
        doc.bare
    );
    install::run(&install);
    let makefile = include_str!("../../Makefile");
    assert!(
        makefile.lines().any(|l| l.starts_with("test:")),
        "`make test` needs a test target in the Makefile"
    );
    assert!(
        doc.steps.len() >= 6,
        "the walk-through lost its commands: {:?}",
        doc.steps
    );
    let (portal, addr) = cargo_run_release();
    assert!(
        portal
            .data()
            .join("limette-data/conf/lmConf-1.json")
            .is_file(),
        "the README says the data lives under ./limette-data"
    );
    let shell = walk(&doc, &portal, &addr);
    for name in ["id", "CODE", "AT"] {
        assert!(shell.vars.contains_key(name), "nothing captured <{name}>");
    }
}

/// Runs a document's steps in order in one fresh [`Shell`] against `portal` (on `addr`). The
/// guides under docs/ can be walked the same way once their answers use the same placeholders.
fn walk(doc: &Doc, portal: &Portal, addr: &str) -> Shell {
    let mut shell = Shell::new(portal.data(), addr);
    for step in &doc.steps {
        shell.run(step, portal);
    }
    shell
}

/// One `$ ` command and the answer the document shows under it.
#[derive(Debug)]
struct Step {
    command: String,
    answer: Vec<String>,
}

/// The shell commands of a Markdown document.
#[derive(Debug, Default)]
struct Doc {
    /// Lines of code blocks with no `$ ` prompt before them, with the `## ` section they stand
    /// in ("The two commands", "Install").
    bare: Vec<(String, String)>,
    steps: Vec<Step>,
}

/// Reads indented (4 spaces) and fenced (```, ```sh, ```console) blocks. In a block, a `# `
/// line is a comment that ends the answer above it; text outside blocks ends a step.
fn parse(markdown: &str) -> Doc {
    let mut doc = Doc::default();
    let mut fence: Option<bool> = None; // Some(whether the fenced block is shell)
    let mut open = false; // the last step may still take answer lines
    let mut lines = markdown.lines();
    let mut section = String::new();
    while let Some(line) = lines.next() {
        if let Some(title) = line.strip_prefix("## ") {
            section = title.trim().to_string();
        }
        let code = if let Some(lang) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(
                    lang.trim(),
                    "" | "sh" | "shell" | "console" | "bash"
                )),
            };
            open = false;
            continue;
        } else if let Some(shell) = fence {
            shell.then_some(line)
        } else {
            line.strip_prefix("    ")
        };
        let Some(code) = code else {
            open &= line.trim().is_empty();
            continue;
        };
        if let Some(first) = code.strip_prefix("$ ") {
            let mut command = first.trim().to_string();
            while command.ends_with('\\') {
                command.pop();
                let next = lines.next().unwrap_or_default();
                command = format!("{} {}", command.trim_end(), next.trim());
            }
            doc.steps.push(Step {
                command,
                answer: Vec::new(),
            });
            open = true;
        } else if code.trim_start().starts_with("# ") || code.trim().is_empty() {
            open = false;
        } else if let (true, Some(step)) = (open, doc.steps.last_mut()) {
            step.answer.push(code.trim_end().to_string());
        } else {
            doc.bare.push((section.clone(), code.trim().to_string()));
        }
    }
    doc
}

/// `cargo run --release`: the built binary with no arguments, in a fresh folder, on the README's
/// address when free; otherwise on a free port (the commands then get that address).
fn cargo_run_release() -> (Portal, String) {
    if std::net::TcpListener::bind(README_ADDR).is_ok() {
        // Freed again: a concurrent run may still take it first, hence the fallback.
        if let Ok(portal) = start(&[]) {
            return (portal, README_ADDR.to_string());
        }
    }
    let addr = format!("127.0.0.1:{}", free_port());
    let portal = start(&["-l", &addr]).unwrap_or_else(|log| panic!("no start on {addr}: {log}"));
    (portal, addr)
}

/// Starts the binary in a fresh folder and waits for its listening line (or its exit, whose
/// log is the error).
fn start(args: &[&str]) -> Result<Portal, String> {
    let dir = TempDir::new("readme");
    let log = dir.path().join("server.log");
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start limette");
    let mut line = String::new();
    let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
    let port = line
        .split("listening on http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok());
    let portal = Portal {
        child: Some(child),
        port: port.unwrap_or(0),
        dir: Some(dir),
        log,
    };
    match port {
        Some(_) => Ok(portal),
        None => Err(format!("got {line:?}; log: {}", portal.log())),
    }
}

/// Runs steps one after the other: `NAME=value` steps persist like shell variables, captured
/// `<NAME>` values fill the placeholders of later commands.
struct Shell {
    dir: std::path::PathBuf,
    addr: String,
    assignments: Vec<String>,
    vars: BTreeMap<String, String>,
}

impl Shell {
    /// A shell working in `dir` (the portal's folder), where `limette` is the binary under test.
    fn new(dir: &std::path::Path, addr: &str) -> Shell {
        let bin_dir = dir.join("bin");
        std::fs::create_dir_all(&bin_dir).unwrap();
        std::os::unix::fs::symlink(bin(), bin_dir.join("limette")).unwrap();
        Shell {
            dir: dir.to_path_buf(),
            addr: addr.to_string(),
            assignments: Vec::new(),
            vars: BTreeMap::new(),
        }
    }

    fn run(&mut self, step: &Step, portal: &Portal) {
        let command = self.fill(&step.command);
        let mut script = self.assignments.join("\n");
        script.push('\n');
        script.push_str(&command);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(&self.dir)
            .env("PATH", path_with(&self.dir.join("bin")))
            .env("CURL_HOME", &self.dir) // no ~/.curlrc
            .env("no_proxy", "*") // loopback only, whatever proxy the environment names
            .stdin(Stdio::null())
            .output()
            .expect("sh runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let context = || {
            format!(
                "README command: {}\nrun as: {command}\nstdout:\n{stdout}\nstderr:\n{}\nserver log:\n{}",
                step.command,
                String::from_utf8_lossy(&out.stderr),
                portal.log()
            )
        };
        assert!(out.status.success(), "{}", context());
        if is_assignment(&command) {
            self.assignments.push(command.clone());
        }
        let answer: Vec<String> = step.answer.iter().map(|l| self.at_addr(l)).collect();
        let actual: Vec<&str> = stdout
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.is_empty())
            .collect();
        if answer.is_empty() {
            return; // the README shows no answer: succeeding is all it claims
        }
        match lines_match(&answer, &actual) {
            Ok(captured) => self.vars.extend(captured),
            Err(why) => panic!("{why}\nthe README shows: {answer:#?}\n{}", context()),
        }
    }

    /// The command with `<NAME …>` replaced by the captured NAME, on the portal's address.
    fn fill(&self, command: &str) -> String {
        let mut out = String::new();
        let mut rest = command;
        while let Some((before, after)) = rest.split_once('<') {
            let (inside, tail) = after
                .split_once('>')
                .unwrap_or_else(|| panic!("unclosed <placeholder> in {command}"));
            let name = inside.split_whitespace().next().unwrap_or_default();
            let value = self.vars.get(name).unwrap_or_else(|| {
                panic!("<{inside}> in `{command}`: no earlier answer shows <{name}>")
            });
            out.push_str(before);
            out.push_str(value);
            rest = tail;
        }
        out.push_str(rest);
        self.at_addr(&out)
    }

    fn at_addr(&self, text: &str) -> String {
        text.replace(README_ADDR, &self.addr)
    }
}

/// `$PATH` with `dir` first.
fn path_with(dir: &std::path::Path) -> std::ffi::OsString {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).expect("PATH entries have no ':'")
}

/// Whether a command only sets shell variables (`P=… ID=…`).
fn is_assignment(command: &str) -> bool {
    command.split_whitespace().all(|word| {
        word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

#[test]
fn blocks_are_read_as_commands_and_answers() {
    let md = "Run:\n\n    cargo run\n\nThen:\n\n    $ P=x ID=<id from above>\n    $ curl -s \\\n        $P/\n    {\"a\":1}\n    # a comment\n    not an answer\n\n```sh\n$ echo hi\nhi\n```\n```rust\n$ no\n```\n";
    let doc = parse(md);
    let bare: Vec<&str> = doc.bare.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(bare, ["cargo run", "not an answer"]);
    let commands: Vec<&str> = doc.steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(
        commands,
        ["P=x ID=<id from above>", "curl -s $P/", "echo hi"]
    );
    assert_eq!(doc.steps[1].answer, [r#"{"a":1}"#]);
    assert_eq!(doc.steps[2].answer, ["hi"]);
    assert!(is_assignment("P=x ID=y") && !is_assignment("curl -s $P/"));
}
