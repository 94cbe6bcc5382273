//! The reader of a compiled time zone (TZif, RFC 9636): the transitions and the local time types
//! of the 64-bit block (version 2 and later; a version 1 file is read from its 32-bit block),
//! and the footer's rule (`rule::Rule`) for the instants after the last transition. It refuses
//! what it does not understand (a bad magic, counts beyond the data, a type index out of range)
//! rather than guess an offset, and a zone that counts leap seconds (`right/...`): the portal
//! shows civil time.
use super::local::LocalType;
use super::rule::Rule;

/// The largest TZif file read (the biggest shipped zones are a few kilobytes).
pub const MAX_FILE: usize = 256 * 1024;

/// A compiled zone: the local time type in force at any instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    /// Transition instants (ascending) and the index of the type that starts at each.
    transitions: Vec<(i64, usize)>,
    types: Vec<LocalType>,
    /// The footer's rule, for the instants after the last transition.
    rule: Option<Rule>,
}

impl Zone {
    /// Reads a TZif file; `None` when it is not one or is damaged.
    pub fn parse(data: &[u8]) -> Option<Zone> {
        let first = Header::read(data)?;
        if first.version == 0 {
            return Zone::block(data.get(44..)?, &first, 4);
        }
        let second_at = 44 + first.block_len(4);
        let second = Header::read(data.get(second_at..)?)?;
        // A zone counting leap seconds (`right/...`) is not civil time: refused, not shifted.
        if second.leapcnt > 0 {
            return None;
        }
        let body = data.get(second_at + 44..)?;
        let mut zone = Zone::block(body, &second, 8)?;
        let footer = body.get(second.block_len(8)..)?;
        zone.rule = footer_rule(footer)?;
        Some(zone)
    }

    /// The local time type in force at `epoch`.
    pub fn at(&self, epoch: i64) -> LocalType {
        let before_first = self.transitions.first().map_or(true, |t| epoch < t.0);
        let after_last = self.transitions.last().map_or(true, |t| epoch >= t.0);
        if after_last {
            if let Some(r) = &self.rule {
                return r.at(epoch);
            }
        }
        if before_first {
            return self.types.first().cloned().unwrap_or_else(utc);
        }
        // The index of the last transition at or before `epoch` (there is one: not before_first).
        let i = self.transitions.partition_point(|t| t.0 <= epoch) - 1;
        self.transitions
            .get(i)
            .and_then(|t| self.types.get(t.1))
            .cloned()
            .unwrap_or_else(utc)
    }

    /// The data block of `head` with `width`-byte transition times.
    fn block(body: &[u8], head: &Header, width: usize) -> Option<Zone> {
        let n = head.timecnt;
        let times = body.get(..n * width)?;
        let idx = body.get(n * width..n * (width + 1))?;
        let types_at = n * (width + 1);
        let infos = body.get(types_at..types_at + head.typecnt * 6)?;
        let chars_at = types_at + head.typecnt * 6;
        let chars = body.get(chars_at..chars_at + head.charcnt)?;
        let mut types = Vec::with_capacity(head.typecnt);
        for info in infos.chunks_exact(6) {
            let offset = i32::from_be_bytes([info[0], info[1], info[2], info[3]]);
            let abbr = chars.get(usize::from(info[5])..)?;
            let end = abbr.iter().position(|&b| b == 0)?;
            let abbr = String::from_utf8(abbr[..end].to_vec()).ok()?;
            types.push(LocalType { offset, abbr });
        }
        let mut transitions = Vec::with_capacity(n);
        for (t, &i) in times.chunks_exact(width).zip(idx) {
            let at = match width {
                4 => i64::from(i32::from_be_bytes([t[0], t[1], t[2], t[3]])),
                _ => i64::from_be_bytes([t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]]),
            };
            if usize::from(i) >= types.len()
                || transitions.last().is_some_and(|p: &(i64, usize)| p.0 >= at)
            {
                return None;
            }
            transitions.push((at, usize::from(i)));
        }
        Some(Zone {
            transitions,
            types,
            rule: None,
        })
    }
}

/// UTC's own type (a damaged zone never reaches a page; this stands for "none").
fn utc() -> LocalType {
    LocalType {
        offset: 0,
        abbr: "UTC".into(),
    }
}

/// The footer `\n<rule>\n`: `Some(None)` when empty, `None` when malformed.
fn footer_rule(footer: &[u8]) -> Option<Option<Rule>> {
    let text = std::str::from_utf8(footer).ok()?;
    let inner = text.strip_prefix('\n')?;
    let line = &inner[..inner.find('\n')?];
    match line.is_empty() {
        true => Some(None),
        false => Rule::parse(line).map(Some),
    }
}

/// A TZif header's version and counts.
struct Header {
    version: u8,
    isutcnt: usize,
    isstdcnt: usize,
    leapcnt: usize,
    timecnt: usize,
    typecnt: usize,
    charcnt: usize,
}

