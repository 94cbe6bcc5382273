//! Evaluates a compiled expression against a session's attributes and a request's
//! environment, with Perl's meaning of values: everything is a string or undefined (a missing
//! attribute), `""` and `"0"` are false, numeric operators read the leading number of a string
//! (0 when there is none), `&&`/`||` give the deciding operand itself. Evaluation walks a
//! finite tree once: it cannot loop, and regular-expression matching is linear in regex-lite.
use super::parser::{Cmp, Expr, Func};
use super::Env;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// What an evaluation sees: the attributes, the request variables and the `date()` of now.
pub struct Context<'a> {
    pub attrs: &'a Map<String, Value>,
    pub env: &'a Env,
    pub date: String,
}

/// The truth of `e` in `ctx`.
pub fn truth(e: &Expr, ctx: &Context) -> bool {
    match e {
        Expr::Not(x) => !truth(x, ctx),
        Expr::And(terms) => terms.iter().all(|t| truth(t, ctx)),
        Expr::Or(terms) => terms.iter().any(|t| truth(t, ctx)),
        Expr::Compare(op, a, b) => compare(*op, &text(a, ctx), &text(b, ctx)),
        Expr::Match { expr, re, negate } => re.is_match(&text(expr, ctx)) != *negate,
        Expr::InGroup(g) => in_group(ctx.attrs, g),
        Expr::Has2f(t) => has2f(ctx.attrs, t.as_deref()),
        Expr::Cond(c, a, b) => {
            if truth(c, ctx) {
                truth(a, ctx)
            } else {
                truth(b, ctx)
            }
        }
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::Env(_)
        | Expr::Date
        | Expr::Concat(_)
        | Expr::Call(..) => perl_true(&text(e, ctx)),
    }
}

/// The value of `e` in `ctx`: `None` is Perl's `undef` (a missing attribute or request
/// variable, possibly passed on by `||`, `&&` or `?:`); booleans are `"1"` and `""`.
pub fn value<'a>(e: &'a Expr, ctx: &'a Context) -> Option<Cow<'a, str>> {
    match e {
        Expr::Lit(s) => Some(Cow::Borrowed(s.as_str())),
        Expr::Var(v) => attr_opt(ctx.attrs, v),
        Expr::Env(k) => ctx.env.get(k).map(Cow::Borrowed),
        Expr::Date => Some(Cow::Borrowed(ctx.date.as_str())),
        Expr::And(terms) => deciding(terms, ctx, false),
        Expr::Or(terms) => deciding(terms, ctx, true),
        Expr::Cond(c, a, b) => value(if truth(c, ctx) { a } else { b }, ctx),
        Expr::Concat(parts) => Some(Cow::Owned(
            parts.iter().map(|p| text(p, ctx)).collect::<String>(),
        )),
        Expr::Call(f, x) => Some(Cow::Owned(call(*f, &text(x, ctx)))),
        Expr::Not(_)
        | Expr::Compare(..)
        | Expr::Match { .. }
        | Expr::InGroup(_)
        | Expr::Has2f(_) => Some(Cow::Borrowed(if truth(e, ctx) { "1" } else { "" })),
    }
}

/// The value as a string, `undef` being empty (as Perl uses it in strings and comparisons).
fn text<'a>(e: &'a Expr, ctx: &'a Context) -> Cow<'a, str> {
    value(e, ctx).unwrap_or(Cow::Borrowed(""))
}

/// Perl's `||` (`want` true) and `&&` (`want` false): the first operand whose truth is `want`
/// decides and is the value; otherwise the last operand is.
fn deciding<'a>(terms: &'a [Expr], ctx: &'a Context, want: bool) -> Option<Cow<'a, str>> {
    let mut last = None;
    for t in terms {
        let v = value(t, ctx);
        if perl_true(v.as_deref().unwrap_or("")) == want {
            return v;
        }
        last = v;
    }
    last
}

fn call(f: Func, s: &str) -> String {
    match f {
        Func::Lc => s.to_lowercase(),
        Func::Uc => s.to_uppercase(),
        Func::Lcfirst | Func::Ucfirst => {
            let mut chars = s.chars();
            let Some(first) = chars.next() else {
                return String::new();
            };
            let mut out: String = if f == Func::Lcfirst {
                first.to_lowercase().collect()
            } else {
                first.to_uppercase().collect()
            };
            out.push_str(chars.as_str());
            out
        }
    }
}

/// An attribute as a string, `None` when missing or null (Perl's `undef`); numbers and
/// booleans as Perl prints them.
fn attr_opt<'a>(attrs: &'a Map<String, Value>, name: &str) -> Option<Cow<'a, str>> {
    match attrs.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Cow::Borrowed(s.as_str())),
        Some(Value::Bool(b)) => Some(Cow::Borrowed(if *b { "1" } else { "" })),
        Some(other) => Some(Cow::Owned(other.to_string())),
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

/// `has2f("T")`: the session's `_2fDevices` (a JSON text, or an array) holds a device whose
/// `type` is `T` ignoring case; `has2f()`: any device. A value that does not parse is no device
/// (LemonLDAP::NG's `has2f_internal`).
fn has2f(attrs: &Map<String, Value>, kind: Option<&str>) -> bool {
    let parsed;
    let list = match attrs.get("_2fDevices") {
        Some(Value::Array(a)) => a,
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => {
                parsed = a;
                &parsed
            }
            _ => return false,
        },
        _ => return false,
    };
    match kind {
        None => !list.is_empty(),
        Some(k) => list.iter().any(|d| {
            d.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case(k))
        }),
    }
}

/// `inGroup("g")`: LemonLDAP::NG rewrites it to `listMatch($hGroups, "g", 1)`, a
/// case-insensitive match of the keys of `hGroups`. Sessions written by other tools may carry
/// only `groups`: its `;`-separated list is read the same way.
fn in_group(attrs: &Map<String, Value>, g: &str) -> bool {
    let same = |x: &str| x == g || x.to_lowercase() == g.to_lowercase();
    if let Some(Value::Object(h)) = attrs.get("hGroups") {
        if h.keys().any(|k| same(k)) {
            return true;
        }
    }
    match attrs.get("groups") {
        Some(Value::String(s)) => s.split(';').any(|x| same(x.trim())),
        Some(Value::Array(a)) => a.iter().any(|x| x.as_str().is_some_and(same)),
        _ => false,
    }
}
