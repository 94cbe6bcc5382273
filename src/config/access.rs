//! Who may call the REST servers: the address rules and the optional HTTP basic credentials
//! read from `[portal]` of the INI, the node's own file (where LemonLDAP::NG's web server rule
//! lives). Closed by default: each server answers loopback only until its rule says more.
//!
//! - `sessionsAllowFrom`, `configAllowFrom`, `notificationsAllowFrom`, and for the node's
//!   own paths `statusAllowFrom` (`/portalStatus` and the health path), `metricsAllowFrom`
//!   (`/metrics`), `managerAllowFrom` (the console, `/manager/`) and `handlerAllowFrom` (the
//!   handler endpoint `/lmauth`, which the web servers protecting applications ask: its rule
//!   is on the socket peer, the web server, never on the client it forwards for): addresses and CIDR
//!   blocks (IPv4 and IPv6) separated by spaces or commas, default `127.0.0.0/8 ::1`; `*`
//!   opens the server to every address (a warning at start-up and in `config check`).
//! - `managerHost`: the virtual host whose `locationRules` say which logged-in users may use
//!   the console (LemonLDAP::NG's manager host, `manager.example.com` in its default
//!   configuration); unset, the console lets nobody in.
//! - `restUser`, `restPassword`: when set, the three REST servers and `/metrics` also want
//!   these basic credentials (the console has its users' logins, a load balancer's health
//!   probe seldom sends any). LemonLDAP::NG 2.16 has no such keys (its web server holds them), so they live
//!   here. The password is the plain text or a salted hash, `{SSHA256}` or `{SSHA512}` followed
//!   by base64 of the digest of password then salt, then the salt (OpenLDAP's layout).
//!
//! This file owns the keys, their parsing and the decision ([`ServerAccess::check`], a pure
//! function of the client address and the `Authorization` header); the router applies it.
use super::values::{parse_ranges, IpRange};
use crate::util::ct_eq;
use base64::Engine;
use sha2::{Digest, Sha256, Sha512};
use std::fmt;
use std::net::IpAddr;

/// Keys of `[portal]` this file reads.
pub const KEYS: &[&str] = &[
    "sessionsAllowFrom",
    "configAllowFrom",
    "notificationsAllowFrom",
    "statusAllowFrom",
    "metricsAllowFrom",
    "managerAllowFrom",
    "handlerAllowFrom",
    "managerHost",
    "restUser",
    "restPassword",
];

/// The default rule of every server: the loopback addresses.
pub const DEFAULT_ALLOW: &str = "127.0.0.0/8 ::1";

/// The servers the rules guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// `/sessions/...`: the REST session server.
    Sessions,
    /// `/config/...`: the REST configuration proxy.
    Config,
    /// `/notifications...`: the notification server (REST and SOAP).
    Notifications,
    /// `/portalStatus` and the health path.
    Status,
    /// `/metrics`.
    Metrics,
    /// `/manager/...`: the administration console.
    Manager,
    /// `/lmauth...`: the handler endpoint.
    Handler,
}

/// Every server, in the order warnings name them.
const ALL: [Server; 7] = [
    Server::Sessions,
    Server::Config,
    Server::Notifications,
    Server::Status,
    Server::Metrics,
    Server::Manager,
    Server::Handler,
];

impl Server {
    /// The `[portal]` key of the server's address rule.
    pub fn key(self) -> &'static str {
        match self {
            Server::Sessions => "sessionsAllowFrom",
            Server::Config => "configAllowFrom",
            Server::Notifications => "notificationsAllowFrom",
            Server::Status => "statusAllowFrom",
            Server::Metrics => "metricsAllowFrom",
            Server::Manager => "managerAllowFrom",
            Server::Handler => "handlerAllowFrom",
        }
    }

    /// Whether `restUser`/`restPassword`, when set, are wanted here too.
    fn wants_basic(self) -> bool {
        !matches!(self, Server::Status | Server::Manager | Server::Handler)
    }

    fn what(self) -> &'static str {
        match self {
            Server::Sessions => "the REST session server",
            Server::Config => "the REST configuration server",
            Server::Notifications => "the notification server",
            Server::Status => "/portalStatus and the health path",
            Server::Metrics => "/metrics",
            Server::Manager => "the administration console",
            Server::Handler => "the handler endpoint",
        }
    }
}

/// One server's address rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowFrom {
    /// `*`: every address.
    All,
    /// These blocks only (an empty list lets nobody in).
    Ranges(Vec<IpRange>),
}

impl AllowFrom {
    /// Parses a rule: `*`, or blocks separated by spaces or commas.
    pub fn parse(v: &str) -> Result<AllowFrom, String> {
        if v.trim() == "*" {
            return Ok(AllowFrom::All);
        }
        let ranges = parse_ranges(v)?;
        if ranges.is_empty() {
            return Err("expected addresses or address/bits, or *".into());
        }
        Ok(AllowFrom::Ranges(ranges))
    }

