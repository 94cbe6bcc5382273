//! SOAP/XML server with envelopes captured from SOAP::Lite, and entity bombs.
use super::common::notifications::{server, Backend, BACKENDS};
use super::common::{Client, Portal, Resp};
use super::*;
use serde_json::json;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/soap/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Posts a captured envelope with the SOAPAction SOAP::Lite sent with it.
fn soap(c: &Client, name: &str) -> Resp {
    let action = std::fs::read_to_string(format!(
        "{}/tests/fixtures/soap/{name}.action",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_else(|_| "\"urn:Lemonldap::NG::Common::PSGI::SOAPService#newNotification\"".into());
    let body = fixture(&format!("{name}.xml"));
    c.send(
        "POST",
        "/notifications",
        &[
            ("Content-Type", "text/xml; charset=utf-8"),
            ("SOAPAction", action.trim()),
        ],
        &body,
    )
}

fn result_count(r: &Resp) -> u64 {
    let t = r.text();
    let start = t
        .find("<result xsi:type=\"xsd:int\">")
        .unwrap_or_else(|| panic!("no result: {t}"))
        + 27;
    t[start..].split('<').next().unwrap().parse().unwrap()
}

fn faultstring(r: &Resp) -> String {
    assert_eq!(r.status, 500, "a fault is HTTP 500: {}", r.text());
    assert!(r.header("content-type").unwrap().starts_with("text/xml"));
    let t = r.text();
    let s = t
        .split("<faultstring>")
        .nth(1)
        .unwrap_or_else(|| panic!("no fault: {t}"));
    s.split("</faultstring>").next().unwrap().to_string()
}

#[test]
fn soap_insert_delete_and_faults() {
    for b in BACKENDS {
        let (p, store) = server(b, &[("oldNotifFormat", json!(1))]);
        let c = p.client();
        let r = soap(&c, "1-new-two");
        assert_eq!(
            (r.status, result_count(&r)),
            (200, 2),
            "{b:?}: {}",
            r.text()
        );
        assert!(r.text().contains(
            "<newNotificationResponse xmlns=\"urn:Lemonldap::NG::Common::PSGI::SOAPService\">"
        ));
        let one = store
            .get("rtyler", "XMLA")
            .unwrap()
            .unwrap()
            .notification()
            .unwrap();
        assert_eq!(one.check, ["I know appli-1", "I know appli-2"], "{b:?}");
        assert_eq!(one.subtitle, ["XML sub"]);
        assert!(store.get("allusers", "XMLALL").unwrap().is_some());
        assert!(
            faultstring(&soap(&c, "1-new-two")).contains("already exists with reference XMLA"),
            "{b:?} duplicate"
        );
        let r = soap(&c, "2-delete");
        assert_eq!((r.status, result_count(&r)), (200, 1), "{b:?} delete");
        assert!(r.text().contains("deleteNotificationResponse"));
        assert!(store.get("rtyler", "XMLA").unwrap().is_none());
        assert_eq!(result_count(&soap(&c, "2-delete")), 0, "{b:?} delete again");
        assert!(
            faultstring(&soap(&c, "3-not-xml")).contains("not well-formed XML"),
            "{b:?}"
        );
        assert_eq!(
            faultstring(&soap(&c, "4-no-date")),
            "Attribute date is missing"
        );
        assert_eq!(
            faultstring(&soap(&c, "5-unknown-method")),
            "getAttributes is not an authorized function"
        );
        assert!(
            faultstring(&soap(&c, "6-inner-bomb")).contains("DOCTYPE"),
            "{b:?}"
        );
        let r = c.send(
            "POST",
            "/notifications",
            &[("SOAPAction", "\"x\"")],
            b"<x/>",
        );
        assert!(faultstring(&r).contains("root element"));
        // Not SOAP at all.
        let r = c.send(
            "POST",
            "/notifications",
            &[("Content-Type", "text/xml")],
            &fixture("1-new-two.xml"),
        );
        assert_eq!((r.status, error(&r)), (400, "SOAP requests only".into()));
        assert_eq!(c.get_json("/notifications").status, 400);
        assert_eq!(
            c.send("POST", "/notifications", &[("SOAPAction", "\"x\"")], b"")
                .status,
            411
        );
    }
}

fn vm_hwm_kb(p: &Portal) -> u64 {
    let pid = p.child.as_ref().unwrap().id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn soap_entity_bombs_fault_at_once_with_memory_flat() {
    let (p, store) = server(Backend::File, &[("oldNotifFormat", json!(1))]);
    let c = p.client();
    // Warm up: one ordinary call, so the baseline holds the normal working set.
    assert_eq!(result_count(&soap(&c, "1-new-two")), 2);
    let before = vm_hwm_kb(&p);
    for name in ["envelope-bomb", "envelope-xxe", "6-inner-bomb"] {
        let t = std::time::Instant::now();
        let f = faultstring(&soap(&c, name));
        assert!(f.contains("DOCTYPE"), "{name}: {f}");
        assert!(
            // A generous deadline: it tells an expanded entity bomb (no end) from a refusal.
            t.elapsed() < std::time::Duration::from_secs(30),
            "{name} took {:?}",
            t.elapsed()
        );
        assert!(!f.contains("root:"), "{name}: external entity resolved");
    }
    let after = vm_hwm_kb(&p);
    assert!(
        after < before + 10_240,
        "peak memory grew from {before} kB to {after} kB"
    );
    assert_eq!(store.all().unwrap().len(), 2, "nothing stored by the bombs");
}

#[test]
fn a_real_soap_lite_client_gets_results_and_faults() {
    let (p, store) = server(Backend::Sqlite, &[("oldNotifFormat", json!(1))]);
    let script = format!(
        "{}/tests/fixtures/soap/client.pl",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = std::process::Command::new("perl")
        .arg(script)
        .arg(p.url("/notifications"))
        .output()
        .expect("perl (with SOAP::Lite: .ci/setup.d/notifications.sh installs it)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "SOAP::Lite client failed (run .ci/setup.d/notifications.sh): {stderr}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "result: 2\nfault: A notification already exists with reference XMLA\nresult: 1\nfault: getAttributes is not an authorized function\n"
    );
    assert_eq!(store.all().unwrap().len(), 1);
}

/// A 100,000-level envelope (or notification inside one) is a fault at once, not a stack
/// overflow that ends the process: the server answers the next call.
#[test]
fn deeply_nested_xml_is_a_fault_and_the_server_lives_on() {
    let (p, store) = server(Backend::File, &[("oldNotifFormat", json!(1))]);
    let c = p.client();
    let n = 100_000;
    let deep = format!("{}{}", "<a>".repeat(n), "</a>".repeat(n));
    let envelope = format!(
        "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>{deep}</soap:Body></soap:Envelope>"
    );
    let inner_doc = format!(
        "<root><notification uid=\"rtyler\" date=\"2024-01-02\" reference=\"DEEP\"><text>{deep}</text></notification></root>"
    )
    .replace('<', "&lt;")
    .replace('>', "&gt;");
    let inner = format!(
        "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><newNotification xmlns=\"urn:Lemonldap::NG::Common::PSGI::SOAPService\"><c>{inner_doc}</c></newNotification></soap:Body></soap:Envelope>"
    );
    for (what, body) in [("envelope", envelope), ("notification", inner)] {
        let r = c.send(
            "POST",
            "/notifications",
            &[
                ("Content-Type", "text/xml; charset=utf-8"),
                (
                    "SOAPAction",
                    "\"urn:Lemonldap::NG::Common::PSGI::SOAPService#newNotification\"",
                ),
            ],
            body.as_bytes(),
        );
        let f = faultstring(&r);
        assert!(f.contains("nested deeper"), "{what}: {f}");
    }
    assert_eq!(result_count(&soap(&c, "1-new-two")), 2);
    assert_eq!(
        store.all().unwrap().len(),
        2,
        "nothing stored by the deep documents"
    );
}
