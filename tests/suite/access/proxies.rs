//! A proxy Limette was not told about, and a trusted proxy that names nobody. An nginx on
//! loopback in front of a Limette without `trustedProxies` connects from 127.0.0.1: were its
//! clients taken for its address, every default rule (loopback) would let the whole Internet
//! in. Its `X-Forwarded-For` says a proxy is there: the client is unknown, and the rules
//! refuse it. A trusted proxy's request without a valid `X-Forwarded-For` is refused (400),
//! not taken for the proxy's own.
use super::{call, get, servers};

/// An nginx-like request from `from` for `path`, forwarding for `xff`.
fn forwarded(p: &super::Portal, from: &str, path: &str, header: &str) -> super::Resp {
    call(p, from, "GET", path, header, b"")
}

#[test]
fn an_untrusted_proxy_on_loopback_does_not_make_its_clients_local() {
    let p = servers().start();
    let id = p.login("dwho");
    let session = format!("/sessions/global/{id}");
    for path in [session.as_str(), "/config/latest", "/notifications/dwho"] {
        // The proxy's own calls, without the header, are local as before.
        assert_eq!(get(&p, "127.0.0.1", path).status, 200, "{path}");
        for (from, header) in [
            ("127.0.0.1", "X-Forwarded-For: 192.0.2.7\r\n"),
            ("127.0.0.1", "X-Forwarded-For: 127.0.0.1\r\n"),
            ("127.0.0.2", "X-Real-IP: 192.0.2.7\r\n"),
            ("127.0.0.2", "Forwarded: for=192.0.2.7\r\n"),
        ] {
            let r = forwarded(&p, from, path, header);
            assert_eq!(
                r.status,
                403,
                "{path} from {from} with {header}: {}",
                r.text()
            );
        }
    }
    let log = p.log();
    assert!(
        log.contains("refused to an unknown address, outside sessionsAllowFrom"),
        "{log}"
    );
    for peer in ["127.0.0.1", "127.0.0.2"] {
        let warned = log
            .lines()
            .filter(|l| {
                l.contains(&format!(
                    "{peer} sends X-Forwarded-For but is not in trustedProxies"
                ))
            })
            .count();
        assert_eq!(warned, 1, "logged once for {peer}:\n{log}");
    }
    // Nor does the portal's session record a loopback address for such a client.
    let login = call(
        &p,
        "127.0.0.1",
        "POST",
        "/",
        "X-Forwarded-For: 192.0.2.7\r\nContent-Type: application/x-www-form-urlencoded\r\n",
        b"user=rtyler&password=rtyler",
    );
    assert_eq!(login.status, 200, "{}", login.text());
    let sid = login.json()["id"].as_str().unwrap().to_string();
    let s = get(&p, "127.0.0.1", &format!("/sessions/global/{sid}"));
    assert_eq!(s.status, 200, "{}", s.text());
    assert_eq!(s.json()["ipAddr"], "", "{}", s.text());
}

#[test]
fn a_trusted_proxy_must_name_the_client() {
    let p = servers().ini("trustedProxies = 127.0.0.2").start();
    for header in [
        "",
        "X-Forwarded-For: \r\n",
        "X-Forwarded-For: unknown\r\n",
        "X-Forwarded-For: 127.0.0.1:8080\r\n",
        "X-Real-IP: 127.0.0.1\r\n",
    ] {
        let r = forwarded(&p, "127.0.0.2", "/config/latest", header);
        assert_eq!(r.status, 400, "{header:?}: {}", r.text());
        let r = forwarded(&p, "127.0.0.2", "/oauth2/jwks", header);
        assert_eq!(r.status, 400, "{header:?}: {}", r.text());
    }
    let ok = forwarded(
        &p,
        "127.0.0.2",
        "/config/latest",
        "X-Forwarded-For: 127.0.0.1\r\n",
    );
    assert_eq!(ok.status, 200, "{}", ok.text());
    // A client on the proxy's own address is that address.
    let own = forwarded(
        &p,
        "127.0.0.2",
        "/config/latest",
        "X-Forwarded-For: 127.0.0.2\r\n",
    );
    assert_eq!(own.status, 200, "{}", own.text());
    assert!(
        p.log()
            .contains("a trusted proxy sent no valid X-Forwarded-For"),
        "{}",
        p.log()
    );
}
