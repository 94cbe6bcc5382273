//! Builds the expression tree from tokens (recursive descent, depth-bounded), with Perl's
//! precedence, lowest first: `or`, `and`, `not`, `?:` (right-associative), `||`, `&&`,
//! equality (`eq ne == !=`), relational (`lt gt le ge < > <= >=`), `.` (concatenation),
//! `=~`/`!~`, `!`, then primaries (literals, interpolating strings, `$attribute`,
//! `$ENV{NAME}`, functions, parentheses). Regular expressions are compiled here, once, with
//! size limits. LemonLDAP::NG's special variables are rewritten as it does: `$ip` is
//! `$ENV{REMOTE_ADDR}`, `$vhost` is `$ENV{HTTP_HOST}`, `$date` is `date()`.
use super::lexer::{Piece, Token};
use regex_lite::{Regex, RegexBuilder};

/// Deepest nesting of parentheses, unary operators and conditionals accepted: keeps
/// recursion bounded.
const MAX_DEPTH: usize = 64;

/// A comparison operator: string (`eq`...) or numeric (`==`...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cmp {
    StrEq,
    StrNe,
    StrLt,
    StrGt,
    StrLe,
    StrGe,
    NumEq,
    NumNe,
    NumLt,
    NumGt,
    NumLe,
    NumGe,
}

/// A string function of one argument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Func {
    /// `lc(x)`: lower case.
    Lc,
    /// `uc(x)`: upper case.
    Uc,
    /// `lcfirst(x)`: first character lower case.
    Lcfirst,
    /// `ucfirst(x)`: first character upper case.
    Ucfirst,
}

/// A compiled expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// A string or number literal.
    Lit(String),
    /// A session attribute (missing = undefined).
    Var(String),
    /// A request variable, `$ENV{NAME}` (missing = undefined).
    Env(String),
    Not(Box<Expr>),
    /// All true (a flat list: long chains cost no recursion depth); its value is Perl's, the
    /// first false operand or the last one.
    And(Vec<Expr>),
    /// Any true; its value is the first true operand or the last one.
    Or(Vec<Expr>),
    Compare(Cmp, Box<Expr>, Box<Expr>),
    /// `expr =~ re` (or `!~` when `negate`).
    Match {
        expr: Box<Expr>,
        re: Regex,
        negate: bool,
    },
    /// `a . b . c` and interpolating strings (a flat list).
    Concat(Vec<Expr>),
    /// `cond ? then : else`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `lc(x)`, `uc(x)`...
    Call(Func, Box<Expr>),
    /// `inGroup("name")`.
    InGroup(String),
    /// `has2f("TYPE")` or `has2f()`: the session's `_2fDevices` holds a device of that type
    /// (any device without a type), as LemonLDAP::NG's `has2f_internal`.
    Has2f(Option<String>),
    /// `date()`: now as `YYYYMMDDHHMMSS` UTC.
    Date,
}

