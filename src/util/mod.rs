//! Small pure helpers used everywhere: randomness from the OS, time, constant-time comparison,
//! percent-encoding, HTML escaping. Nothing here knows about HTTP requests or storage.
pub mod sort;

use std::io::Read;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds added to the system clock: always zero, except when the test-suite moves time
/// forward through its debug route (`/__test/clock`, `LIMETTE_TEST_HOOKS=1`), so that every
/// expiry (sessions, form tokens, codes, pending logins) is testable without waiting.
static CLOCK_SKEW: AtomicI64 = AtomicI64::new(0);

/// `n` random bytes from the OS random source. The source is opened once per process: every
/// login and token needs a few ids, and an open and close for each was a third of the system
/// calls of a token request.
pub fn random_bytes(n: usize) -> Vec<u8> {
    static SOURCE: OnceLock<std::io::Result<std::fs::File>> = OnceLock::new();
    let mut buf = vec![0u8; n];
    let source = SOURCE.get_or_init(|| std::fs::File::open("/dev/urandom"));
    // `&File` reads without a lock of ours: each read of the device is independent.
    let ok = match source {
        Ok(f) => {
            let mut reader: &std::fs::File = f;
            reader.read_exact(&mut buf).is_ok()
        }
        Err(_) => false,
    };
    if !ok {
        // The OS source is always there on Linux; falling back to a weak value would be a
        // silent security hole, so refuse to continue instead.
        eprintln!("fatal: cannot read /dev/urandom");
        std::process::exit(70);
    }
    buf
}

/// `n` random bytes as lowercase hex (`2n` characters).
pub fn random_hex(n: usize) -> String {
    hex(&random_bytes(n))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Seconds since the epoch (plus the test skew, see [`advance_clock`]).
pub fn now() -> i64 {
    let system = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    system.saturating_add(CLOCK_SKEW.load(Ordering::Relaxed))
}

/// Moves [`now`] forward by `secs` seconds for the rest of the process; returns the total skew.
/// Only the test hooks call it.
pub fn advance_clock(secs: i64) -> i64 {
    CLOCK_SKEW.fetch_add(secs, Ordering::Relaxed) + secs
}

/// Milliseconds since the epoch.
pub fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// Civil date (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days since 1970-01-01 of a civil date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 } as i64;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYYMMDDHHMMSS` (UTC) of an epoch, LemonLDAP::NG's `_startTime` format.
pub fn timestamp14(epoch: i64) -> String {
    let (y, mo, d) = civil_from_days(epoch.div_euclid(86_400));
    let s = epoch.rem_euclid(86_400);
    format!(
        "{y:04}{mo:02}{d:02}{:02}{:02}{:02}",
        s / 3600,
        (s / 60) % 60,
        s % 60
    )
}

/// `YYYY-MM-DD` (UTC) of an epoch.
pub fn date10(epoch: i64) -> String {
    let (y, mo, d) = civil_from_days(epoch.div_euclid(86_400));
    format!("{y:04}-{mo:02}-{d:02}")
}

/// An HTTP date (RFC 7231 IMF-fixdate) of an epoch.
pub fn http_date(epoch: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = epoch.div_euclid(86_400);
    let (y, mo, d) = civil_from_days(days);
    let s = epoch.rem_euclid(86_400);
    format!(
        "{}, {d:02} {} {y:04} {:02}:{:02}:{:02} GMT",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(mo as usize).saturating_sub(1) % 12],
        s / 3600,
        (s / 60) % 60,
        s % 60
    )
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    diff == 0
}

/// Decodes `application/x-www-form-urlencoded` text (`+` is a space). Invalid escapes are kept
/// literally; invalid UTF-8 is replaced, never a panic.
pub fn url_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes a path segment: `%XX` escapes only (`+` stays a plus).
pub fn url_decode_path(s: &str) -> String {
    url_decode(&s.replace('+', "%2B"))
}

/// Client credentials in Basic authentication are form-encoded (RFC 6749 2.3.1).
pub fn url_decode_basic(s: &str) -> String {
    url_decode(s)
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Parses `a=1&b=2` into decoded pairs, in order.
pub fn parse_urlencoded(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (url_decode(k), url_decode(v)),
            None => (url_decode(p), String::new()),
        })
        .collect()
}

/// Escapes `& < > " '` as HTML and XML both read them. The pages do not use it (their
/// templates escape every value); XML does: the SOAP Fault and the old notification format.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// True for a safe identifier usable as a file name: 1-128 of `[A-Za-z0-9_.-]`, not starting
/// with a dot. Every id that reaches a file path goes through this.
pub fn is_safe_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && !s.starts_with('.')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// An SQL identifier Limette puts in a statement unquoted (a table name from the settings):
/// letters, digits and `_`, not starting with a digit, at most 63 bytes (PostgreSQL's limit).
pub fn is_sql_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && !s.as_bytes()[0].is_ascii_digit()
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `YYYY-MM-DD` with an optional time part cut off; `None` for an impossible date.
pub fn parse_date(s: &str) -> Option<String> {
    let d = s.trim();
    let d = d.split([' ', 'T']).next().unwrap_or(d);
    let b = d.as_bytes();
    // Indexing is bounded: the length is checked first (`||` short-circuits).
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| {
        d.get(r)
            .filter(|p| p.bytes().all(|c| c.is_ascii_digit()))?
            .parse::<u32>()
            .ok()
    };
    let (y, m, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || day == 0 {
        return None;
    }
    // Round-trip through the day count: 2023-02-29 comes back as 03-01 and is refused.
    let (y2, m2, d2) = civil_from_days(days_from_civil(y as i64, m, day));
    (y2 == y as i64 && m2 == m && d2 == day).then(|| d.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(timestamp14(0), "19700101000000");
        assert_eq!(timestamp14(1_795_313_127), "20261122020527");
        assert_eq!(date10(1_704_067_200), "2024-01-01");
        assert_eq!(days_from_civil(2024, 1, 1), 19_723);
        assert_eq!(http_date(1_445_385_600), "Wed, 21 Oct 2015 00:00:00 GMT");
        for d in [-1000i64, 0, 59, 60, 365, 11_016, 19_723, 60_000] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
    }

    #[test]
    fn url_decoding_never_panics() {
        assert_eq!(url_decode("a+b%20c"), "a b c");
        assert_eq!(url_decode("%"), "%");
        assert_eq!(url_decode("%4"), "%4");
        assert_eq!(url_decode("%zz"), "%zz");
        assert_eq!(url_decode("%41"), "A");
        assert_eq!(url_decode("%ff"), "\u{fffd}");
        assert_eq!(
            parse_urlencoded("a=1&b&=c&&d=%3D"),
            vec![
                ("a".into(), "1".into()),
                ("b".into(), "".into()),
                ("".into(), "c".into()),
                ("d".into(), "=".into())
            ]
        );
    }

    #[test]
    fn ids_and_escaping() {
        assert!(is_safe_id("abc-1_2.json"));
        assert!(!is_safe_id("../etc"));
        assert!(!is_safe_id("a/b"));
        assert!(!is_safe_id(""));
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"ab"));
        assert_eq!(
            html_escape("<b a=\"x\">&'"),
            "&lt;b a=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(url_encode("a b/é"), "a%20b%2F%C3%A9");
    }
}
