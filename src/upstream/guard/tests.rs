//! The guard's classifier, range by range and edge by edge, and its resolver step with a
//! resolver that maps test names to private addresses without any connection.
use super::*;
use crate::upstream::{exchange, Call, MAX_RESPONSE};
use std::net::TcpListener;
use std::time::Duration;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn every_special_ipv4_range_is_refused_and_its_neighbours_are_not() {
    let refused_ = [
        "0.0.0.0",
        "0.255.255.255",
        "10.0.0.0",
        "10.255.255.255",
        "100.64.0.0",
        "100.127.255.255",
        "127.0.0.1",
        "127.255.255.254",
        "169.254.0.1",
        "169.254.169.254",
        "172.16.0.0",
        "172.31.255.255",
        "192.0.0.8",
        "192.0.2.1",
        "192.88.99.1",
        "192.168.0.1",
        "192.168.255.255",
        "198.18.0.1",
        "198.19.255.255",
        "198.51.100.7",
        "203.0.113.9",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
    ];
    for a in refused_ {
        assert!(refused(ip(a)).is_some(), "{a} should be refused");
    }
    let public = [
        "1.1.1.1",
        "8.8.8.8",
        "9.255.255.255",
        "11.0.0.0",
        "100.63.255.255",
        "100.128.0.0",
        "126.255.255.255",
        "128.0.0.0",
        "169.253.255.255",
        "169.255.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "192.0.1.255",
        "192.0.3.0",
        "192.167.255.255",
        "192.169.0.0",
        "198.17.255.255",
        "198.20.0.0",
        "203.0.114.0",
        "223.255.255.255",
    ];
    for a in public {
        assert_eq!(refused(ip(a)), None, "{a} is public");
    }
    assert_eq!(
        refused(ip("255.255.255.255")),
        Some("broadcast (255.255.255.255)")
    );
    assert_eq!(refused(ip("10.1.2.3")), Some("private (10.0.0.0/8)"));
}

#[test]
fn ipv6_forms_are_refused_including_ipv4_inside_ipv6() {
    let refused_ = [
        "::",
        "::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "::ffff:0.0.0.0",
        "::127.0.0.1",
        "::ffff:0:7f00:1",
        "ff::1",
        "::8.8.8.8",
        "64:ff9b::7f00:1",
        "64:ff9b::a00:1",
        "64:ff9b:1::1",
        "2002:a00:1::1",
        "2002:7f00:1::",
        "100::1",
        "2001::1",
        "2001:0:4136:e378::1",
        "2001:2::1",
        "2001:db8::1",
        "3fff::1",
        "fc00::1",
        "fd12:3456::1",
        "fdff:ffff::ffff",
        "fe80::1",
        "febf::1",
        "fec0::1",
        "ff02::1",
        "ff0e::1",
    ];
    for a in refused_ {
        assert!(refused(ip(a)).is_some(), "{a} should be refused");
    }
    let public = [
        "2001:4860:4860::8888",
        "2606:4700:4700::1111",
        "2a00:1450::1",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2002:808:808::1",
        "2001:db9::1",
        "2001:3::1",
        "fe00::1",
    ];
    for a in public {
        assert_eq!(refused(ip(a)), None, "{a} is public");
    }
    assert_eq!(
        refused(ip("::ffff:192.168.1.1")),
        Some("private (192.168.0.0/16)")
    );
}

/// A resolver for test names only: nothing here ever asks a name server or connects.
fn fake(netloc: &str) -> io::Result<Vec<SocketAddr>> {
    let (host, port) = netloc.rsplit_once(':').unwrap();
    let port: u16 = port.parse().unwrap();
    let addrs: &[&str] = match host {
        "intranet.test" => &["10.1.2.3"],
        "corp.test" => &["172.20.0.5"],
        "home.test" => &["192.168.1.1"],
        "metadata.test" => &["169.254.169.254"],
        "ula.test" => &["fd00::5"],
        "mapped.test" => &["::ffff:10.0.0.1"],
        "mixed.test" => &["8.8.8.8", "10.0.0.1"],
        "public.test" => &["8.8.8.8", "2001:4860:4860::8888"],
        "loop.test" => &["127.0.0.1"],
        _ => return Err(io::Error::new(io::ErrorKind::NotFound, "unknown test name")),
    };
    Ok(addrs.iter().map(|a| SocketAddr::new(ip(a), port)).collect())
}

#[test]
fn names_are_judged_by_every_address_they_resolve_to() {
    let guard = Resolver::with(fake, &[]);
    for name in [
        "intranet.test",
        "corp.test",
        "home.test",
        "metadata.test",
        "ula.test",
        "mapped.test",
        "mixed.test",
        "loop.test",
    ] {
        let e = guard.check(&format!("{name}:80")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{name}");
        assert!(e.to_string().contains(KEY), "{e}");
    }
    let ok = guard.check("public.test:443").unwrap();
    assert_eq!(ok.len(), 2);
    // The allow-list opens its blocks only (an IPv4 block covers the mapped form too).
    let allow = [IpRange::parse("10.0.0.0/8").unwrap()];
    let guard = Resolver::with(fake, &allow);
    assert!(guard.check("intranet.test:80").is_ok());
    assert!(guard.check("mapped.test:80").is_ok());
    assert!(guard.check("mixed.test:80").is_ok());
    assert!(guard.check("corp.test:80").is_err());
    assert!(guard.check("loop.test:80").is_err());
}

fn get(url: &str, guard: Resolver) -> crate::error::Result<crate::upstream::Reply> {
    let call = Call {
        method: "GET",
        url,
        basic: None,
        json: None,
        form: None,
        timeout: Duration::from_secs(2),
    };
    exchange(&call, Some(guard), MAX_RESPONSE)
}

#[test]
fn ureq_connects_only_to_the_addresses_the_guard_checked() {
    // Refused at the resolver step: ureq is given no address, so nothing is connected to.
    for url in [
        "http://intranet.test/r",
        "http://corp.test:8080/r",
        "http://ula.test/",
    ] {
        let e = get(url, Resolver::with(fake, &[])).unwrap_err().to_string();
        assert!(e.contains("refused by the outbound guard"), "{e}");
    }
    // Literal addresses go through the same step.
    for url in [
        "http://10.0.0.1/",
        "http://[::1]:9/",
        "http://[::ffff:192.168.0.1]/",
    ] {
        let e = get(url, Resolver::with(system_lookup, &[]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("refused by the outbound guard"), "{e}");
    }
    // Allowed, the name connects to the address the guard handed over (`loop.test` exists
    // nowhere else), and the listener sees the request.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut s, _) = l.accept().unwrap();
        let mut buf = [0u8; 1024];
        let n = s.read(&mut buf).unwrap();
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            .unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    });
    let allow = [IpRange::parse("127.0.0.1").unwrap()];
    let r = get(
        &format!("http://loop.test:{port}/x"),
        Resolver::with(fake, &allow),
    )
    .unwrap();
    assert_eq!((r.status, r.body.as_slice()), (200, &b"ok"[..]));
    assert!(seen.join().unwrap().starts_with("GET /x HTTP/1.1"));
}
