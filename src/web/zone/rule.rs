//! The POSIX `TZ` rule of a TZif footer (RFC 9636 section 3.3; POSIX.1 section 8.3), e.g.
//! `CET-1CEST,M3.5.0,M10.5.0/3`: a standard name and offset, and optionally a daylight name,
//! offset and the two changes of the year (`Mm.w.d`, `Jn` or `n`, each with an optional time,
//! which version 3 allows negative or beyond 24 h). Names may be quoted (`<+03>-3`). Offsets in
//! the rule count west of UTC; `LocalType` counts east, as TZif does.
use super::local::LocalType;

/// A parsed footer rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    std: LocalType,
    dst: Option<(LocalType, Change, Change)>,
}

/// A day of the year a change happens, and the local time (seconds) it happens at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    day: Day,
    secs: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Day {
    /// `Jn`: 1..=365, February 29 never counted.
    Julian(u16),
    /// `n`: 0..=365, February 29 counted.
    Zero(u16),
    /// `Mm.w.d`: month, week 1..=5 (5 the last), weekday 0 (Sunday)..=6.
    Month(u8, u8, u8),
}

impl Rule {
    /// Parses a rule; `None` when malformed.
    pub fn parse(s: &str) -> Option<Rule> {
        let mut p = Cursor(s);
        let std_name = p.name()?;
        let std_off = -p.offset()?;
        let std = LocalType {
            offset: std_off,
            abbr: std_name,
        };
        if p.0.is_empty() {
            return Some(Rule { std, dst: None });
        }
        let dst_name = p.name()?;
        let dst_off = match p.0.starts_with(',') {
            true => std_off + 3600,
            false => -p.offset()?,
        };
        let start = p.change()?;
        let end = p.change()?;
        let dst = LocalType {
            offset: dst_off,
            abbr: dst_name,
        };
        p.0.is_empty().then_some(Rule {
            std,
            dst: Some((dst, start, end)),
        })
    }

    /// The local time type the rule gives at `epoch`.
    pub fn at(&self, epoch: i64) -> LocalType {
        let Some((dst, start, end)) = &self.dst else {
            return self.std.clone();
        };
        let year = civil(epoch + i64::from(self.std.offset)).0;
        // Start is given in standard time, end in daylight time.
        let on = start.utc(year) - i64::from(self.std.offset);
        let off = end.utc(year) - i64::from(dst.offset);
        let in_dst = match on < off {
            true => on <= epoch && epoch < off,
            false => epoch < off || epoch >= on,
        };
        match in_dst {
            true => dst.clone(),
            false => self.std.clone(),
        }
    }
}

impl Change {
    /// The change of `year` as local seconds since the epoch (the zone's offset not applied).
    fn utc(&self, year: i64) -> i64 {
        let jan1 = days_from_civil(year, 1, 1);
        let day = match self.day {
            Day::Zero(n) => jan1 + i64::from(n),
            Day::Julian(n) => {
                let n = i64::from(n);
                jan1 + n - 1 + i64::from(is_leap(year) && n >= 60)
            }
            Day::Month(m, w, d) => {
                let first = days_from_civil(year, i64::from(m), 1);
                let weekday = (first + 4).rem_euclid(7);
                let mut day =
                    first + (i64::from(d) - weekday).rem_euclid(7) + 7 * (i64::from(w) - 1);
                let next = days_from_civil(year + i64::from(m == 12), i64::from(m % 12) + 1, 1);
                while day >= next {
                    day -= 7;
                }
                day
            }
        };
        day * 86_400 + self.secs
    }
}

/// What is left of the rule to read.
struct Cursor<'a>(&'a str);