/// Parses a whole token list into one expression.
pub fn parse(tokens: &[Token]) -> Result<Expr, String> {
    let mut p = Parser {
        tokens,
        pos: 0,
        depth: 0,
    };
    let e = p.low_or()?;
    match p.peek() {
        None => Ok(e),
        Some(t) => Err(format!("unexpected {} after the expression", describe(t))),
    }
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn is(&self, op: &str) -> bool {
        match self.peek() {
            Some(Token::Op(o)) => *o == op,
            Some(Token::Word(w)) => w == op,
            _ => false,
        }
    }

    /// Consumes the token if it is one of `ops`.
    fn eat(&mut self, ops: &[&str]) -> bool {
        let hit = ops.iter().any(|o| self.is(o));
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn expect(&mut self, op: &str) -> Result<(), String> {
        if self.is(op) {
            self.pos += 1;
            return Ok(());
        }
        Err(match self.peek() {
            Some(t) => format!("expected '{op}', found {}", describe(t)),
            None => format!("expected '{op}' at the end"),
        })
    }

    /// Runs `f` one level deeper, refusing to go past `MAX_DEPTH`.
    fn nested(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("expression nested too deeply".into());
        }
        let e = f(self)?;
        self.depth -= 1;
        Ok(e)
    }

    /// A left-associative chain of `ops` over `next`, as a flat list when longer than one.
    fn chain(
        &mut self,
        ops: &[&str],
        next: fn(&mut Self) -> Result<Expr, String>,
        build: fn(Vec<Expr>) -> Expr,
    ) -> Result<Expr, String> {
        let mut terms = vec![next(self)?];
        while self.eat(ops) {
            terms.push(next(self)?);
        }
        Ok(if terms.len() == 1 {
            terms.swap_remove(0)
        } else {
            build(terms)
        })
    }

    fn low_or(&mut self) -> Result<Expr, String> {
        self.chain(&["or"], Self::low_and, Expr::Or)
    }

    fn low_and(&mut self) -> Result<Expr, String> {
        self.chain(&["and"], Self::low_not, Expr::And)
    }

    fn low_not(&mut self) -> Result<Expr, String> {
        if self.eat(&["not"]) {
            return self.nested(|p| Ok(Expr::Not(Box::new(p.low_not()?))));
        }
        self.ternary()
    }

    fn ternary(&mut self) -> Result<Expr, String> {
        let cond = self.or()?;
        if !self.eat(&["?"]) {
            return Ok(cond);
        }
        self.nested(|p| {
            let then = p.ternary()?;
            p.expect(":")?;
            let other = p.ternary()?;
            Ok(Expr::Cond(Box::new(cond), Box::new(then), Box::new(other)))
        })
    }

    fn or(&mut self) -> Result<Expr, String> {
        self.chain(&["||"], Self::and, Expr::Or)
    }

    fn and(&mut self) -> Result<Expr, String> {
        self.chain(&["&&"], Self::equality, Expr::And)
    }

    /// Equality and relational operators do not chain in Perl (`a eq b eq c` is an error).
    fn equality(&mut self) -> Result<Expr, String> {
        let left = self.relational()?;
        match self.peek().and_then(cmp_op) {
            Some(op) if is_equality(op) => {
                self.pos += 1;
                let right = self.relational()?;
                Ok(Expr::Compare(op, Box::new(left), Box::new(right)))
            }
            _ => Ok(left),
        }
    }

    fn relational(&mut self) -> Result<Expr, String> {
        let left = self.concat()?;
        match self.peek().and_then(cmp_op) {
            Some(op) if !is_equality(op) => {
                self.pos += 1;
                let right = self.concat()?;
                Ok(Expr::Compare(op, Box::new(left), Box::new(right)))
            }
            _ => Ok(left),
        }
    }

    fn concat(&mut self) -> Result<Expr, String> {
        self.chain(&["."], Self::binding, Expr::Concat)
    }

    fn binding(&mut self) -> Result<Expr, String> {
        let left = self.unary()?;
        if !(self.is("=~") || self.is("!~")) {
            return Ok(left);
        }
        let negate = self.is("!~");
        self.pos += 1;
        let Some(Token::Regex(body, flags)) = self.next() else {
            return Err("expected a regular expression after =~ or !~".into());
        };
        let re = compile(&body, &flags)?;
        Ok(Expr::Match {
            expr: Box::new(left),
            re,
            negate,
        })
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat(&["!"]) {
            return self.nested(|p| Ok(Expr::Not(Box::new(p.unary()?))));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Token::Var(v)) => Ok(variable(v)),
            Some(Token::Env(k)) => Ok(Expr::Env(k)),
            Some(Token::Str(s)) => Ok(Expr::Lit(s)),
            Some(Token::Num(n)) => Ok(Expr::Lit(number(&n)?)),
            Some(Token::Interp(pieces)) => Ok(interpolation(pieces)),
            Some(Token::Op("(")) => self.nested(|p| {
                let e = p.low_or()?;
                p.expect(")")?;
                Ok(e)
            }),
            Some(Token::Word(w)) => self.function(&w),
            Some(t) => Err(format!("unexpected {}", describe(&t))),
            None => Err("unexpected end of the rule".into()),
        }
    }

    fn function(&mut self, name: &str) -> Result<Expr, String> {
        let func = match name {
            "inGroup" => {
                self.expect("(")?;
                let Some(Token::Str(g)) = self.next() else {
                    return Err("inGroup expects one quoted group name".into());
                };
                self.expect(")")?;
                return Ok(Expr::InGroup(g));
            }
            "has2f" => {
                self.expect("(")?;
                if self.eat(&[")"]) {
                    return Ok(Expr::Has2f(None));
                }
                let Some(Token::Str(t)) = self.next() else {
                    return Err("has2f expects one quoted device type".into());
                };
                self.expect(")")?;
                return Ok(Expr::Has2f(Some(t)));
            }
            "date" => {
                self.expect("(")?;
                self.expect(")")?;
                return Ok(Expr::Date);
            }
            "lc" => Func::Lc,
            "uc" => Func::Uc,
            "lcfirst" => Func::Lcfirst,
            "ucfirst" => Func::Ucfirst,
            _ => return Err(format!("unknown word '{name}'")),
        };
        self.expect("(")?;
        self.nested(|p| {
            let arg = p.ternary()?;
            p.expect(")")?;
            Ok(Expr::Call(func, Box::new(arg)))
        })
    }
}

