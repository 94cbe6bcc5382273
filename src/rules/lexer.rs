//! Turns rule text into tokens. The lexer owns every character-level decision (quoting,
//! interpolation in double quotes, `$ENV{NAME}`, numbers, regular-expression literals after
//! `=~`/`!~`); it never allocates more than the input's size and rejects anything it does not
//! know instead of guessing (Perl would give it a meaning we do not reproduce).

/// One token of the rule language.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// `$name` or `${name}`: a session attribute.
    Var(String),
    /// A quoted string without interpolation (single quotes, or double quotes without `$`).
    Str(String),
    /// A double-quoted string that interpolates variables: its pieces, in order.
    Interp(Vec<Piece>),
    /// `$ENV{NAME}` (or `$env->{NAME}`): a request variable, CGI-style name.
    Env(String),
    /// A decimal number literal, kept as text (Perl compares it as written).
    Num(String),
    /// A regular-expression literal `/body/flags` or `m{body}flags`, following `=~` or `!~`.
    Regex(String, String),
    /// A bare word: `eq`, `and`, `inGroup`, `accept`...
    Word(String),
    /// An operator or punctuation: `==`, `&&`, `(`, `,`...
    Op(&'static str),
}

/// One piece of an interpolating string.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Text as written (escapes resolved).
    Lit(String),
    /// `$name`: a session attribute.
    Var(String),
    /// `$ENV{NAME}`: a request variable.
    Env(String),
}

/// The longest input the lexer accepts, in bytes: rules are short, and a bound keeps parsing
/// time bounded whatever is fed in.
pub const MAX_LEN: usize = 8192;

const OPS: [&str; 19] = [
    "==", "!=", "<=", ">=", "=~", "!~", "&&", "||", "<", ">", "!", "(", ")", ",", "{", "}", ".",
    "?", ":",
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
        let name: String = chars[i + 2..end].iter().collect();
        if name == "ENV" || name == "env" {
            return Err(format!("${{{name}}} at {i}: write $ENV{{NAME}}"));
        }
        return Ok((Token::Var(name), end + 1));
    }
    let (name, end) = plain_name(chars, i)?;
    match env_suffix(chars, &name, end)? {
        Some((key, next)) => Ok((Token::Env(key), next)),
        None => Ok((Token::Var(name), end)),
    }
}

/// The name of `$name` at `i` (the `$`) and the index after it. Perl's capture variables
/// (`$1`) and punctuation variables are not session attributes: refused.
fn plain_name(chars: &[char], i: usize) -> Result<(String, usize), String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    match chars.get(i + 1) {
        Some(c) if c.is_ascii_digit() => {
            return Err(format!("capture variable ${c} at {i} is not supported"))
        }
        Some(c) if word(*c) => {}
        _ => return Err(format!("'$' without a name at {i}")),
    }
    let end = scan(chars, i + 1, word);
    Ok((chars[i + 1..end].iter().collect(), end))
}

/// After `$ENV` (or `$env`): `{NAME}` (or `->{NAME}`), giving the name and the index after.
/// `None` for any other variable. Only request headers (`HTTP_*`) and `REMOTE_ADDR` are
/// known; another name would silently read nothing, so it is refused.
fn env_suffix(chars: &[char], name: &str, i: usize) -> Result<Option<(String, usize)>, String> {
    let open = match name {
        "ENV" if chars.get(i) == Some(&'{') => i + 1,
        "env" if chars.get(i..i + 3) == Some(&['-', '>', '{']) => i + 3,
        "ENV" | "env" => return Err(format!("${name} at {i}: expected {{NAME}}")),
        _ => return Ok(None),
    };
    let quote = chars.get(open).copied().filter(|c| *c == '\'' || *c == '"');
    let start = open + usize::from(quote.is_some());
    let end = scan(chars, start, |c| c.is_ascii_alphanumeric() || c == '_');
    let mut close = end;
    if let Some(q) = quote {
        if chars.get(close) != Some(&q) {
            return Err(format!("malformed $ENV{{...}} at {i}"));
        }
        close += 1;
    }
    if chars.get(close) != Some(&'}') {
        return Err(format!("malformed $ENV{{...}} at {i}"));
    }
    let key: String = chars[start..end].iter().collect();
    let header = key.strip_prefix("HTTP_").is_some_and(|h| {
        !h.is_empty()
            && h.bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    });
    if !header && key != "REMOTE_ADDR" {
        return Err(format!(
            "$ENV{{{key}}}: only HTTP_* request headers and REMOTE_ADDR are known"
        ));
    }
    Ok(Some((key, close + 1)))
}

