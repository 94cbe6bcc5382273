//! The rule language shared by access rules (`locationRules`) and notification conditions: a
//! safe, compiled-once subset of the Perl expressions LemonLDAP::NG rules commonly use.
//!
//! `$attribute` (missing = empty string), string and number literals, `eq ne lt gt le ge`,
//! `== != < > <= >=`, `=~ /re/flags` and `!~`, `and or not && || !`, parentheses,
//! `inGroup("g")`, `date()` (now as `YYYYMMDDHHMMSS` UTC), and the words `accept` / `deny`.
//! A rule is parsed once ([`Rule::parse`]) when the configuration loads; evaluation
//! ([`Rule::eval`]) walks a finite tree and cannot panic, loop or run code. This module knows
//! nothing of HTTP or of what a rule protects; `sessions` and `notifications` decide that.
mod eval;
mod lexer;
mod parser;

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
        match &self.body {
            Body::Accept => true,
            Body::Deny => false,
            Body::Expr(e) => {
                let ctx = eval::Context {
                    attrs,
                    date: crate::util::timestamp14(epoch),
                };
                eval::truth(e, &ctx)
            }
        }
    }
}

#[cfg(test)]
mod tests;
