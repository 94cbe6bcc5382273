//! Table tests for every operator and a randomized test over arbitrary input.
use super::Rule;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

fn attrs() -> Map<String, Value> {
    let v = json!({
        "uid": "dwho", "cn": "Doctor Who", "mail": "dwho@badwolf.org", "level": "10",
        "num": 7, "zero": "0", "empty": "", "flag": true,
        "groups": "timelords; earthlings", "hGroups": {"admins": {"name": "admins"}}
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// 2026-11-22 12:00:00 UTC.
const NOW: i64 = 1_795_348_800;

fn check(table: &[(&str, bool)]) {
    let a = attrs();
    for (src, want) in table {
        let rule = Rule::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(rule.eval_at(&a, NOW), *want, "{src}");
    }
}

#[test]
fn constants_and_truth() {
    check(&[
        ("accept", true),
        ("deny", false),
        ("1", true),
        ("0", false),
        ("''", false),
        ("'0'", false),
        ("'a'", true),
        ("$uid", true),
        ("$zero", false),
        ("$empty", false),
        ("$missing", false),
        ("$flag", true),
        ("${uid}", true),
    ]);
    assert!(Rule::accept().eval(&Map::new()));
    assert!(!Rule::deny().eval(&Map::new()));
}

#[test]
fn string_comparisons() {
    check(&[
        ("$uid eq 'dwho'", true),
        ("$uid eq \"rtyler\"", false),
        ("$uid ne 'rtyler'", true),
        ("$uid ne 'dwho'", false),
        ("$uid lt 'e'", true),
        ("$uid gt 'e'", false),
        ("$uid le 'dwho'", true),
        ("$uid ge 'dwhp'", false),
        ("$missing eq ''", true),
        ("$num eq '7'", true),
        ("'10' lt '9'", true),
    ]);
}

#[test]
fn numeric_comparisons() {
    check(&[
        ("$level == 10", true),
        ("$level != 10", false),
        ("$level < 9", false),
        ("$level > 9", true),
        ("$level <= 10", true),
        ("$level >= 11", false),
        ("$num == 7.0", true),
        ("$missing == 0", true),
        ("'12abc' == 12", true),
        ("'abc' == 0", true),
        ("'-3' < 0", true),
        ("10 > 9", true),
    ]);
}

#[test]
fn regular_expressions() {
    check(&[
        ("$mail =~ /@badwolf\\.org$/", true),
        ("$mail =~ /@BADWOLF/", false),
        ("$mail =~ /@BADWOLF/i", true),
        ("$mail !~ /@badwolf/", false),
        ("$mail !~ /tardis/", true),
        ("$uid =~ m{^dw}", true),
        ("$uid =~ m#ho$#", true),
        ("$cn =~ /doctor\\swho/i", true),
        ("$missing =~ /^$/", true),
        ("$uid =~ /a\\/b/", false),
    ]);
}

#[test]
fn boolean_operators_and_precedence() {
    check(&[
        ("$uid eq 'dwho' and $cn eq 'Doctor Who'", true),
        ("$uid eq 'dwho' && $cn eq 'x'", false),
        ("$uid eq 'x' or $cn eq 'Doctor Who'", true),
        ("$uid eq 'x' || $cn eq 'y'", false),
        ("not $uid eq 'x'", true),
        ("! ($uid eq 'dwho')", false),
        ("!$missing", true),
        ("$uid eq 'x' or $uid eq 'dwho' and $cn eq 'y'", false),
        (
            "($uid eq 'x' or $uid eq 'dwho') and $cn eq 'Doctor Who'",
            true,
        ),
        ("not not $uid", true),
        ("((($uid eq 'dwho')))", true),
    ]);
}

#[test]
fn functions() {
    check(&[
        ("inGroup('timelords')", true),
        ("inGroup(\"earthlings\")", true),
        ("inGroup('admins')", true),
        ("inGroup('daleks')", false),
        ("inGroup('timelords') and $uid eq 'dwho'", true),
        ("date() gt '20260101000000'", true),
        ("date() lt '20261122120001'", true),
        ("date() eq '20261122120000'", true),
        ("date() ge '20270101000000'", false),
    ]);
}

#[test]
fn parse_errors() {
    for bad in [
        "",
        "   ",
        "$uid eq",
        "$uid eq 'a' 'b'",
        "(",
        "($uid",
        ")",
        "$uid =~ 'x'",
        "$uid =~ /(/",
        "$uid =~ /x/g",
        "system('rm -rf /')",
        "inGroup($uid)",
        "date(1)",
        "$uid ==",
        "and",
        "`ls`",
        "$a eq 'x';",
        &"(".repeat(200),
        &"!".repeat(200),
    ] {
        assert!(Rule::parse(bad).is_err(), "{bad:?} should not parse");
    }
}

/// xorshift64*: a tiny deterministic generator, so failures are reproducible.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: [&str; 40] = [
    "$uid",
    "$mail",
    "${cn}",
    "$x",
    "'dwho'",
    "\"a\\\"b\"",
    "10",
    "3.5",
    "eq",
    "ne",
    "lt",
    "gt",
    "le",
    "ge",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "=~",
    "!~",
    "/a.*b/i",
    "m{x}",
    "and",
    "or",
    "not",
    "&&",
    "||",
    "!",
    "(",
    ")",
    "inGroup(",
    "date()",
    ",",
    "/(/",
    "/",
    "'",
    "$",
    "é\u{0}",
];

#[test]
fn random_input_never_panics_and_stays_fast() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let a = attrs();
    let mut parsed = 0;
    for round in 0..20_000 {
        let n = 1 + rng.below(12);
        let mut src = String::new();
        for _ in 0..n {
            if round % 3 == 0 {
                // Raw characters, including multi-byte and control ones.
                let c = char::from_u32((rng.next() % 0x2FF) as u32).unwrap_or('?');
                src.push(c);
            } else {
                src.push_str(PIECES[rng.below(PIECES.len())]);
                src.push(' ');
            }
        }
        let t = Instant::now();
        if let Ok(rule) = Rule::parse(&src) {
            parsed += 1;
            let _ = rule.eval_at(&a, NOW);
        }
        // A guard against runaway (exponential) work, not a speed target: speed lives in
        // benchmarks. Generous so that a loaded machine cannot trip it.
        assert!(t.elapsed() < Duration::from_secs(5), "runaway on {src:?}");
    }
    assert!(
        parsed > 100,
        "the generator should produce valid rules too ({parsed})"
    );
}

#[test]
fn large_inputs_are_bounded() {
    let long = format!("{}$uid eq 'dwho'", "not ".repeat(50));
    assert!(Rule::parse(&long).is_ok());
    let wide = vec!["$uid eq 'x'"; 500].join(" or ");
    let t = Instant::now();
    let r = Rule::parse(&wide).unwrap();
    assert!(!r.eval_at(&attrs(), NOW));
    assert!(t.elapsed() < Duration::from_secs(5), "runaway work");
    assert!(Rule::parse(&"x".repeat(100_000)).is_err());
    // The longest chains that fit in a rule evaluate without deep recursion.
    for op in ["||", "&&"] {
        let chain = vec!["1"; 2700].join(op);
        assert!(Rule::parse(&chain).unwrap().eval_at(&attrs(), NOW), "{op}");
    }
    let heavy = Rule::parse("$uid =~ /(a+)+(b+)+(c+)+$/").unwrap();
    let mut m = attrs();
    m.insert("uid".into(), Value::String("a".repeat(5000)));
    assert!(!heavy.eval_at(&m, NOW));
}

#[test]
fn rules_are_shareable_between_threads() {
    fn shareable<T: Clone + std::fmt::Debug + Send + Sync + 'static>() {}
    shareable::<Rule>();
}
