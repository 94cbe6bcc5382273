//! The address rules and credentials of the REST session, configuration and notification
//! servers, tried from 127.0.0.1 and from a client bound to 127.0.0.2.
use super::common::sessions::b64;
use super::{basic, call, get, scratch, servers, start_with};
use serde_json::json;

const NOTE: &[u8] = br#"{"uid":"dwho","date":"2024-01-02","reference":"R1","text":"t"}"#;
const JSON_BODY: &str = "Content-Type: application/json\r\n";

/// The JSON error and the log line of a refusal from `from` on `path`.
fn assert_forbidden(p: &super::Portal, r: &super::Resp, from: &str, path: &str) {
    assert_eq!(r.status, 403, "{path} from {from}: {}", r.text());
    assert!(
        r.json()["error"].as_str().is_some(),
        "a JSON error: {}",
        r.text()
    );
    let log = p.log();
    assert!(
        log.lines()
            .any(|l| l.contains(&format!("{path}: refused to {from}")) && l.contains("[warn]")),
        "the log names {path} and {from}:\n{log}"
    );
}

#[test]
fn loopback_by_default_a_narrower_rule_refuses_the_rest_and_users_reach_their_pages() {
    // The default rule is LemonLDAP::NG's web server rule, the loopback block `127.0.0.0/8 ::1`:
    // both loopback clients are in. (A foreign address under the default rule is tried
    // through a trusted proxy in `x_forwarded_for_...`.)
    let p = servers().start();
    let id = p.login("dwho");
    let session = format!("/sessions/global/{id}");
    for from in ["127.0.0.1", "127.0.0.2"] {
        for path in [session.as_str(), "/config/latest", "/notifications/dwho"] {
            let r = get(&p, from, path);
            assert_eq!(r.status, 200, "{path} from {from}: {}", r.text());
        }
    }
    drop(p);
    let p = servers()
        .ini("sessionsAllowFrom = 127.0.0.1 ::1")
        .ini("configAllowFrom = 127.0.0.1")
        .ini("notificationsAllowFrom = 127.0.0.1")
        .start();
    let id = p.login("dwho");
    let session = format!("/sessions/global/{id}");
    for path in [
        session.as_str(),
        "/config/latest",
        "/notifications/dwho",
        "/config/1?full=1",
    ] {
        assert_eq!(get(&p, "127.0.0.1", path).status, 200, "{path}");
        let r = get(&p, "127.0.0.2", path);
        let logged = path.split('?').next().unwrap_or(path);
        assert_forbidden(&p, &r, "127.0.0.2", &logged.replace(&id, &shorten(&id)));
    }
    // Refused before any store is touched: nothing deleted, nothing inserted.
    let r = call(&p, "127.0.0.2", "DELETE", &session, "", b"");
    assert_eq!(r.status, 403);
    let r = call(&p, "127.0.0.2", "POST", "/notifications", JSON_BODY, NOTE);
    assert_eq!(r.status, 403);
    assert_eq!(get(&p, "127.0.0.1", &session).status, 200, "still there");
    let r = get(&p, "127.0.0.1", "/notifications/dwho");
    assert_eq!(r.json()["result"], json!([]), "nothing inserted");
    // The user's own pages stay open to every address.
    let cookie = format!("Cookie: lemonldap={id}\r\n");
    for path in ["/session/my/global", "/mysession/?whoami", "/"] {
        let r = call(&p, "127.0.0.2", "GET", path, &cookie, b"");
        assert_eq!(r.status, 200, "{path}: {}", r.text());
    }
}

/// A session id as the log shows it.
fn shorten(id: &str) -> String {
    format!("{}…", &id[..4])
}

#[test]
fn the_soap_notification_server_follows_the_same_rule() {
    let p = servers()
        .conf("oldNotifFormat", json!(1))
        .ini("notificationsAllowFrom = 127.0.0.1")
        .start();
    let envelope = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/soap/1-new-two.xml"
    ))
    .unwrap();
    let headers = "Content-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:Lemonldap::NG::Common::PSGI::SOAPService#newNotification\"\r\n";
    let r = call(
        &p,
        "127.0.0.2",
        "POST",
        "/notifications",
        headers,
        &envelope,
    );
    assert_forbidden(&p, &r, "127.0.0.2", "/notifications");
    let r = call(
        &p,
        "127.0.0.1",
        "POST",
        "/notifications",
        headers,
        &envelope,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains(">2</result>"), "{}", r.text());
}

