//! The server's limits, read from `[portal]` of the INI: how long a header block may take,
//! how slowly a body may arrive, how many connections and requests being read one client
//! address may hold, and which peers are trusted proxies whose `X-Forwarded-For` names the
//! client. Defaults live here and in `conf/limette.ini`.
//!
//! This file owns the keys and their parsing only; the server's reading stage
//! (`server::stage`, `server::read`, `server::admit`) enforces them.
use super::values::{parse_ranges, secs, IpRange};
use std::net::IpAddr;
use std::time::Duration;

/// The server's limits on connections and on reading requests.
#[derive(Debug, Clone)]
pub struct ServerLimits {
    /// The whole header block must arrive within this much of its first byte (408 after).
    pub header_timeout: Duration,
    /// Slowest accepted body, in bytes a second, once [`RATE_GRACE`] has passed (0: no check).
    pub body_min_rate: u64,
    /// Open connections overall; at the ceiling the oldest idle one (else the one stalled the
    /// longest on reading its answer) is closed for a new one.
    pub max_connections: usize,
    /// Open connections from one client address (trusted proxies are exempt).
    pub max_connections_per_address: usize,
    /// Bodies being read at once, overall (a head costs no slot: it is read as it arrives,
    /// within `headerTimeout`).
    pub max_reading: usize,
    /// Bytes of large bodies (over 64 KiB) in hand at once, from their head until their
    /// answer is written (503 above; a body alone always fits).
    pub max_reading_bytes: u64,
    /// Bodies being read at once for one client (its forwarded address behind a proxy, an
    /// IPv6 client by its /64).
    pub max_reading_per_address: usize,
    /// Peers whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<IpRange>,
}

/// Time a body gets before its rate is checked (a slow start is no attack).
pub const RATE_GRACE: Duration = Duration::from_secs(2);

/// Keys of `[portal]` this file reads.
pub const KEYS: &[&str] = &[
    "headerTimeout",
    "bodyMinRate",
    "maxConnections",
    "maxConnectionsPerAddress",
    "maxReading",
    "maxReadingPerAddress",
    "maxReadingBytes",
    "trustedProxies",
];

impl Default for ServerLimits {
    fn default() -> ServerLimits {
        ServerLimits {
            header_timeout: Duration::from_secs(5),
            body_min_rate: 1024,
            max_connections: descriptor_allowance(),
            max_connections_per_address: 64,
            max_reading: 128,
            max_reading_per_address: 16,
            max_reading_bytes: 8 << 20,
            trusted_proxies: Vec::new(),
        }
    }
}

/// Descriptors kept for what is not a client connection: the listener, the readiness list,
/// store files, SQLite, outbound connections, the log.
const RESERVED_DESCRIPTORS: u64 = 64;

/// The default of `maxConnections`: as many as the process's descriptor limit allows (its
/// soft `RLIMIT_NOFILE`, less a reserve), since an idle connection costs no thread. At least
/// 16, at most 1,048,576.
pub fn descriptor_allowance() -> usize {
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(1 << 20);
    soft.saturating_sub(RESERVED_DESCRIPTORS).clamp(16, 1 << 20) as usize
}

impl ServerLimits {
    /// Applies one `[portal]` key of [`KEYS`]; the error says what is wrong with the value.
    pub fn apply(&mut self, key: &str, v: &str) -> Result<(), String> {
        let count = |v: &str| match v.trim().parse::<u64>() {
            Ok(n) if (1..=1 << 20).contains(&n) => Ok(n as usize),
            _ => Err(format!("expected a number from 1 to 1048576, got {v}")),
        };
        match key {
            "headerTimeout" => self.header_timeout = secs(v)?,
            "bodyMinRate" => {
                self.body_min_rate = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("expected bytes a second, got {v}"))?
            }
            "maxConnections" => self.max_connections = count(v)?,
            "maxConnectionsPerAddress" => self.max_connections_per_address = count(v)?,
            "maxReading" => self.max_reading = count(v)?,
            "maxReadingPerAddress" => self.max_reading_per_address = count(v)?,
            "maxReadingBytes" => {
                self.max_reading_bytes = match v.trim().parse::<u64>() {
                    Ok(n) if n >= 1 << 16 => n,
                    _ => return Err(format!("expected bytes, at least 65536, got {v}")),
                }
            }
            "trustedProxies" => self.trusted_proxies = parse_ranges(v)?,
            other => return Err(format!("{other} is not a reading-stage key")),
        }
        Ok(())
    }

    /// Whether `ip` is one of the trusted proxies.
    pub fn is_trusted(&self, ip: IpAddr) -> bool {
        self.trusted_proxies.iter().any(|r| r.contains(ip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn bad_values_are_refused() {
        let mut f = ServerLimits::default();
        assert!(f.apply("maxConnections", "0").is_err());
        assert!(f.apply("headerTimeout", "-1").is_err());
        f.apply("trustedProxies", "127.0.0.1, 10.0.0.0/8 ::1")
            .unwrap();
        assert_eq!(f.trusted_proxies.len(), 3);
        assert!(f.is_trusted(ip("10.9.9.9")) && !f.is_trusted(ip("127.0.0.2")));
    }
}
