//! Builds the expression tree from tokens (recursive descent, depth-bounded). Precedence,
//! lowest first: `or`/`||`, `and`/`&&`, `not`/`!`, comparisons and matches, then primaries
//! (literals, `$attribute`, `inGroup("g")`, `date()`, parentheses). Regular expressions are
//! compiled here, once, with size limits.
use super::lexer::Token;
use regex_lite::{Regex, RegexBuilder};

/// Deepest nesting of parentheses and unary operators accepted: keeps recursion bounded.
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

/// A compiled expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// A string or number literal.
    Lit(String),
    /// A session attribute (missing = empty string).
    Var(String),
    Not(Box<Expr>),
    /// All true (a flat list: long chains cost no recursion depth).
    And(Vec<Expr>),
    /// Any true.
    Or(Vec<Expr>),
    Compare(Cmp, Box<Expr>, Box<Expr>),
    /// `expr =~ re` (or `!~` when `negate`).
    Match {
        expr: Box<Expr>,
        re: Regex,
        negate: bool,
    },
    /// `inGroup("name")`.
    InGroup(String),
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
    let e = p.or()?;
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

    fn deeper(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("expression nested too deeply".into());
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut terms = vec![self.and()?];
        while self.is("or") || self.is("||") {
            self.pos += 1;
            terms.push(self.and()?);
        }
        Ok(if terms.len() == 1 {
            terms.swap_remove(0)
        } else {
            Expr::Or(terms)
        })
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut terms = vec![self.not()?];
        while self.is("and") || self.is("&&") {
            self.pos += 1;
            terms.push(self.not()?);
        }
        Ok(if terms.len() == 1 {
            terms.swap_remove(0)
        } else {
            Expr::And(terms)
        })
    }

    fn not(&mut self) -> Result<Expr, String> {
        if self.is("not") || self.is("!") {
            self.pos += 1;
            self.deeper()?;
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, String> {
        let left = self.primary()?;
        if self.is("=~") || self.is("!~") {
            let negate = self.is("!~");
            self.pos += 1;
            let Some(Token::Regex(body, flags)) = self.next() else {
                return Err("expected a regular expression after =~ or !~".into());
            };
            let re = compile(&body, &flags)?;
            return Ok(Expr::Match {
                expr: Box::new(left),
                re,
                negate,
            });
        }
        let Some(op) = self.peek().and_then(cmp_op) else {
            return Ok(left);
        };
        self.pos += 1;
        let right = self.primary()?;
        Ok(Expr::Compare(op, Box::new(left), Box::new(right)))
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Token::Var(v)) => Ok(Expr::Var(v)),
            Some(Token::Str(s)) | Some(Token::Num(s)) => Ok(Expr::Lit(s)),
            Some(Token::Op("(")) => {
                self.deeper()?;
                let e = self.or()?;
                self.depth -= 1;
                self.expect(")")?;
                Ok(e)
            }
            Some(Token::Word(w)) => self.function(&w),
            Some(t) => Err(format!("unexpected {}", describe(&t))),
            None => Err("unexpected end of the rule".into()),
        }
    }

    fn function(&mut self, name: &str) -> Result<Expr, String> {
        match name {
            "inGroup" => {
                self.expect("(")?;
                let Some(Token::Str(g)) = self.next() else {
                    return Err("inGroup expects one quoted group name".into());
                };
                self.expect(")")?;
                Ok(Expr::InGroup(g))
            }
            "date" => {
                self.expect("(")?;
                self.expect(")")?;
                Ok(Expr::Date)
            }
            _ => Err(format!("unknown word '{name}'")),
        }
    }
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
        Token::Num(n) => format!("number {n}"),
        Token::Regex(r, _) => format!("regular expression /{r}/"),
        Token::Word(w) => format!("'{w}'"),
        Token::Op(o) => format!("'{o}'"),
    }
}