/// A quoted string. Single quotes: only `\\` and `\'` are escapes, as in Perl. Double
/// quotes: `$name` and `$ENV{NAME}` interpolate; `\n \t \r` and an escaped punctuation
/// character are known escapes, other letters (`\x`, `\u`, `\L`...) are refused, and so are
/// an unescaped `@name` (a Perl array) and a subscript after a variable.
fn string(chars: &[char], i: usize) -> Result<(Token, usize), String> {
    let quote = chars[i];
    let mut pieces: Vec<Piece> = Vec::new();
    let mut s = String::new();
    let mut j = i + 1;
    while let Some(&c) = chars.get(j) {
        if c == quote {
            return Ok((finish(pieces, s), j + 1));
        }
        if c == '\\' {
            let Some(&e) = chars.get(j + 1) else { break };
            if quote == '\'' {
                if e != '\\' && e != '\'' {
                    s.push(c);
                }
                s.push(e);
            } else {
                s.push(double_escape(e, j)?);
            }
            j += 2;
            continue;
        }
        if quote == '"' && c == '$' {
            let (piece, next) = interpolated(chars, j)?;
            pieces.push(Piece::Lit(std::mem::take(&mut s)));
            pieces.push(piece);
            j = next;
            continue;
        }
        if quote == '"' && c == '@' && chars.get(j + 1).is_some_and(|n| array_start(*n)) {
            return Err(format!(
                "unescaped '@' in a double-quoted string at {j}: write \\@"
            ));
        }
        s.push(c);
        j += 1;
    }
    Err(format!("unterminated string starting at {i}"))
}

fn finish(mut pieces: Vec<Piece>, rest: String) -> Token {
    if pieces.is_empty() {
        return Token::Str(rest);
    }
    pieces.push(Piece::Lit(rest));
    pieces.retain(|p| p != &Piece::Lit(String::new()));
    Token::Interp(pieces)
}

fn double_escape(e: char, at: usize) -> Result<char, String> {
    Ok(match e {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        e if e.is_alphanumeric() => return Err(format!("unsupported escape \\{e} at {at}")),
        e => e,
    })
}

/// What after `@` makes Perl interpolate an array in a double-quoted string.
fn array_start(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '{' | '$' | ':')
}

/// `$name` or `$ENV{NAME}` inside double quotes at `i`; refuses `${...}` and a following
/// `[`, `{` or `->`, which Perl would read as a subscript.
fn interpolated(chars: &[char], i: usize) -> Result<(Piece, usize), String> {
    if chars.get(i + 1) == Some(&'{') {
        return Err(format!(
            "${{...}} in a double-quoted string at {i}: write $name"
        ));
    }
    let (name, end) = plain_name(chars, i)?;
    let (piece, next) = match env_suffix(chars, &name, end)? {
        Some((key, next)) => (Piece::Env(key), next),
        None => (Piece::Var(name), end),
    };
    let subscript = matches!(chars.get(next), Some('[') | Some('{'))
        || (chars.get(next) == Some(&'-')
            && matches!(chars.get(next + 1), Some('>'))
            && matches!(chars.get(next + 2), Some('[') | Some('{')));
    if subscript {
        return Err(format!("subscript after a variable in a string at {next}"));
    }
    Ok((piece, next))
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
