//! The audit lines of the servers' writes: REST session deletion, notification insert and
//! delete (REST and SOAP), configuration save by the command line. One line each, in the
//! stable format `audit event=<event> key=value ...`, naming no secret.
use super::common::config::cli;
use super::{call, servers};
use serde_json::json;

/// The audit lines of a log.
fn audits(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.split_once("] audit ").map(|(_, a)| a.to_string()))
        .collect()
}

#[test]
fn deletions_inserts_and_saves_write_one_audit_line_each() {
    let p = servers().start();
    let id = p.login("dwho");
    let r = call(
        &p,
        "127.0.0.2",
        "DELETE",
        &format!("/sessions/global/{id}"),
        "",
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let note = json!([
        {"uid": "dwho", "date": "2024-01-02", "reference": "R 1", "text": "t"},
        {"uid": "rtyler", "date": "2024-01-02", "reference": "R2", "text": "t"}
    ]);
    let body = note.to_string();
    let headers = "Content-Type: application/json\r\n";
    let r = call(
        &p,
        "127.0.0.1",
        "POST",
        "/notifications",
        headers,
        body.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = call(
        &p,
        "127.0.0.1",
        "DELETE",
        "/notifications/dwho/R%201",
        "",
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let run = cli(&p, &["-yes", "1", "set", "timeout", "7200"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let shown = format!("{}…", &id[..4]);
    let served: Vec<String> = audits(&p.log())
        .into_iter()
        .filter(|l| !l.starts_with("event=config_save"))
        .collect();
    assert_eq!(
        served,
        vec![
            "event=login user=dwho address=127.0.0.1 module=Demo".to_string(),
            format!("event=session_delete kind=global session={shown} via=rest address=127.0.0.2"),
            "event=notification_insert count=2 via=rest address=127.0.0.1".to_string(),
            "event=notification_delete uid=dwho reference=\"R 1\" count=1 via=rest address=127.0.0.1"
                .to_string(),
        ]
    );
    assert!(!p.log().contains(&id), "no session id in the log");
    // The command line's own output stays LemonLDAP::NG's; the server that takes the new
    // configuration up writes the audit line, from the metadata the save stamped.
    assert_eq!(run.stderr, "Saved under number 2\n");
    let saved = || {
        audits(&p.log())
            .into_iter()
            .filter(|l| l.starts_with("event=config_save"))
            .collect::<Vec<_>>()
    };
    assert!(
        crate::common::config::poll(std::time::Duration::from_secs(10), || !saved().is_empty()),
        "no config_save line:\n{}",
        p.log()
    );
    let saved = saved();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(
        saved[0].starts_with("event=config_save num=2 author=")
            && saved[0].ends_with("address=127.0.0.1 log=\"Set timeout\""),
        "{}",
        saved[0]
    );
}

#[test]
fn soap_inserts_and_deletions_are_audited_too() {
    let p = servers().conf("oldNotifFormat", json!(1)).start();
    let fixture = |name: &str| {
        std::fs::read(format!(
            "{}/tests/fixtures/soap/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let headers = |action: &str| {
        format!("Content-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:Lemonldap::NG::Common::PSGI::SOAPService#{action}\"\r\n")
    };
    let r = call(
        &p,
        "127.0.0.1",
        "POST",
        "/notifications",
        &headers("newNotification"),
        &fixture("1-new-two.xml"),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = call(
        &p,
        "127.0.0.1",
        "POST",
        "/notifications",
        &headers("deleteNotification"),
        &fixture("2-delete.xml"),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let lines = audits(&p.log());
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        lines[0],
        "event=notification_insert count=2 via=soap address=127.0.0.1"
    );
    assert_eq!(
        lines[1],
        "event=notification_delete uid=rtyler reference=XMLA count=1 via=soap address=127.0.0.1"
    );
}