    /// Whether `ip` may call the server; an unknown address may not.
    pub fn allows(&self, ip: Option<IpAddr>) -> bool {
        match (self, ip) {
            (AllowFrom::All, _) => true,
            (AllowFrom::Ranges(r), Some(ip)) => r.iter().any(|b| b.contains(ip)),
            (AllowFrom::Ranges(_), None) => false,
        }
    }
}

/// The expected password: plain, or a salted hash.
#[derive(Clone, PartialEq, Eq)]
enum Password {
    Plain(Vec<u8>),
    Ssha256 { digest: Vec<u8>, salt: Vec<u8> },
    Ssha512 { digest: Vec<u8>, salt: Vec<u8> },
}

/// Shortest salt accepted in a hashed `restPassword`.
const MIN_SALT: usize = 4;

impl Password {
    fn parse(v: &str) -> Result<Password, String> {
        let Some(rest) = v.strip_prefix('{') else {
            return Ok(Password::Plain(v.as_bytes().to_vec()));
        };
        let (scheme, b64) = rest
            .split_once('}')
            .ok_or("a value starting with { must be {SSHA256} or {SSHA512} then base64")?;
        let len = match scheme {
            "SSHA256" => 32,
            "SSHA512" => 64,
            other => {
                return Err(format!(
                    "unknown scheme {{{other}}} (known: SSHA256, SSHA512)"
                ))
            }
        };
        let raw = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|_| format!("{{{scheme}}}: not base64"))?;
        if raw.len() < len + MIN_SALT {
            return Err(format!(
                "{{{scheme}}}: expected a {len}-byte digest and at least {MIN_SALT} bytes of salt"
            ));
        }
        let (digest, salt) = raw.split_at(len);
        let (digest, salt) = (digest.to_vec(), salt.to_vec());
        Ok(match len {
            32 => Password::Ssha256 { digest, salt },
            _ => Password::Ssha512 { digest, salt },
        })
    }

    /// Constant time in the length of what is compared.
    fn matches(&self, given: &[u8]) -> bool {
        match self {
            Password::Plain(p) => {
                // Hashing both sides makes the comparison independent of the lengths too.
                ct_eq(&Sha256::digest(p), &Sha256::digest(given))
            }
            Password::Ssha256 { digest, salt } => {
                let mut h = Sha256::new();
                h.update(given);
                h.update(salt);
                ct_eq(&h.finalize(), digest)
            }
            Password::Ssha512 { digest, salt } => {
                let mut h = Sha512::new();
                h.update(given);
                h.update(salt);
                ct_eq(&h.finalize(), digest)
            }
        }
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// The rules of the three servers and the credentials they share.
#[derive(Debug, Clone)]
pub struct ServerAccess {
    /// `sessionsAllowFrom`.
    pub sessions: AllowFrom,
    /// `configAllowFrom`.
    pub config: AllowFrom,
    /// `notificationsAllowFrom`.
    pub notifications: AllowFrom,
    /// `statusAllowFrom`, `metricsAllowFrom`, `managerAllowFrom`, `handlerAllowFrom`.
    nodes: [AllowFrom; 4],
    /// `managerHost`, lower case.
    manager_host: Option<String>,
    user: Option<String>,
    password: Option<Password>,
}

/// What [`ServerAccess::check`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Go on.
    Allowed,
    /// The address is outside the rule (403).
    Forbidden,
    /// Credentials are wanted and were missing or wrong (401).
    Unauthorized,
}

impl Default for ServerAccess {
    fn default() -> ServerAccess {
        let loopback = || AllowFrom::parse(DEFAULT_ALLOW).unwrap_or(AllowFrom::Ranges(Vec::new()));
        ServerAccess {
            sessions: loopback(),
            config: loopback(),
            notifications: loopback(),
            nodes: [loopback(), loopback(), loopback(), loopback()],
            manager_host: None,
            user: None,
            password: None,
        }
    }
}

