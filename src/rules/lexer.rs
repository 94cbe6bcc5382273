//! Turns rule text into tokens. The lexer owns every character-level decision (quoting,
//! numbers, regular-expression literals after `=~`/`!~`); it never allocates more than the
//! input's size and rejects anything it does not know instead of guessing.

/// One token of the rule language.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// `$name` or `${name}`: a session attribute.
    Var(String),
    /// A quoted string (single or double quotes, backslash escapes).
    Str(String),
    /// A decimal number literal, kept as text (Perl compares it as written).
    Num(String),
    /// A regular-expression literal `/body/flags` or `m{body}flags`, following `=~` or `!~`.
    Regex(String, String),
    /// A bare word: `eq`, `and`, `inGroup`, `accept`...
    Word(String),
    /// An operator or punctuation: `==`, `&&`, `(`, `,`...
    Op(&'static str),
}

/// The longest input the lexer accepts, in bytes: rules are short, and a bound keeps parsing
/// time bounded whatever is fed in.
pub const MAX_LEN: usize = 8192;

const OPS: [&str; 17] = [
    "==", "!=", "<=", ">=", "=~", "!~", "&&", "||", "<", ">", "!", "(", ")", ",", "{", "}", ".",
];

/// Splits `src` into tokens.
///
/// Invariant for the slicing below: every index handed to a helper is below `chars.len()`
/// (the loop condition), and every end comes from `scan`, which never passes the end; the
/// randomized test in `rules::tests` feeds arbitrary input through all of it.
pub fn lex(src: &str) -> Result<Vec<Token>, String> {
    if src.len() > MAX_LEN {
        return Err(format!("rule longer than {MAX_LEN} bytes"));
    }
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let after_match_op = matches!(out.last(), Some(Token::Op("=~")) | Some(Token::Op("!~")));
        if after_match_op {
            let (tok, next) = regex_literal(&chars, i)?;
            out.push(tok);
            i = next;
            continue;
        }
        let (tok, next) = match c {
            '$' => variable(&chars, i)?,
            '"' | '\'' => string(&chars, i)?,
            '0'..='9' => number(&chars, i),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let end = scan(&chars, i, |c| {
                    c.is_ascii_alphanumeric() || c == '_' || c == ':'
                });
                (Token::Word(chars[i..end].iter().collect()), end)
            }
            _ => operator(&chars, i)?,
        };
        out.push(tok);
        i = next;
    }
    Ok(out)
}

/// The index of the first character from `i` on that does not satisfy `ok`.
fn scan(chars: &[char], mut i: usize, ok: impl Fn(char) -> bool) -> usize {
    while i < chars.len() && ok(chars[i]) {
        i += 1;
    }
    i
}

fn variable(chars: &[char], i: usize) -> Result<(Token, usize), String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if chars.get(i + 1) == Some(&'{') {
        let end = scan(chars, i + 2, word);
        if end == i + 2 || chars.get(end) != Some(&'}') {
            return Err(format!("malformed variable at {i}"));
        }
        return Ok((Token::Var(chars[i + 2..end].iter().collect()), end + 1));
    }
    let end = scan(chars, i + 1, word);
    if end == i + 1 {
        return Err(format!("'$' without a name at {i}"));
    }
    Ok((Token::Var(chars[i + 1..end].iter().collect()), end))
}

fn string(chars: &[char], i: usize) -> Result<(Token, usize), String> {
    let quote = chars[i];
    let mut s = String::new();
    let mut j = i + 1;
    while let Some(&c) = chars.get(j) {
        if c == quote {
            return Ok((Token::Str(s), j + 1));
        }
        if c == '\\' {
            let Some(&e) = chars.get(j + 1) else { break };
            s.push(match (quote, e) {
                ('"', 'n') => '\n',
                ('"', 't') => '\t',
                _ => e,
            });
            j += 2;
            continue;
        }
        s.push(c);
        j += 1;
    }
    Err(format!("unterminated string starting at {i}"))
}

fn number(chars: &[char], i: usize) -> (Token, usize) {
    let mut end = scan(chars, i, |c| c.is_ascii_digit() || c == '_');
    if chars.get(end) == Some(&'.') && chars.get(end + 1).is_some_and(char::is_ascii_digit) {
        end = scan(chars, end + 1, |c| c.is_ascii_digit());
    }
    let text: String = chars[i..end].iter().filter(|c| **c != '_').collect();
    (Token::Num(text), end)
}

fn operator(chars: &[char], i: usize) -> Result<(Token, usize), String> {
    for op in OPS {
        let n = op.chars().count();
        if chars.len() >= i + n && chars[i..i + n].iter().copied().eq(op.chars()) {
            return Ok((Token::Op(op), i + n));
        }
    }
    Err(format!("unexpected character {:?} at {i}", chars[i]))
}

/// `/body/flags`, `m/body/flags` or `m` with another delimiter (`m{...}`, `m#...#`).
fn regex_literal(chars: &[char], i: usize) -> Result<(Token, usize), String> {
    let (open, start) = match chars[i] {
        '/' => ('/', i + 1),
        'm' => match chars.get(i + 1) {
            Some(&d) if !d.is_alphanumeric() && !d.is_whitespace() => (d, i + 2),
            _ => return Err(format!("expected a regular expression at {i}")),
        },
        _ => return Err(format!("expected a regular expression at {i}")),
    };
    let close = match open {
        '{' => '}',
        '(' => ')',
        '[' => ']',
        '<' => '>',
        c => c,
    };
    let mut body = String::new();
    let mut j = start;
    loop {
        let Some(&c) = chars.get(j) else {
            return Err(format!("unterminated regular expression at {i}"));
        };
        if c == close {
            break;
        }
        if c == '\\' && chars.get(j + 1) == Some(&close) && close == '/' {
            body.push('/');
            j += 2;
            continue;
        }
        if c == '\\' {
            if let Some(&e) = chars.get(j + 1) {
                body.push(c);
                body.push(e);
                j += 2;
                continue;
            }
        }
        body.push(c);
        j += 1;
    }
    let end = scan(chars, j + 1, |c| c.is_ascii_alphabetic());
    Ok((Token::Regex(body, chars[j + 1..end].iter().collect()), end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let t = lex(r#"$uid eq "dwho" && ${mail} =~ /@x\.org$/i"#).unwrap();
        assert_eq!(
            t,
            vec![
                Token::Var("uid".into()),
                Token::Word("eq".into()),
                Token::Str("dwho".into()),
                Token::Op("&&"),
                Token::Var("mail".into()),
                Token::Op("=~"),
                Token::Regex(r"@x\.org$".into(), "i".into()),
            ]
        );
        assert_eq!(
            lex("$a =~ m{a/b}").unwrap()[2],
            Token::Regex("a/b".into(), String::new())
        );
        assert_eq!(lex("12.5").unwrap(), vec![Token::Num("12.5".into())]);
        assert_eq!(lex(r"'it\'s'").unwrap(), vec![Token::Str("it's".into())]);
    }

    #[test]
    fn errors() {
        for bad in ["\"open", "$", "${x", "$a =~ /open", "#", "$a =~ x"] {
            assert!(lex(bad).is_err(), "{bad}");
        }
        assert!(lex(&"a".repeat(MAX_LEN + 1)).is_err());
    }
}