impl Cursor<'_> {
    /// A zone name: three or more letters, or `<...>` of letters, digits, `+` and `-`.
    fn name(&mut self) -> Option<String> {
        let (name, rest) = match self.0.strip_prefix('<') {
            Some(q) => {
                let end = q.find('>')?;
                let ok = q[..end]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-');
                ok.then_some((&q[..end], &q[end + 1..]))?
            }
            None => {
                let end = self
                    .0
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(self.0.len());
                self.0.split_at(end)
            }
        };
        self.0 = rest;
        (name.len() >= 3).then(|| name.to_string())
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, hours at most 167 (version 3's times).
    fn offset(&mut self) -> Option<i32> {
        let sign = match self.0.as_bytes().first() {
            Some(b'-') => -1,
            Some(b'+') => 1,
            _ => 0,
        };
        if sign != 0 {
            self.0 = &self.0[1..];
        }
        let mut secs = 0i32;
        for (i, unit) in [3600, 60, 1].into_iter().enumerate() {
            if i > 0 {
                match self.0.strip_prefix(':') {
                    Some(r) => self.0 = r,
                    None => break,
                }
            }
            let n = self.number(if i == 0 { 167 } else { 59 })?;
            secs += n as i32 * unit;
        }
        Some(if sign < 0 { -secs } else { secs })
    }

    /// `,date[/time]`.
    fn change(&mut self) -> Option<Change> {
        self.0 = self.0.strip_prefix(',')?;
        let day = if let Some(r) = self.0.strip_prefix('M') {
            self.0 = r;
            let m = self.number(12)?;
            self.0 = self.0.strip_prefix('.')?;
            let w = self.number(5)?;
            self.0 = self.0.strip_prefix('.')?;
            let d = self.number(6)?;
            (m >= 1 && w >= 1).then_some(Day::Month(m as u8, w as u8, d as u8))?
        } else if let Some(r) = self.0.strip_prefix('J') {
            self.0 = r;
            let n = self.number(365)?;
            (n >= 1).then_some(Day::Julian(n as u16))?
        } else {
            Day::Zero(self.number(365)? as u16)
        };
        let secs = match self.0.strip_prefix('/') {
            Some(r) => {
                self.0 = r;
                i64::from(self.offset()?)
            }
            None => 7200,
        };
        Some(Change { day, secs })
    }

    /// A decimal number at most `max`.
    fn number(&mut self, max: u32) -> Option<u32> {
        let end = self
            .0
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.0.len());
        if end == 0 || end > 3 {
            return None;
        }
        let n: u32 = self.0[..end].parse().ok()?;
        self.0 = &self.0[end..];
        (n <= max).then_some(n)
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days since 1970-01-01 of a civil date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let m = u32::try_from(m).unwrap_or(1);
    crate::util::days_from_civil(y, m, 1) + d - 1
}

/// The civil year, month and day of an epoch.
pub fn civil(epoch: i64) -> (i64, i64, i64) {
    let (y, m, d) = crate::util::civil_from_days(epoch.div_euclid(86_400));
    (y, i64::from(m), i64::from(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(r: &Rule, t: i64) -> (i32, String) {
        let l = r.at(t);
        (l.offset, l.abbr)
    }

    #[test]
    fn europe_changes_on_the_last_sundays() {
        let r = Rule::parse("CET-1CEST,M3.5.0,M10.5.0/3").expect("a rule");
        // 2026-03-29 01:00 UTC is the change (02:00 CET).
        assert_eq!(at(&r, 1_774_746_000 - 1), (3600, "CET".into()));
        assert_eq!(at(&r, 1_774_746_000), (7200, "CEST".into()));
        // 2026-10-25 01:00 UTC is the way back (03:00 CEST).
        assert_eq!(at(&r, 1_792_890_000 - 1), (7200, "CEST".into()));
        assert_eq!(at(&r, 1_792_890_000), (3600, "CET".into()));
    }

    #[test]
    fn southern_rules_and_quoted_names_and_fixed_zones() {
        // Sydney: daylight from the first Sunday of October to the first Sunday of April.
        let r = Rule::parse("AEST-10AEDT,M10.1.0,M4.1.0/3").expect("a rule");
        assert_eq!(at(&r, 1_767_268_800), (39_600, "AEDT".into()), "2026-01-01");
        assert_eq!(at(&r, 1_782_907_200), (36_000, "AEST".into()), "2026-07-01");
        let r = Rule::parse("<+03>-3").expect("a fixed rule");
        assert_eq!(at(&r, 0), (10_800, "+03".into()));
        let r = Rule::parse("EST5EDT,J60/2,300").expect("a Julian rule");
        assert_eq!(at(&r, 1_782_907_200), (-14_400, "EDT".into()));
        assert_eq!(at(&r, 1_767_268_800), (-18_000, "EST".into()));
    }

    #[test]
    fn malformed_rules_are_refused() {
        for bad in [
            "",
            "C-1",
            "CET",
            "CET-1CEST,M3.5.0",
            "CET-1CEST,M0.5.0,M10.5.0",
            "CET-1CEST,M3.6.0,M10.5.0",
            "<+03-3",
            "CET-1CEST,M3.5.0,M10.5.0/3x",
            "CET-1000",
        ] {
            assert!(Rule::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(951_782_400), (2000, 2, 29));
        assert_eq!(days_from_civil(2000, 2, 29) * 86_400, 951_782_400);
        assert_eq!(civil(-86_400), (1969, 12, 31));
    }
}