impl ServerAccess {
    /// Applies one `[portal]` key of [`KEYS`]; the error says what is wrong with the value.
    pub fn apply(&mut self, key: &str, v: &str) -> Result<(), String> {
        match key {
            "sessionsAllowFrom" => self.sessions = AllowFrom::parse(v)?,
            "configAllowFrom" => self.config = AllowFrom::parse(v)?,
            "notificationsAllowFrom" => self.notifications = AllowFrom::parse(v)?,
            "statusAllowFrom" => self.nodes[0] = AllowFrom::parse(v)?,
            "metricsAllowFrom" => self.nodes[1] = AllowFrom::parse(v)?,
            "managerAllowFrom" => self.nodes[2] = AllowFrom::parse(v)?,
            "handlerAllowFrom" => self.nodes[3] = AllowFrom::parse(v)?,
            "managerHost" if v.trim().is_empty() || v.contains(['/', ' ']) => {
                return Err("expected a host name, as a key of locationRules".into())
            }
            "managerHost" => self.manager_host = Some(v.trim().to_ascii_lowercase()),
            "restUser" if v.is_empty() || v.contains(':') => {
                return Err("expected a user name without ':'".into())
            }
            "restUser" => self.user = Some(v.to_string()),
            "restPassword" if v.is_empty() => return Err("expected a password".into()),
            "restPassword" => self.password = Some(Password::parse(v)?),
            other => return Err(format!("{other} is not a REST access key")),
        }
        Ok(())
    }

    /// Once every key is read: the credentials come as a pair. The error names the key missing.
    pub fn finish(&self) -> Result<(), (&'static str, String)> {
        match (&self.user, &self.password) {
            (Some(_), None) => Err(("restPassword", "required when restUser is set".into())),
            (None, Some(_)) => Err(("restUser", "required when restPassword is set".into())),
            _ => Ok(()),
        }
    }

    /// The rule of one server.
    pub fn rule(&self, server: Server) -> &AllowFrom {
        match server {
            Server::Sessions => &self.sessions,
            Server::Config => &self.config,
            Server::Notifications => &self.notifications,
            Server::Status => &self.nodes[0],
            Server::Metrics => &self.nodes[1],
            Server::Manager => &self.nodes[2],
            Server::Handler => &self.nodes[3],
        }
    }

    /// `managerHost`: the virtual host whose `locationRules` guard the console.
    pub fn manager_host(&self) -> Option<&str> {
        self.manager_host.as_deref()
    }

    /// Whether credentials are wanted.
    pub fn wants_credentials(&self) -> bool {
        self.user.is_some()
    }

    /// The warnings of the rules: each server open to every address.
    pub fn warnings(&self) -> Vec<String> {
        ALL.into_iter()
            .filter(|s| *self.rule(*s) == AllowFrom::All)
            .map(|s| {
                format!(
                    "[portal] {} = *: {} answers every address",
                    s.key(),
                    s.what()
                )
            })
            .collect()
    }

    /// The address rule first (403), then the credentials (401). `authorization` is the
    /// request's `Authorization` header.
    pub fn check(
        &self,
        server: Server,
        client: Option<IpAddr>,
        authorization: Option<&str>,
    ) -> Verdict {
        if !self.rule(server).allows(client) {
            return Verdict::Forbidden;
        }
        let (Some(user), Some(password)) = (&self.user, &self.password) else {
            return Verdict::Allowed;
        };
        if !server.wants_basic() {
            return Verdict::Allowed;
        }
        let Some((u, p)) = authorization.and_then(basic) else {
            return Verdict::Unauthorized;
        };
        // Both checked, whatever the first says: no early exit to time.
        let user_ok = ct_eq(&Sha256::digest(user.as_bytes()), &Sha256::digest(&u));
        let password_ok = password.matches(&p);
        if user_ok & password_ok {
            Verdict::Allowed
        } else {
            Verdict::Unauthorized
        }
    }
}

