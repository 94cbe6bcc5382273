//! The rule language shared by access rules (`locationRules`), notification conditions and
//! the portal's `macros` and `groups`: a safe, compiled-once subset of the Perl expressions
//! LemonLDAP::NG configurations commonly use.
//!
//! `$attribute` (missing = undefined), `$ENV{HTTP_*}` and `$ENV{REMOTE_ADDR}` (request
//! variables; `$ip` and `$vhost` as LemonLDAP::NG rewrites them), single-quoted strings,
//! double-quoted strings with `$name` interpolation, numbers, `.`, `eq ne lt gt le ge`,
//! `== != < > <= >=`, `=~ /re/flags` and `!~`, `and or not && || !`, `c ? a : b`,
//! parentheses, `lc() uc() lcfirst() ucfirst()`, `inGroup("g")`, `has2f("T")`, `date()` (now as
//! `YYYYMMDDHHMMSS` UTC), and the words `accept` / `deny` for rules. A rule ([`Rule::parse`])
//! or a value expression ([`Expression::parse`]) is parsed once when the configuration loads;
//! evaluation walks a finite tree and cannot panic, loop or run code. This module knows
//! nothing of HTTP: callers hand it an [`Env`] built from plain values. `location` holds the
//! one rule set it knows by name, `locationRules` (per virtual host and path).
pub mod console;
mod env;
mod eval;
mod lexer;
pub mod location;
mod parser;

pub use env::Env;
/// Perl's numeric value of a string (what `+ 0` gives), for callers that type values.
pub use eval::number as perl_number;

use serde_json::{Map, Value};

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    body: Body,
}

#[derive(Debug, Clone)]
enum Body {
    Accept,
    Deny,
    Expr(parser::Expr),
}

impl Rule {
    /// Parses a rule. `accept` and `deny` are the constant rules; anything else is an
    /// expression. The error is a one-line reason, fit for a log next to the rule's key.
    pub fn parse(src: &str) -> Result<Rule, String> {
        let body = match src.trim() {
            "accept" => Body::Accept,
            "deny" => Body::Deny,
            "" => return Err("empty rule".into()),
            text => Body::Expr(parser::parse(&lexer::lex(text)?)?),
        };
        Ok(Rule { body })
    }

    /// The rule that is always true.
    pub fn accept() -> Rule {
        Rule { body: Body::Accept }
    }

    /// The rule that is always false.
    pub fn deny() -> Rule {
        Rule { body: Body::Deny }
    }

    /// Evaluates the rule against session attributes, `date()` being now.
    pub fn eval(&self, attrs: &Map<String, Value>) -> bool {
        self.eval_at(attrs, crate::util::now())
    }

    /// Evaluates the rule with `date()` at the given epoch (for tests and replays).
    pub fn eval_at(&self, attrs: &Map<String, Value>, epoch: i64) -> bool {
        self.eval_in(attrs, Env::empty(), epoch)
    }

    /// Evaluates the rule against session attributes and a request's variables (`$ENV{...}`),
    /// `date()` being now.
    pub fn eval_with(&self, attrs: &Map<String, Value>, env: &Env) -> bool {
        self.eval_in(attrs, env, crate::util::now())
    }

    /// Evaluates the rule with request variables and `date()` at the given epoch.
    pub fn eval_in(&self, attrs: &Map<String, Value>, env: &Env, epoch: i64) -> bool {
        match &self.body {
            Body::Accept => true,
            Body::Deny => false,
            Body::Expr(e) => eval::truth(e, &context(attrs, env, epoch)),
        }
    }
}

/// A compiled value expression (a macro): evaluates to a string, or to nothing where Perl
/// gives `undef` (a missing attribute passed through).
#[derive(Debug, Clone)]
pub struct Expression {
    expr: parser::Expr,
}

impl Expression {
    /// Parses an expression; the error is a one-line reason.
    pub fn parse(src: &str) -> Result<Expression, String> {
        match src.trim() {
            "" => Err("empty expression".into()),
            text => Ok(Expression {
                expr: parser::parse(&lexer::lex(text)?)?,
            }),
        }
    }

    /// The value against session attributes and request variables, `date()` being now.
    pub fn value(&self, attrs: &Map<String, Value>, env: &Env) -> Option<String> {
        self.value_at(attrs, env, crate::util::now())
    }

    /// The value with `date()` at the given epoch.
    pub fn value_at(&self, attrs: &Map<String, Value>, env: &Env, epoch: i64) -> Option<String> {
        eval::value(&self.expr, &context(attrs, env, epoch)).map(|v| v.into_owned())
    }
}

fn context<'a>(attrs: &'a Map<String, Value>, env: &'a Env, epoch: i64) -> eval::Context<'a> {
    eval::Context {
        attrs,
        env,
        date: crate::util::timestamp14(epoch),
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod value_tests;
