//! The shell transcripts of a Markdown page. A code block is shell when it is indented (four
//! spaces past the list item it stands in, after a blank line: CommonMark's indented code) or
//! fenced without a language or as `sh`, `shell`, `console` or `bash`; any other fenced language
//! (`text`, `json`, `ini`, `xml`, `sql`, `perl`, `nginx`) is shown, not run. In a shell block a
//! `$ ` line is a command (`\` continues it, a `<<'WORD'` heredoc takes the lines up to `WORD`),
//! the lines under it are its answer, a `# ` line or a blank line ends the answer; any other
//! line is a bare command, which only the README's known sections may have.

/// One `$ ` command and the answer the page shows under it.
#[derive(Debug)]
pub struct Step {
    /// The page's line of the `$ `, for messages.
    pub line: usize,
    pub command: String,
    pub answer: Vec<String>,
}

impl Step {
    /// The exit status the answer claims: `(exit N)` at the end of its last line, else 0; and
    /// the answer without that mark.
    pub fn expected(&self) -> (i32, Vec<String>) {
        let mut answer = self.answer.clone();
        let Some(last) = answer.pop() else {
            return (0, answer);
        };
        let status = last
            .trim_end()
            .strip_suffix(')')
            .and_then(|l| l.rsplit_once("(exit "))
            .and_then(|(before, n)| Some((before, n.parse::<i32>().ok()?)));
        match status {
            Some((before, n)) => {
                if !before.trim().is_empty() {
                    answer.push(before.trim_end().to_string());
                }
                (n, answer)
            }
            None => {
                answer.push(last);
                (0, answer)
            }
        }
    }
}

/// The shell commands of a Markdown document.
#[derive(Debug, Default)]
pub struct Doc {
    /// Lines of shell blocks with no `$ ` prompt before them, with the `## ` section they stand
    /// in and their line number.
    pub bare: Vec<(String, usize, String)>,
    pub steps: Vec<Step>,
}

/// Where a list item's content starts (`- `, `* `, `+ `, `1. `, `1) ` after up to 3 spaces).
fn list_item_indent(line: &str, within: usize) -> Option<usize> {
    let lead = line.len() - line.trim_start_matches(' ').len();
    if lead > within + 3 {
        return None;
    }
    let rest = &line[lead..];
    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    let marker = if rest.starts_with(['-', '*', '+']) {
        1
    } else if digits > 0 && rest[digits..].starts_with(['.', ')']) {
        digits + 1
    } else {
        return None;
    };
    rest[marker..].starts_with(' ').then_some(lead + marker + 1)
}

/// The heredoc terminator a command opens (`<<'EOF'`, `<<"EOF"`, `<<EOF`, `<<-EOF`), if any.
fn heredoc(command: &str) -> Option<String> {
    let (_, after) = command.split_once("<<")?;
    let word = after.trim_start_matches('-').trim_start();
    let word: String = word
        .trim_start_matches(['\'', '"'])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

pub fn parse(markdown: &str) -> Doc {
    let mut doc = Doc::default();
    let mut fence: Option<bool> = None; // Some(whether the fenced block is shell)
    let mut open = false; // the last step may still take answer lines
    let mut list = 0; // the content indent of the list item we are in (0: none)
    let mut prev_blank = true;
    let mut in_indented = false;
    let mut section = String::new();
    let mut strip = 0; // the indentation of the current code block
    let mut lines = markdown.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let blank = line.trim().is_empty();
        if fence.is_none() {
            if let Some(title) = line.strip_prefix("## ") {
                section = title.trim().to_string();
            }
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
            prev_blank = false;
            strip = 0;
            continue;
        } else if let Some(shell) = fence {
            shell.then_some(line)
        } else {
            let indent = line.len() - line.trim_start_matches(' ').len();
            let code_indent = list + 4;
            in_indented = !blank && indent >= code_indent && (prev_blank || in_indented)
                || blank && in_indented;
            if !in_indented && !blank {
                if let Some(i) = list_item_indent(line, list) {
                    list = i;
                } else if indent < list && prev_blank {
                    list = 0;
                }
            }
            prev_blank = blank || line.starts_with('#'); // a heading ends a paragraph too
            strip = code_indent;
            in_indented.then(|| line.get(code_indent..).unwrap_or(""))
        };
        let Some(code) = code else {
            open &= blank;
            continue;
        };
        if let Some(first) = code.strip_prefix("$ ") {
            let mut command = first.trim().to_string();
            while command.ends_with('\\') {
                command.pop();
                let next = lines.next().map(|(_, l)| l).unwrap_or_default();
                command = format!("{} {}", command.trim_end(), next.trim());
            }
            if let Some(word) = heredoc(&command) {
                for (_, body) in lines.by_ref() {
                    let body = match body.chars().take(strip).all(|c| c == ' ') {
                        true => body.get(strip..).unwrap_or(""),
                        false => body,
                    };
                    command.push('\n');
                    command.push_str(body);
                    if body.trim() == word {
                        break;
                    }
                }
            }
            doc.steps.push(Step {
                line: n + 1,
                command,
                answer: Vec::new(),
            });
            open = true;
        } else if code.trim_start().starts_with("# ") || code.trim().is_empty() {
            open = false;
        } else if let (true, Some(step)) = (open, doc.steps.last_mut()) {
            step.answer.push(code.trim_end().to_string());
        } else {
            doc.bare
                .push((section.clone(), n + 1, code.trim().to_string()));
        }
    }
    doc
}

#[test]
fn blocks_are_read_as_commands_and_answers() {
    let md = "Run:\n\n    cargo run\n\nThen:\n\n    $ P=x ID=<id>\n    $ curl -s \\\n        $P/\n    {\"a\":1}\n    # a comment\n    not an answer\n\n```sh\n$ echo hi\nhi\n```\n```rust\n$ no\n```\n";
    let doc = parse(md);
    let bare: Vec<&str> = doc.bare.iter().map(|(_, _, c)| c.as_str()).collect();
    assert_eq!(bare, ["cargo run", "not an answer"]);
    let commands: Vec<&str> = doc.steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(commands, ["P=x ID=<id>", "curl -s $P/", "echo hi"]);
    assert_eq!(doc.steps[1].answer, [r#"{"a":1}"#]);
    assert_eq!(doc.steps[2].answer, ["hi"]);
}

#[test]
fn list_continuations_are_not_code_but_code_in_lists_is() {
    let md = "1. item\n    continued, not code\n\n- item:\n\n      $ echo in\n      in\n\n    - nested\n\n    plain text of the item\n\nText\n    lazy, not code\n\n    $ echo top\n";
    let doc = parse(md);
    assert!(doc.bare.is_empty(), "{:?}", doc.bare);
    let commands: Vec<&str> = doc.steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(commands, ["echo in", "echo top"]);
}

#[test]
fn heredocs_and_exit_marks() {
    let md = "    $ cat > f <<'EOF'\n    {\"a\":1}\n    EOF\n    $ false\n    oops   (exit 1)\n";
    let doc = parse(md);
    assert_eq!(doc.steps[0].command, "cat > f <<'EOF'\n{\"a\":1}\nEOF");
    assert!(doc.steps[0].answer.is_empty());
    assert_eq!(doc.steps[1].expected(), (1, vec!["oops".to_string()]));
    assert_eq!(doc.steps[0].expected(), (0, vec![]));
}