/// `$name`, with LemonLDAP::NG's rewriting of its special variables.
fn variable(name: String) -> Expr {
    match name.as_str() {
        "ip" => Expr::Env("REMOTE_ADDR".into()),
        "vhost" => Expr::Env("HTTP_HOST".into()),
        "date" => Expr::Date,
        _ => Expr::Var(name),
    }
}

fn interpolation(pieces: Vec<Piece>) -> Expr {
    let parts = pieces
        .into_iter()
        .map(|p| match p {
            Piece::Lit(s) => Expr::Lit(s),
            Piece::Var(v) => variable(v),
            Piece::Env(k) => Expr::Env(k),
        })
        .collect();
    Expr::Concat(parts)
}

/// A number literal as Perl prints it: `3.50` is `3.5`, `2.0` is `2`. A leading zero makes
/// Perl read octal, which this subset does not: refused.
fn number(text: &str) -> Result<String, String> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.len() > 1 && int.starts_with('0') {
        return Err(format!("number {text}: octal literals are not supported"));
    }
    let frac = frac.trim_end_matches('0');
    // Beyond 15 significant digits Perl prints a rounded or exponent form.
    if int.trim_start_matches('0').len() + frac.len() > 15 {
        return Err(format!("number {text}: too many digits"));
    }
    Ok(if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    })
}

fn is_equality(op: Cmp) -> bool {
    matches!(op, Cmp::StrEq | Cmp::StrNe | Cmp::NumEq | Cmp::NumNe)
}

fn cmp_op(t: &Token) -> Option<Cmp> {
    let s = match t {
        Token::Op(o) => *o,
        Token::Word(w) => w.as_str(),
        _ => return None,
    };
    Some(match s {
        "eq" => Cmp::StrEq,
        "ne" => Cmp::StrNe,
        "lt" => Cmp::StrLt,
        "gt" => Cmp::StrGt,
        "le" => Cmp::StrLe,
        "ge" => Cmp::StrGe,
        "==" => Cmp::NumEq,
        "!=" => Cmp::NumNe,
        "<" => Cmp::NumLt,
        ">" => Cmp::NumGt,
        "<=" => Cmp::NumLe,
        ">=" => Cmp::NumGe,
        _ => return None,
    })
}

/// Compiles a regular expression with Perl's `i`, `m`, `s`, `x` flags; others are refused.
fn compile(body: &str, flags: &str) -> Result<Regex, String> {
    let mut b = RegexBuilder::new(body);
    for f in flags.chars() {
        match f {
            'i' => b.case_insensitive(true),
            'm' => b.multi_line(true),
            's' => b.dot_matches_new_line(true),
            'x' => b.ignore_whitespace(true),
            _ => return Err(format!("unsupported regular-expression flag '{f}'")),
        };
    }
    b.size_limit(1 << 20).nest_limit(64);
    b.build()
        .map_err(|e| format!("bad regular expression /{body}/: {e}"))
}

fn describe(t: &Token) -> String {
    match t {
        Token::Var(v) => format!("${v}"),
        Token::Str(s) => format!("string {s:?}"),
        Token::Interp(_) => "interpolating string".into(),
        Token::Env(k) => format!("$ENV{{{k}}}"),
        Token::Num(n) => format!("number {n}"),
        Token::Regex(r, _) => format!("regular expression /{r}/"),
        Token::Word(w) => format!("'{w}'"),
        Token::Op(o) => format!("'{o}'"),
    }
}
