//! The value types several INI sections share: address blocks (`IpRange`, the lists of them
//! the address rules, trusted proxies and the outbound allowance take) and durations in
//! seconds. It knows no key: the files that own the keys (`local`, `server`, `access`) parse
//! their values with these.
use std::net::IpAddr;
use std::time::Duration;

/// An address or a CIDR block (`10.0.0.0/8`, `::1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpRange {
    net: IpAddr,
    bits: u8,
}

impl IpRange {
    /// Parses `a.b.c.d`, `a.b.c.d/n`, an IPv6 address or an IPv6 block.
    pub fn parse(text: &str) -> Result<IpRange, String> {
        let bad = || format!("not an address or address/bits: {text}");
        let (addr, bits) = match text.split_once('/') {
            Some((a, b)) => (a, Some(b.parse::<u8>().map_err(|_| bad())?)),
            None => (text, None),
        };
        let net: IpAddr = addr.parse().map_err(|_| bad())?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let bits = bits.unwrap_or(max);
        if bits > max {
            return Err(bad());
        }
        Ok(IpRange { net, bits })
    }

    /// Whether `ip` lies in the block (an IPv4-mapped IPv6 peer counts as its IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
            v4 => v4,
        };
        match (self.net, ip) {
            (IpAddr::V4(n), IpAddr::V4(a)) => prefix_eq(&n.octets(), &a.octets(), self.bits),
            (IpAddr::V6(n), IpAddr::V6(a)) => prefix_eq(&n.octets(), &a.octets(), self.bits),
            _ => false,
        }
    }
}

fn prefix_eq(a: &[u8], b: &[u8], bits: u8) -> bool {
    let (whole, rest) = ((bits / 8) as usize, bits % 8);
    if a.get(..whole) != b.get(..whole) {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    match (a.get(whole), b.get(whole)) {
        (Some(x), Some(y)) => x & mask == y & mask,
        _ => false,
    }
}

/// A list of blocks separated by commas or spaces (LemonLDAP::NG writes lists either way).
pub fn parse_ranges(v: &str) -> Result<Vec<IpRange>, String> {
    v.split([',', ' ', '\t'])
        .filter(|s| !s.is_empty())
        .map(IpRange::parse)
        .collect()
}

/// A duration in seconds, more than 0 and at most a day (fractions allowed).
pub fn secs(v: &str) -> Result<Duration, String> {
    let f: f64 = v
        .parse()
        .map_err(|_| format!("expected seconds, got {v}"))?;
    if !(0.0..=86_400.0).contains(&f) || f == 0.0 {
        return Err(format!("seconds out of range: {v}"));
    }
    Ok(Duration::from_secs_f64(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn blocks_match_by_prefix() {
        let r = IpRange::parse("10.1.0.0/16").unwrap();
        assert!(r.contains(ip("10.1.200.3")));
        assert!(!r.contains(ip("10.2.0.1")));
        assert!(r.contains(ip("::ffff:10.1.0.9")));
        let one = IpRange::parse("127.0.0.2").unwrap();
        assert!(one.contains(ip("127.0.0.2")) && !one.contains(ip("127.0.0.3")));
        let odd = IpRange::parse("192.168.1.128/25").unwrap();
        assert!(odd.contains(ip("192.168.1.200")) && !odd.contains(ip("192.168.1.20")));
        let v6 = IpRange::parse("fd00::/8").unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        assert!(IpRange::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
    }

    #[test]
    fn bad_blocks_are_refused() {
        for bad in ["10.0.0.0/33", "x", "10.0.0/8", "::1/129", "1.2.3.4/"] {
            assert!(IpRange::parse(bad).is_err(), "{bad}");
        }
    }
}