impl Header {
    fn read(data: &[u8]) -> Option<Header> {
        let head = data.get(..44)?;
        if &head[..4] != b"TZif" {
            return None;
        }
        let count = |i: usize| {
            let b = &head[20 + 4 * i..24 + 4 * i];
            usize::try_from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])).ok()
        };
        let h = Header {
            version: head[4],
            isutcnt: count(0)?,
            isstdcnt: count(1)?,
            leapcnt: count(2)?,
            timecnt: count(3)?,
            typecnt: count(4)?,
            charcnt: count(5)?,
        };
        // RFC 9636 section 3.1: at least one type; the counts fit the file's size.
        let fits = h.typecnt > 0 && h.block_len(8) <= MAX_FILE;
        fits.then_some(h)
    }

    /// The length of the data block with `width`-byte times.
    fn block_len(&self, width: usize) -> usize {
        self.timecnt * (width + 1)
            + self.typecnt * 6
            + self.charcnt
            + self.leapcnt * (width + 4)
            + self.isstdcnt
            + self.isutcnt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version 2 file: two 64-bit transitions, CET/CEST, and `footer`.
    pub fn sample(footer: &str) -> Vec<u8> {
        let types: [(i32, u8, u8); 2] = [(3600, 0, 0), (7200, 1, 4)];
        let chars = b"CET\0CEST\0";
        // 2024-03-31 01:00 UTC (to CEST), 2024-10-27 01:00 UTC (to CET).
        let times: [i64; 2] = [1_711_846_800, 1_729_990_800];
        let head = |v: u8, timecnt: u32| {
            let mut h = b"TZif".to_vec();
            h.push(v);
            h.extend([0u8; 15]);
            for c in [0u32, 0, 0, timecnt, 2, chars.len() as u32] {
                h.extend(c.to_be_bytes());
            }
            h
        };
        let mut f = head(b'2', 0);
        for (off, dst, idx) in types {
            f.extend(off.to_be_bytes());
            f.extend([dst, idx]);
        }
        f.extend(chars);
        f.extend(head(b'2', 2));
        for t in times {
            f.extend(t.to_be_bytes());
        }
        f.extend([1u8, 0]);
        for (off, dst, idx) in types {
            f.extend(off.to_be_bytes());
            f.extend([dst, idx]);
        }
        f.extend(chars);
        f.extend(format!("\n{footer}\n").bytes());
        f
    }

    fn at(z: &Zone, t: i64) -> (i32, String) {
        let l = z.at(t);
        (l.offset, l.abbr)
    }

    #[test]
    fn the_transitions_give_the_offset_either_side() {
        let z = Zone::parse(&sample("")).expect("a TZif file");
        assert_eq!(at(&z, 1_711_846_799), (3600, "CET".into()));
        assert_eq!(at(&z, 1_711_846_800), (7200, "CEST".into()));
        assert_eq!(at(&z, 1_729_990_799), (7200, "CEST".into()));
        assert_eq!(at(&z, 1_729_990_800), (3600, "CET".into()));
        // Before the first transition: the first type.
        assert_eq!(at(&z, 0), (3600, "CET".into()));
    }

    #[test]
    fn the_footer_rule_follows_the_last_transition() {
        let z = Zone::parse(&sample("CET-1CEST,M3.5.0,M10.5.0/3")).expect("a TZif file");
        // 2030-07-01 12:00 UTC: summer; 2030-01-15 12:00 UTC: winter.
        assert_eq!(at(&z, 1_909_137_600), (7200, "CEST".into()));
        assert_eq!(at(&z, 1_894_536_000), (3600, "CET".into()));
    }

    #[test]
    fn damaged_files_are_refused() {
        let good = sample("CET-1CEST,M3.5.0,M10.5.0/3");
        assert!(Zone::parse(b"TZxf").is_none());
        assert!(Zone::parse(&good[..60]).is_none());
        assert!(
            Zone::parse(&good[..good.len() - 1]).is_none(),
            "no footer end"
        );
        let mut bad_index = good.clone();
        // The second block's first type index (after its header and two 8-byte times).
        let at = 44 + 2 * 6 + 9 + 44 + 16;
        bad_index[at] = 7;
        assert!(Zone::parse(&bad_index).is_none());
        let mut bad_rule = sample("CET-1CEST,M13.5.0,M10.5.0/3");
        assert!(Zone::parse(&bad_rule).is_none());
        bad_rule.truncate(10);
        assert!(Zone::parse(&bad_rule).is_none());
    }

    #[test]
    fn zones_counting_leap_seconds_are_refused() {
        let mut f = sample("");
        // The second header's leapcnt (third count), one record of 12 bytes before the footer.
        let second = 44 + 2 * 6 + 9;
        f[second + 28..second + 32].copy_from_slice(&1u32.to_be_bytes());
        let footer = f.len() - 2;
        f.splice(footer..footer, [0u8; 12]);
        assert!(Zone::parse(&f).is_none());
    }

    #[test]
    fn the_system_zone_of_paris_reads() {
        let data =
            std::fs::read("/usr/share/zoneinfo/Europe/Paris").expect("the test machine's zones");
        let z = Zone::parse(&data).expect("the system's Paris zone");
        assert_eq!(at(&z, 1_719_835_200), (7200, "CEST".into()), "2024-07-01");
        assert_eq!(at(&z, 1_704_110_400), (3600, "CET".into()), "2024-01-01");
        assert_eq!(at(&z, 4_102_444_800), (3600, "CET".into()), "2100-01-01");
        assert_eq!(at(&z, 4_118_083_200), (7200, "CEST".into()), "2100-07-01");
    }
}
