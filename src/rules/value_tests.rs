//! Tests of value expressions (macros) and of `$ENV` in rules: the Debian default macros,
//! interpolation, precedence, Perl's `undef`, errors, and hostile input.
use super::{Env, Expression, Rule};
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

fn attrs(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn dwho() -> Map<String, Value> {
    attrs(json!({
        "uid": "dwho", "_user": "DWho", "_auth": "Demo", "cn": "Doctor Who",
        "mail": "dwho@badwolf.org", "empty": "", "zero": "0", "n": 7,
        "hGroups": {"Timelords": {"name": "Timelords"}}
    }))
}

fn env() -> Env {
    Env::from_request(
        [("User-Agent", "Tardis/1.0"), ("Host", "auth.example.com")],
        "10.1.2.3",
    )
}

/// The value of `src` for dwho with the request above.
fn val(src: &str) -> Option<String> {
    let e = Expression::parse(src).unwrap_or_else(|err| panic!("{src}: {err}"));
    e.value_at(&dwho(), &env(), 1_795_348_800)
}

fn check(table: &[(&str, &str)]) {
    for (src, want) in table {
        assert_eq!(val(src).as_deref(), Some(*want), "{src}");
    }
}

const WHAT_TO_TRACE: &str = "$_auth eq 'SAML' ? lc($_user.'@'.$_idpConfKey) : $_auth eq \
     'OpenIDConnect' ? lc($_user.'@'.$_oidc_OP) : lc($_user)";

#[test]
fn the_debian_default_macros() {
    assert_eq!(val("$ENV{HTTP_USER_AGENT}").as_deref(), Some("Tardis/1.0"));
    assert_eq!(val(WHAT_TO_TRACE).as_deref(), Some("dwho"));
    let e = Expression::parse(WHAT_TO_TRACE).unwrap();
    let mut saml = dwho();
    saml.insert("_auth".into(), json!("SAML"));
    saml.insert("_idpConfKey".into(), json!("IdP1"));
    assert_eq!(e.value(&saml, &env()).as_deref(), Some("dwho@idp1"));
    let mut oidc = dwho();
    oidc.insert("_auth".into(), json!("OpenIDConnect"));
    assert_eq!(
        e.value(&oidc, &env()).as_deref(),
        Some("dwho@"),
        "a missing attribute concatenates as empty"
    );
}

#[test]
fn strings_and_interpolation() {
    check(&[
        ("\"$uid\\@example.com\"", "dwho@example.com"),
        ("\"$cn <$mail>\"", "Doctor Who <dwho@badwolf.org>"),
        ("'$uid\\n'", "$uid\\n"),
        ("'it\\'s'", "it's"),
        ("\"a\\tb\\\"c\\$d\"", "a\tb\"c$d"),
        ("\"$uid.x\"", "dwho.x"),
        ("\"agent: $ENV{HTTP_USER_AGENT}\"", "agent: Tardis/1.0"),
        ("\"$missing-x\"", "-x"),
        ("\"@ \"", "@ "),
        ("$uid . '@' . 'x'", "dwho@x"),
        ("$n . ''", "7"),
        ("3.50 . '|' . 2.0 . '|' . 1_000", "3.5|2|1000"),
    ]);
}

#[test]
fn functions_and_operators() {
    check(&[
        ("uc($uid)", "DWHO"),
        ("lc('ÉTÉ')", "été"),
        ("ucfirst(lc($_user))", "Dwho"),
        ("lcfirst('ABC')", "aBC"),
        ("uc(lc(uc($cn)))", "DOCTOR WHO"),
        ("$uid eq 'dwho'", "1"),
        ("$uid eq 'x'", ""),
        ("$n > 5 && $n < 10", "1"),
        ("$empty || $zero || $uid", "dwho"),
        ("$uid && $cn", "Doctor Who"),
        ("$zero && $uid", "0"),
        ("$uid =~ /^d/ ? 'd' : 'other'", "d"),
        ("$n == 1 ? 'one' : $n == 7 ? 'seven' : 'many'", "seven"),
        ("($n == 1 ? 'a' : 'b') . 'c'", "bc"),
        ("!$empty", "1"),
        ("not $uid", ""),
        ("inGroup('timelords')", "1"),
        ("$ip", "10.1.2.3"),
        ("$vhost", "auth.example.com"),
        ("$date", "20261122120000"),
        ("$ENV{'REMOTE_ADDR'}", "10.1.2.3"),
        ("$env->{HTTP_HOST}", "auth.example.com"),
    ]);
}

#[test]
fn perl_precedence() {
    check(&[
        // `.` binds tighter than `eq`; `eq` tighter than `&&`; `||` tighter than `?:`.
        ("$uid . 'x' eq 'dwhox'", "1"),
        ("'' || 'a' ? 'yes' : 'no'", "yes"),
        // `not` is looser than `||`, `!` tighter than `eq`.
        ("not $empty || $uid", ""),
        ("!$uid eq ''", "1"),
        // `or`/`and` are the loosest.
        ("$empty or $uid and $cn", "Doctor Who"),
    ]);
}

#[test]
fn undefined_values_stay_undefined() {
    for src in [
        "$missing",
        "$ENV{HTTP_X_NONE}",
        "$empty || $missing",
        "0 ? 1 : $missing",
    ] {
        assert_eq!(val(src), None, "{src}");
    }
    let none = Expression::parse("$ENV{HTTP_USER_AGENT}").unwrap();
    assert_eq!(none.value(&dwho(), Env::empty()), None);
}

#[test]
fn env_in_boolean_rules() {
    let r = Rule::parse("$ENV{HTTP_USER_AGENT} =~ /tardis/i and $ip eq '10.1.2.3'").unwrap();
    assert!(r.eval_with(&dwho(), &env()));
    assert!(!r.eval(&dwho()), "no request: $ENV is empty");
    let other = Env::from_request([("User-Agent", "curl")], "10.1.2.3");
    assert!(!r.eval_with(&dwho(), &other));
}

#[test]
fn outside_the_subset_is_an_error() {
    for bad in [
        "",
        "encode_base64($uid)",
        "system('id')",
        "lc $uid",
        "lc()",
        "\"$uid@example.com\"",
        "\"$uid[0]\"",
        "\"$uid->{x}\"",
        "\"${uid}x\"",
        "\"\\x41\"",
        "\"\\u$uid\"",
        "$1",
        "$ENV{PATH}",
        "$ENV{http_user_agent}",
        "$ENV",
        "$env",
        "${ENV}",
        "$a ? 'b'",
        "$a ? 'b' : ",
        "$a eq 'b' eq 'c'",
        "$a < 1 < 2",
        "010",
        "1234567890123456",
        "$uid =~ s/a/b/",
        "$uid x 3",
        "$uid + 1",
        "$a = 'b'",
        "(split /@/, $mail)[0]",
        &"lc(".repeat(100),
        &"$a ? ".repeat(100),
    ] {
        assert!(Expression::parse(bad).is_err(), "{bad:?} should not parse");
    }
}

const PIECES: [&str; 24] = [
    "$uid",
    "$ENV{HTTP_HOST}",
    "\"a $uid b\"",
    "'x'",
    "1.5",
    ".",
    "?",
    ":",
    "lc(",
    "uc(",
    "(",
    ")",
    "eq",
    "==",
    "&&",
    "||",
    "!",
    "not",
    "and",
    "or",
    "=~",
    "/x/",
    "\"",
    "$",
];

#[test]
fn hostile_input_never_panics() {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut parsed = 0;
    for round in 0..20_000 {
        let n = 1 + next() % 10;
        let mut src = String::new();
        for _ in 0..n {
            if round % 4 == 0 {
                src.push(char::from_u32((next() % 0x2FF) as u32).unwrap_or('?'));
            } else {
                src.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
                src.push(' ');
            }
        }
        let t = Instant::now();
        if let Ok(e) = Expression::parse(&src) {
            parsed += 1;
            let _ = e.value(&dwho(), &env());
        }
        assert!(t.elapsed() < Duration::from_secs(5), "runaway on {src:?}");
    }
    assert!(
        parsed > 100,
        "the generator should produce valid expressions ({parsed})"
    );
    let wide = vec!["$uid"; 1000].join(" . ");
    assert_eq!(val(&wide).map(|v| v.len()), Some(4000));
}