/// The user and password of a `Basic` authorization (RFC 7617), as bytes.
fn basic(header: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    let (scheme, b64) = header.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let raw = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .ok()?;
    let colon = raw.iter().position(|b| *b == b':')?;
    let (u, p) = raw.split_at(colon);
    Some((u.to_vec(), p.get(1..)?.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    fn auth(u: &str, p: &str) -> String {
        let b = base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"));
        format!("Basic {b}")
    }

    fn ssha256(pw: &str, salt: &[u8]) -> String {
        let mut raw = Sha256::new()
            .chain_update(pw)
            .chain_update(salt)
            .finalize()
            .to_vec();
        raw.extend_from_slice(salt);
        format!(
            "{{SSHA256}}{}",
            base64::engine::general_purpose::STANDARD.encode(raw)
        )
    }

    #[test]
    fn loopback_only_by_default_and_unknown_addresses_refused() {
        let a = ServerAccess::default();
        for s in ALL {
            assert_eq!(a.check(s, ip("127.0.0.1"), None), Verdict::Allowed);
            assert_eq!(a.check(s, ip("127.9.0.1"), None), Verdict::Allowed);
            assert_eq!(a.check(s, ip("::1"), None), Verdict::Allowed);
            assert_eq!(a.check(s, ip("10.0.0.1"), None), Verdict::Forbidden);
            assert_eq!(a.check(s, ip("::2"), None), Verdict::Forbidden);
            assert_eq!(a.check(s, None, None), Verdict::Forbidden);
        }
        assert!(a.warnings().is_empty());
    }

    #[test]
    fn rules_are_per_server_and_star_warns() {
        let mut a = ServerAccess::default();
        a.apply("sessionsAllowFrom", "127.0.0.2, 10.0.0.0/8")
            .unwrap();
        a.apply("configAllowFrom", "*").unwrap();
        assert_eq!(
            a.check(Server::Sessions, ip("127.0.0.1"), None),
            Verdict::Forbidden
        );
        assert_eq!(
            a.check(Server::Sessions, ip("10.1.2.3"), None),
            Verdict::Allowed
        );
        assert_eq!(
            a.check(Server::Config, ip("192.0.2.1"), None),
            Verdict::Allowed
        );
        assert_eq!(
            a.check(Server::Notifications, ip("127.0.0.2"), None),
            Verdict::Allowed
        );
        assert_eq!(a.warnings().len(), 1);
        assert!(a.warnings()[0].contains("configAllowFrom = *"));
        for bad in ["", " , ", "10.0.0.0/33", "all", "127.0.0.1 *"] {
            assert!(a.apply("sessionsAllowFrom", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn address_first_then_credentials() {
        let mut a = ServerAccess::default();
        a.apply("restUser", "rest").unwrap();
        assert!(a.finish().is_err(), "a user alone");
        a.apply("restPassword", "s3cret").unwrap();
        a.finish().unwrap();
        let s = Server::Sessions;
        let right = auth("rest", "s3cret");
        assert_eq!(a.check(s, ip("10.0.0.1"), Some(&right)), Verdict::Forbidden);
        assert_eq!(a.check(s, ip("127.0.0.1"), None), Verdict::Unauthorized);
        assert_eq!(a.check(s, ip("127.0.0.1"), Some(&right)), Verdict::Allowed);
        assert_eq!(
            a.check(Server::Metrics, ip("::1"), None),
            Verdict::Unauthorized
        );
        assert_eq!(a.check(Server::Status, ip("::1"), None), Verdict::Allowed);
        assert_eq!(a.check(Server::Manager, ip("::1"), None), Verdict::Allowed);
        assert_eq!(
            a.check(Server::Manager, ip("10.0.0.1"), None),
            Verdict::Forbidden
        );
        for wrong in [
            auth("rest", "s3cre"),
            auth("rest", "s3cret "),
            auth("Rest", "s3cret"),
            auth("", ""),
            "Bearer s3cret".into(),
            "Basic !!!".into(),
            "Basic cmVzdA==".into(), // "rest", no colon
        ] {
            assert_eq!(
                a.check(s, ip("127.0.0.1"), Some(&wrong)),
                Verdict::Unauthorized,
                "{wrong}"
            );
        }
        // A password holding a colon is split at the first one (RFC 7617 §2).
        a.apply("restPassword", "a:b").unwrap();
        assert_eq!(
            a.check(s, ip("::1"), Some(&auth("rest", "a:b"))),
            Verdict::Allowed
        );
    }

    #[test]
    fn hashed_passwords() {
        let mut a = ServerAccess::default();
        a.apply("restUser", "rest").unwrap();
        a.apply("restPassword", &ssha256("pw", b"saltsalt"))
            .unwrap();
        let s = Server::Config;
        assert_eq!(
            a.check(s, ip("127.0.0.1"), Some(&auth("rest", "pw"))),
            Verdict::Allowed
        );
        assert_eq!(
            a.check(s, ip("127.0.0.1"), Some(&auth("rest", "pw2"))),
            Verdict::Unauthorized
        );
        let hashed = ssha256("pw", b"saltsalt");
        assert_eq!(
            a.check(s, ip("127.0.0.1"), Some(&auth("rest", &hashed))),
            Verdict::Unauthorized,
            "the hash is not the password"
        );
        let mut raw = Sha512::new()
            .chain_update("pw")
            .chain_update(b"1234")
            .finalize()
            .to_vec();
        raw.extend_from_slice(b"1234");
        let h512 = format!(
            "{{SSHA512}}{}",
            base64::engine::general_purpose::STANDARD.encode(raw)
        );
        a.apply("restPassword", &h512).unwrap();
        assert_eq!(
            a.check(s, ip("127.0.0.1"), Some(&auth("rest", "pw"))),
            Verdict::Allowed
        );
        for bad in [
            "{MD5}abc",
            "{SSHA256}not base64!",
            "{SSHA256}AAAA",
            "{SSHA256",
        ] {
            assert!(a.apply("restPassword", bad).is_err(), "{bad}");
        }
        assert!(
            !format!("{a:?}").contains("SSHA"),
            "the password is redacted"
        );
    }
}