#[test]
fn a_rule_naming_another_address_turns_loopback_away() {
    let p = servers().ini("sessionsAllowFrom = 127.0.0.2").start();
    let id = p.login("dwho");
    let session = format!("/sessions/global/{id}");
    assert_eq!(get(&p, "127.0.0.2", &session).status, 200);
    let r = get(&p, "127.0.0.1", &session);
    assert_forbidden(
        &p,
        &r,
        "127.0.0.1",
        &format!("/sessions/global/{}", shorten(&id)),
    );
    // The other servers keep their defaults.
    assert_eq!(get(&p, "127.0.0.1", "/config/latest").status, 200);
}

#[test]
fn a_star_opens_a_server_to_all_and_says_so() {
    let p = servers()
        .ini("sessionsAllowFrom = 127.0.0.1")
        .ini("configAllowFrom = *")
        .start();
    for from in ["127.0.0.1", "127.0.0.2"] {
        assert_eq!(get(&p, from, "/config/latest").status, 200, "{from}");
    }
    assert_eq!(get(&p, "127.0.0.2", "/sessions/global/x").status, 403);
    let log = p.log();
    assert!(
        log.lines()
            .any(|l| l.contains("[warn]") && l.contains("configAllowFrom = *")),
        "{log}"
    );
    assert!(!log.contains("sessionsAllowFrom = *"), "{log}");
    let run = super::common::config::cli(&p, &["check"]);
    assert_eq!(run.code, Some(1), "a warning: {run:?}");
    assert!(run.stdout.contains("configAllowFrom = *"), "{run:?}");
}

/// `{SSHA256}` of `password` with `salt`, as the docs tell an operator to make it.
fn ssha256(password: &str, salt: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut raw = Sha256::new()
        .chain_update(password)
        .chain_update(salt)
        .finalize()
        .to_vec();
    raw.extend_from_slice(salt);
    format!("{{SSHA256}}{}", b64(&raw))
}

#[test]
fn credentials_are_asked_after_the_address_rule() {
    for password in [
        "s3cret pass".to_string(),
        ssha256("s3cret pass", b"NaCl-salt"),
    ] {
        let p = servers()
            .ini("sessionsAllowFrom = 127.0.0.1")
            .ini("configAllowFrom = 127.0.0.1")
            .ini("notificationsAllowFrom = 127.0.0.1")
            .ini("restUser = replica")
            .ini(&format!("restPassword = {password}"))
            .start();
        let id = p.login("dwho");
        let session = format!("/sessions/global/{id}");
        let right = basic("replica", "s3cret pass");
        for path in [session.as_str(), "/config/latest", "/notifications/dwho"] {
            let mut wrongs = vec![
                String::new(),
                basic("replica", "s3cret"),
                basic("other", "s3cret pass"),
                "Authorization: Bearer s3cret pass\r\n".into(),
            ];
            if password.starts_with('{') {
                wrongs.push(basic("replica", &password));
            }
            for wrong in wrongs {
                let r = call(&p, "127.0.0.1", "GET", path, &wrong, b"");
                assert_eq!(r.status, 401, "{path} with {wrong:?}: {}", r.text());
                assert_eq!(
                    r.header("www-authenticate"),
                    Some("Basic realm=\"Limette REST servers\", charset=\"UTF-8\"")
                );
                assert!(r.json()["error"].is_string());
            }
            let r = call(&p, "127.0.0.1", "GET", path, &right, b"");
            assert_eq!(r.status, 200, "{path}: {}", r.text());
            // The address first: the right credentials from outside are still refused.
            let r = call(&p, "127.0.0.2", "GET", path, &right, b"");
            assert_eq!(r.status, 403, "{path}");
        }
        let r = call(&p, "127.0.0.1", "DELETE", &session, "", b"");
        assert_eq!(r.status, 401);
        assert_eq!(get_with(&p, &session, &right), 200, "not deleted");
        assert!(!p.log().contains("s3cret"), "no password in the log");
        // A request without credentials is the challenge LemonLDAP::NG's clients wait for, not
        // an attack: only the wrong credentials are warnings (3 or 4 per path).
        let warned = p
            .log()
            .lines()
            .filter(|l| l.contains("[warn]") && l.contains("restUser/restPassword"))
            .count();
        let wrong_per_path = if password.starts_with('{') { 4 } else { 3 };
        assert_eq!(warned, 3 * wrong_per_path, "{}", p.log());
    }
}

