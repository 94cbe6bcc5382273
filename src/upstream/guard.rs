//! The outbound guard: the addresses a URL chosen by a client (a relying party's `request_uri`,
//! its back-channel logout URL) may lead the portal to. It works at ureq's resolver step: the
//! host name (or literal address) of the URL is resolved here, every address it resolves to is
//! checked, and ureq is handed only those checked addresses, so the address connected to is
//! always one that was checked (no second lookup that a name server could answer differently).
//!
//! Refused unless `[portal] outboundAllowTo` (CIDR blocks, empty by default) covers them: the
//! unspecified, loopback, private (RFC 1918), shared (CGNAT), link-local, unique-local,
//! site-local, multicast, broadcast, reserved, benchmarking and documentation ranges, IPv4 and
//! IPv6, with an IPv4 address inside IPv6 (mapped, NAT64, 6to4) judged as the IPv4 address.
//! A name with any refused address is refused whole.
//!
//! This file owns the classification and the allow-list; `upstream::send` uses it, and
//! `upstream::send_configured` (the operator's own REST backends) does not.
use crate::config::values::IpRange;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::RwLock;

/// The key of the allow-list (INI `[portal]`).
pub const KEY: &str = "outboundAllowTo";

/// The blocks a client-chosen URL may reach despite the classification (`outboundAllowTo`).
static ALLOWED: RwLock<Vec<IpRange>> = RwLock::new(Vec::new());

/// Sets the allow-list (once, at start-up, from the local settings).
pub fn allow_to(blocks: &[IpRange]) {
    match ALLOWED.write() {
        Ok(mut a) => *a = blocks.to_vec(),
        Err(p) => *p.into_inner() = blocks.to_vec(),
    }
}

/// A name resolver (as ureq's `Resolver`): `host:port` to addresses.
pub type Lookup = fn(&str) -> io::Result<Vec<SocketAddr>>;

/// The system's resolver (literal addresses are parsed, names asked of the system).
pub fn system_lookup(netloc: &str) -> io::Result<Vec<SocketAddr>> {
    netloc.to_socket_addrs().map(Iterator::collect)
}

/// The resolver ureq gets for a client-chosen URL: `lookup`, then every address checked.
pub struct Resolver {
    lookup: Lookup,
    allowed: Vec<IpRange>,
}

impl Resolver {
    /// The guard with the system's resolver and the allow-list in force.
    pub fn new() -> Resolver {
        Resolver::with(system_lookup, &current())
    }

    /// The guard with a given resolver and allow-list (the tests').
    pub fn with(lookup: Lookup, allowed: &[IpRange]) -> Resolver {
        Resolver {
            lookup,
            allowed: allowed.to_vec(),
        }
    }

    /// The checked addresses of `netloc`, or why it may not be reached.
    pub fn check(&self, netloc: &str) -> io::Result<Vec<SocketAddr>> {
        let addrs = (self.lookup)(netloc)?;
        for a in &addrs {
            let ip = a.ip();
            if self.allowed.iter().any(|b| b.contains(ip)) {
                continue;
            }
            if let Some(why) = refused(ip) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{netloc}: {ip} is {why}, refused by the outbound guard ({KEY})"),
                ));
            }
        }
        Ok(addrs)
    }
}

impl ureq::Resolver for Resolver {
    fn resolve(&self, netloc: &str) -> io::Result<Vec<SocketAddr>> {
        self.check(netloc)
    }
}

/// The allow-list in force (empty when its lock was poisoned: fail closed).
fn current() -> Vec<IpRange> {
    ALLOWED.read().map(|a| a.clone()).unwrap_or_default()
}

/// Why `ip` is not a public unicast address (the range's name), or `None` when it is.
pub fn refused(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => refused_v6(v6),
    }
}

/// IPv4 ranges (RFC 6890's special-purpose registry, the ones not globally reachable).
fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    const RANGES: &[([u8; 4], u8, &str)] = &[
        ([0, 0, 0, 0], 8, "in \"this network\" (0.0.0.0/8)"),
        ([10, 0, 0, 0], 8, "private (10.0.0.0/8)"),
        ([100, 64, 0, 0], 10, "shared address space (100.64.0.0/10)"),
        ([127, 0, 0, 0], 8, "loopback (127.0.0.0/8)"),
        ([169, 254, 0, 0], 16, "link-local (169.254.0.0/16)"),
        ([172, 16, 0, 0], 12, "private (172.16.0.0/12)"),
        (
            [192, 0, 0, 0],
            24,
            "IETF protocol assignments (192.0.0.0/24)",
        ),
        ([192, 0, 2, 0], 24, "documentation (192.0.2.0/24)"),
        ([192, 88, 99, 0], 24, "6to4 relay anycast (192.88.99.0/24)"),
        ([192, 168, 0, 0], 16, "private (192.168.0.0/16)"),
        ([198, 18, 0, 0], 15, "benchmarking (198.18.0.0/15)"),
        ([198, 51, 100, 0], 24, "documentation (198.51.100.0/24)"),
        ([203, 0, 113, 0], 24, "documentation (203.0.113.0/24)"),
        ([224, 0, 0, 0], 4, "multicast (224.0.0.0/4)"),
        ([255, 255, 255, 255], 32, "broadcast (255.255.255.255)"),
        ([240, 0, 0, 0], 4, "reserved (240.0.0.0/4)"),
    ];
    let n = u32::from(ip);
    RANGES
        .iter()
        .find(|(net, bits, _)| n >> (32 - bits) == u32::from_be_bytes(*net) >> (32 - bits))
        .map(|(_, _, why)| *why)
}

/// IPv6 ranges; an IPv4 address carried in IPv6 (mapped, NAT64's well-known prefix, 6to4) is
/// judged as that IPv4 address.
fn refused_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let n = u128::from(ip);
    let embedded = |shift: u32| Ipv4Addr::from((n >> shift) as u32);
    let within = |net: u128, bits: u32| n >> (128 - bits) == net >> (128 - bits);
    if n == 0 {
        return Some("unspecified (::)");
    }
    if n == 1 {
        return Some("loopback (::1)");
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return refused_v4(v4);
    }
    if within(0x0064_ff9b << 96, 96) {
        return refused_v4(embedded(0));
    }
    if within(0x2002 << 112, 16) {
        return refused_v4(embedded(80));
    }
    const RANGES: &[(u128, u32, &str)] = &[
        (0, 96, "IPv4-compatible (::/96, deprecated)"),
        (
            0x0064_ff9b_0001 << 80,
            48,
            "local-use NAT64 (64:ff9b:1::/48)",
        ),
        (0x0100 << 112, 64, "discard-only (100::/64)"),
        (0x2001 << 112, 32, "Teredo (2001::/32)"),
        (0x2001_0002 << 96, 48, "benchmarking (2001:2::/48)"),
        (0x2001_0db8 << 96, 32, "documentation (2001:db8::/32)"),
        (0x3fff << 112, 20, "documentation (3fff::/20)"),
        (0xfc00 << 112, 7, "unique-local (fc00::/7)"),
        (0xfe80 << 112, 10, "link-local (fe80::/10)"),
        (0xfec0 << 112, 10, "site-local (fec0::/10, deprecated)"),
        (0xff00 << 112, 8, "multicast (ff00::/8)"),
        // What is left of ::/8 (IPv4-translated `::ffff:0:a.b.c.d` among others).
        (0, 8, "reserved (::/8)"),
    ];
    RANGES
        .iter()
        .find(|(net, bits, _)| within(*net, *bits))
        .map(|(_, _, why)| *why)
}

#[cfg(test)]
mod tests;
