//! Evaluates a compiled expression against a session's attributes, with Perl's meaning of
//! values: everything is a string, `""` and `"0"` are false, numeric operators read the leading
//! number of a string (0 when there is none). Evaluation walks a finite tree once: it cannot
//! loop, and regular-expression matching is linear in regex-lite.
use super::parser::{Cmp, Expr};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// What an evaluation sees: the attributes and the `date()` of now.
pub struct Context<'a> {
    pub attrs: &'a Map<String, Value>,
    pub date: String,
}

/// The truth of `e` in `ctx`.
pub fn truth(e: &Expr, ctx: &Context) -> bool {
    match e {
        Expr::Not(x) => !truth(x, ctx),
        Expr::And(terms) => terms.iter().all(|t| truth(t, ctx)),
        Expr::Or(terms) => terms.iter().any(|t| truth(t, ctx)),
        Expr::Compare(op, a, b) => compare(*op, &value(a, ctx), &value(b, ctx)),
        Expr::Match { expr, re, negate } => re.is_match(&value(expr, ctx)) != *negate,
        Expr::InGroup(g) => in_group(ctx.attrs, g),
        Expr::Lit(_) | Expr::Var(_) | Expr::Date => perl_true(&value(e, ctx)),
    }
}

/// The string value of `e` in `ctx` (booleans are `"1"` and `""`, as in Perl).
fn value<'a>(e: &'a Expr, ctx: &'a Context) -> Cow<'a, str> {
    match e {
        Expr::Lit(s) => Cow::Borrowed(s.as_str()),
        Expr::Var(v) => attr(ctx.attrs, v),
        Expr::Date => Cow::Borrowed(ctx.date.as_str()),
        _ => Cow::Borrowed(if truth(e, ctx) { "1" } else { "" }),
    }
}

/// An attribute as a string: missing or null is empty, numbers and booleans as Perl prints them.
pub fn attr<'a>(attrs: &'a Map<String, Value>, name: &str) -> Cow<'a, str> {
    match attrs.get(name) {
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
        Some(Value::Bool(b)) => Cow::Borrowed(if *b { "1" } else { "" }),
        Some(other) => Cow::Owned(other.to_string()),
    }
}

fn perl_true(s: &str) -> bool {
    !s.is_empty() && s != "0"
}

fn compare(op: Cmp, a: &str, b: &str) -> bool {
    let (x, y) = (number(a), number(b));
    match op {
        Cmp::StrEq => a == b,
        Cmp::StrNe => a != b,
        Cmp::StrLt => a < b,
        Cmp::StrGt => a > b,
        Cmp::StrLe => a <= b,
        Cmp::StrGe => a >= b,
        Cmp::NumEq => x == y,
        Cmp::NumNe => x != y,
        Cmp::NumLt => x < y,
        Cmp::NumGt => x > y,
        Cmp::NumLe => x <= y,
        Cmp::NumGe => x >= y,
    }
}

/// Perl's numeric value of a string: the longest leading decimal number, else 0.
pub fn number(s: &str) -> f64 {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut end = 0;
    if matches!(b.first(), Some(b'+') | Some(b'-')) {
        end = 1;
    }
    let digits_start = end;
    while b.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    if b.get(end) == Some(&b'.') {
        end += 1;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    if end == digits_start {
        return 0.0;
    }
    t.get(..end).and_then(|n| n.parse().ok()).unwrap_or(0.0)
}

/// `inGroup("g")`: the `hGroups` hash has key `g`, or the `"; "`-joined `groups` lists it.
fn in_group(attrs: &Map<String, Value>, g: &str) -> bool {
    if let Some(Value::Object(h)) = attrs.get("hGroups") {
        if h.contains_key(g) {
            return true;
        }
    }
    match attrs.get("groups") {
        Some(Value::String(s)) => s.split(';').any(|x| x.trim() == g),
        Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(g)),
        _ => false,
    }
}