fn get_with(p: &super::Portal, path: &str, headers: &str) -> u16 {
    call(p, "127.0.0.1", "GET", path, headers, b"").status
}

#[test]
fn x_forwarded_for_names_the_client_behind_a_trusted_proxy_only() {
    let p = servers()
        .ini("trustedProxies = 127.0.0.2")
        .ini("sessionsAllowFrom = 10.1.2.3")
        .start();
    let id = p.login("dwho");
    let session = format!("/sessions/global/{id}");
    let xff = |ip: &str| format!("X-Forwarded-For: {ip}\r\n");
    // The trusted proxy forwards an allowed client, then a foreign one.
    let r = call(&p, "127.0.0.2", "GET", &session, &xff("10.1.2.3"), b"");
    assert_eq!(r.status, 200, "{}", r.text());
    let r = call(&p, "127.0.0.2", "GET", &session, &xff("192.0.2.7"), b"");
    assert_eq!(r.status, 403);
    assert!(p.log().contains("refused to 192.0.2.7"), "{}", p.log());
    // A client's own entries left of the proxy's are not believed.
    let r = call(
        &p,
        "127.0.0.2",
        "GET",
        &session,
        &xff("10.1.2.3, 192.0.2.7"),
        b"",
    );
    assert_eq!(r.status, 403);
    // An untrusted peer names itself whatever it claims.
    let r = call(&p, "127.0.0.1", "GET", &session, &xff("10.1.2.3"), b"");
    assert_eq!(r.status, 403);
    // Nor can it state the client in the stage's own header.
    let own = "X-Limette-Client: 10.1.2.3\r\n";
    let r = call(&p, "127.0.0.1", "GET", &session, own, b"");
    assert_eq!(r.status, 403);
    // With the default rule, a proxy on loopback does not make its remote clients local.
    let p = servers().ini("trustedProxies = 127.0.0.2").start();
    let r = call(
        &p,
        "127.0.0.2",
        "GET",
        "/config/latest",
        &xff("192.0.2.7"),
        b"",
    );
    assert_eq!(r.status, 403);
    let r = call(
        &p,
        "127.0.0.2",
        "GET",
        "/config/latest",
        &xff("127.0.0.1"),
        b"",
    );
    assert_eq!(r.status, 200);
}

#[test]
fn a_bad_rule_or_half_credentials_stop_start_up() {
    for (line, key, shown) in [
        (
            "sessionsAllowFrom = 10.0.0.0/33",
            "sessionsAllowFrom",
            "10.0.0.0/33",
        ),
        (
            "configAllowFrom = localhost",
            "configAllowFrom",
            "localhost",
        ),
        (
            "notificationsAllowFrom = 127.0.0.1 *",
            "notificationsAllowFrom",
            "*",
        ),
        ("restUser = replica", "restPassword", "restUser"),
        (
            "restUser = r\nrestPassword = {MD5}eHl6",
            "restPassword",
            "{MD5}",
        ),
    ] {
        let dir = scratch("access-bad");
        let o = start_with(dir.path(), line);
        assert_eq!(o.code, Some(2), "{line}: {}", o.stderr);
        assert_eq!(o.stdout, "", "{line}: nothing listens");
        let errors: Vec<&str> = o.stderr.lines().filter(|l| l.contains(key)).collect();
        assert_eq!(
            errors.len(),
            1,
            "{line}: one line naming {key}: {}",
            o.stderr
        );
        assert!(errors[0].contains(shown), "{line}: {}", o.stderr);
    }
}

#[test]
fn the_path_prefix_aliases_follow_the_same_rules() {
    let p = servers()
        .ini("pathPrefix = /index.fcgi")
        .ini("sessionsAllowFrom = 127.0.0.1")
        .ini("configAllowFrom = 127.0.0.1")
        .start();
    let id = p.login("dwho");
    for path in [
        format!("/index.fcgi/sessions/global/{id}"),
        "/index.fcgi/config/latest".to_string(),
    ] {
        assert_eq!(get(&p, "127.0.0.1", &path).status, 200, "{path}");
        assert_eq!(get(&p, "127.0.0.2", &path).status, 403, "{path}");
    }
}
