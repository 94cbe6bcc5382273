//! Path traversal in every id that reaches storage, and CR/LF aimed at response headers.
use super::{assert_serving, rest_portal};
use crate::common::{hostile, http::enc, Portal};
use base64::Engine;
use serde_json::json;

/// Ids that must never name a file outside the store (sent raw or percent-encoded).
const EVIL: &[&str] = &[
    "..",
    "../canary",
    "..%2Fcanary",
    "%2E%2E%2Fcanary",
    "..%2F..%2F..%2Fetc%2Fpasswd",
    "%2Fetc%2Fpasswd",
    "....%2F%2Fcanary",
    "x%00y",
    "..%5Ccanary",
    ".hidden",
    "%2E",
];

/// What the canary files hold: a session-shaped document, so that a store that read one
/// would serve it, and a marker that no answer may ever contain.
const CANARY: &str = "canary-3f9d1c-never-served";

/// Plants canary files where a traversal from the stores would land: the data folder and the
/// session folder (`..` from a kind's subfolder).
fn plant_canaries(data: &std::path::Path) -> Vec<std::path::PathBuf> {
    let doc = format!(r#"{{"_session_id": "canary", "uid": "{CANARY}", "_utime": 4102444800}}"#);
    let places = [data.join("canary"), data.join("sessions").join("canary")];
    for p in &places {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, &doc).unwrap();
    }
    places.to_vec()
}

/// Sends a request and checks that nothing of a canary is in the answer.
fn send(p: &Portal, method: &str, target: &str, headers: &str, body: &[u8]) -> crate::common::Resp {
    let r = hostile::request(p.port, method, target, headers, body).expect("an answer");
    let head: String = r
        .headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\n"))
        .collect();
    assert!(
        !r.text().contains(CANARY) && !head.contains(CANARY),
        "{method} {target} [{headers}] served a canary: {} {head}{}",
        r.status,
        r.text()
    );
    r
}

/// Asserts the refusal the area prescribes (one of `want`), with no canary in it.
fn assert_refused(
    p: &Portal,
    want: &[u16],
    method: &str,
    target: &str,
    headers: &str,
    body: &[u8],
) {
    let r = send(p, method, target, headers, body);
    assert!(
        want.contains(&r.status),
        "{method} {target} [{headers}]: {} {}",
        r.status,
        r.text()
    );
    assert!(
        r.json()["error"].is_string(),
        "{method} {target}: {}",
        r.text()
    );
}

/// Every area takes ids as names to look up, never as paths: a name that is not valid is a
/// bad request, one that names nothing (after the path is decoded and normalised, RFC 3986
/// section 5.2.4) is not found. Both come with a JSON error and nothing of a canary.
const LOOKUP: &[u16] = &[400, 404];

/// Every method of the REST session server, on both session types, refuses `id`.
fn assert_rest_refuses(p: &Portal, id: &str, put_body: &[u8]) {
    let json = "Content-Type: application/json\r\n";
    for kind in ["global", "persistent"] {
        let target = format!("/sessions/{kind}/{id}");
        let want = LOOKUP;
        assert_refused(p, want, "GET", &target, "", b"");
        assert_refused(p, want, "GET", &format!("{target}/uid"), "", b"");
        assert_refused(p, want, "PUT", &target, json, put_body);
        assert_refused(p, want, "DELETE", &target, "", b"");
    }
}

#[test]
fn traversal_ids_never_reach_a_file_outside_the_store() {
    let p = rest_portal();
    let sso = p.login("dwho");
    let data = p.data().to_path_buf();
    let canaries = plant_canaries(&data);
    let long = "a".repeat(4096);
    for id in EVIL.iter().copied().chain([long.as_str()]) {
        assert_rest_refuses(&p, id, br#"{"uid": "x", "__secret": "bm9wZQ=="}"#);
        // A cookie that names no session is no session: the login answer, and the SSO cookie
        // is cleared or left alone, never given a value.
        let cookie = format!("Cookie: lemonldap={id}\r\n");
        for target in ["/", "/session/my/global", "/mysession/?whoami"] {
            let r = send(&p, "GET", target, &cookie, b"");
            assert_eq!(r.status, 401, "GET {target} with cookie {id}: {}", r.text());
            assert_eq!(r.json()["error"], "1", "GET {target} with cookie {id}");
            let sso = r.cookie("lemonldap");
            assert!(
                matches!(sso.as_deref(), None | Some("0")),
                "GET {target}: {sso:?}"
            );
        }
        // Logging out of no session is LemonLDAP::NG's PE_LOGOUT_OK (47), cookie cleared.
        let r = send(&p, "GET", "/?logout=1", &cookie, b"");
        assert_eq!(
            (r.status, r.json()["error"].clone()),
            (200, json!("47")),
            "logout {id}"
        );
        let sso = r.cookie("lemonldap");
        assert!(
            matches!(sso.as_deref(), None | Some("0")),
            "logout {id}: {sso:?}"
        );
    }
    for c in &canaries {
        assert!(std::fs::read_to_string(c).unwrap().contains(CANARY));
    }
    for stray in ["pwned", "x", "y"] {
        assert!(
            !data.join(stray).exists(),
            "{stray} created outside the store"
        );
    }
    // The real session is untouched.
    let r = hostile::request(
        p.port,
        "GET",
        "/",
        &format!("Cookie: lemonldap={sso}\r\n"),
        b"",
    )
    .unwrap();
    assert_eq!(r.status, 200);
    assert_serving(&p);
}

/// Every header of every answer must be free of what the attacker tried to inject.
fn assert_not_injected(r: &crate::common::Resp, what: &str) {
    assert!(r.status < 500, "{what}: {} {}", r.status, r.text());
    for (k, v) in &r.headers {
        assert!(
            !k.eq_ignore_ascii_case("x-evil"),
            "{what}: injected header {k}: {v}"
        );
        let cookie = k.eq_ignore_ascii_case("set-cookie") && v.trim_start().starts_with("evil");
        assert!(!cookie, "{what}: injected cookie {v}");
    }
}

#[test]
fn crlf_in_values_never_reaches_a_header() {
    let p = Portal::start();
    let sso = p.login("dwho");
    let portal = "http://127.0.0.1:8080/";
    let payloads = [
        format!("{portal}\r\nX-Evil: 1"),
        format!("{portal}%0d%0aX-Evil:%201"),
        format!("{portal}\nSet-Cookie: evil=1"),
    ];
    let b64 = base64::engine::general_purpose::STANDARD;
    let cookie = format!("Cookie: lemonldap={sso}\r\n");
    for raw in &payloads {
        for url in [b64.encode(raw), enc(raw), enc(&b64.encode(raw))] {
            // After login (HTML flow: a redirect would carry the URL in Location).
            let r = hostile::request(p.port, "GET", &format!("/?url={url}"), &cookie, b"").unwrap();
            assert_not_injected(&r, &format!("GET /?url={url}"));
            let req =
                format!("GET /?url={url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{cookie}\r\n");
            if let Ok(r) = hostile::raw(p.port, req.as_bytes()) {
                assert_not_injected(&r, &format!("HTML GET /?url={url}"));
            }
            // At login, with the URL in the form.
            let form = format!("user=rtyler&password=rtyler&url={url}");
            let r = hostile::request(
                p.port,
                "POST",
                "/",
                "Content-Type: application/x-www-form-urlencoded\r\n",
                form.as_bytes(),
            )
            .unwrap();
            assert_not_injected(&r, &format!("login with url={url}"));
        }
    }
    assert_serving(&p);
}

#[test]
fn traversal_ids_in_notification_oidc_and_config_routes_stay_inside() {
    let p = Portal::builder()
        .conf("restConfigServer", serde_json::json!(1))
        .conf("notificationServer", serde_json::json!(1))
        .conf("notificationServerGET", serde_json::json!(1))
        .conf("notificationServerDELETE", serde_json::json!(1))
        .start();
    let data = p.data().to_path_buf();
    let canaries = plant_canaries(&data);
    let form = "Content-Type: application/x-www-form-urlencoded\r\n";
    let basic = format!(
        "Authorization: Basic {}\r\n",
        base64::engine::general_purpose::STANDARD.encode("demo:demosecret")
    );
    let client = format!("{form}{basic}");
    for id in EVIL {
        // One segment is a user's list (empty); a raw `/` makes it a user and a reference.
        let r = send(&p, "GET", &format!("/notifications/{id}"), "", b"");
        if r.status == 200 {
            assert_eq!(r.json(), json!({"result": []}), "{id}");
        } else {
            assert!(
                LOOKUP.contains(&r.status),
                "{id}: {} {}",
                r.status,
                r.text()
            );
        }
        assert_refused(
            &p,
            LOOKUP,
            "GET",
            &format!("/notifications/{id}/{id}"),
            "",
            b"",
        );
        assert_refused(
            &p,
            LOOKUP,
            "DELETE",
            &format!("/notifications/dwho/{id}"),
            "",
            b"",
        );
        assert_refused(
            &p,
            LOOKUP,
            "DELETE",
            &format!("/notifications/{id}/ref"),
            "",
            b"",
        );
        assert_refused(&p, LOOKUP, "GET", &format!("/config/{id}"), "", b"");
        assert_refused(&p, LOOKUP, "GET", &format!("/config/latest/{id}"), "", b"");
        let code = format!("grant_type=authorization_code&code={id}&redirect_uri=http%3A%2F%2F127.0.0.1%3A9999%2Fcb");
        let r = send(&p, "POST", "/oauth2/token", &client, code.as_bytes());
        assert_eq!(
            (r.status, r.json()["error"].clone()),
            (400, "invalid_grant".into()),
            "code {id}"
        );
        let refresh = format!("grant_type=refresh_token&refresh_token={id}");
        let r = send(&p, "POST", "/oauth2/token", &client, refresh.as_bytes());
        assert_eq!(
            (r.status, r.json()["error"].clone()),
            (400, "invalid_grant".into()),
            "refresh {id}"
        );
        let bearer = format!("Authorization: Bearer {id}\r\n");
        assert_refused(&p, &[401], "GET", "/oauth2/userinfo", &bearer, b"");
        let r = send(
            &p,
            "POST",
            "/oauth2/introspect",
            &client,
            format!("token={id}").as_bytes(),
        );
        assert_eq!(
            (r.status, r.json()),
            (200, json!({"active": false})),
            "introspect {id}"
        );
    }
    for c in &canaries {
        assert!(std::fs::read_to_string(c).unwrap().contains(CANARY));
    }
    assert!(
        data.join("conf/lmConf-1.json").exists(),
        "configuration intact"
    );
    assert_serving(&p);
}

/// `url=` look-alikes of the portal (userinfo, backslash, suffixed host) never become a
/// redirect; the portal's own URL still does.
#[test]
fn look_alike_redirect_targets_are_not_followed() {
    let p = Portal::start();
    let sso = p.login("dwho");
    let b64 = base64::engine::general_purpose::STANDARD;
    let get = |target: &str| {
        let req = format!(
            "GET /?url={} HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\nCookie: lemonldap={sso}\r\n\r\n",
            enc(&b64.encode(target))
        );
        hostile::raw(p.port, req.as_bytes()).unwrap()
    };
    let good = get("http://127.0.0.1:8080/after");
    assert_eq!(good.status, 302, "{}", good.text());
    assert_eq!(good.header("location"), Some("http://127.0.0.1:8080/after"));
    for evil in [
        "http://127.0.0.1:8080@evil.example/",
        "http://127.0.0.1:8080.evil.example/",
        "http://127.0.0.1@evil.example/",
        "http://evil.example\\@127.0.0.1:8080/",
    ] {
        let r = get(evil);
        let location = r.header("location").unwrap_or("");
        assert!(
            !location.contains("evil"),
            "{evil} redirected to {location}"
        );
        assert_eq!(r.status, 200, "{evil}: {}", r.text());
    }
}

/// The internal kinds live in subfolders of the SSO session folder: their names are no session
/// ids (a 4xx, where they once read a folder and answered 500), and the folders stay.
#[test]
fn internal_folder_names_are_not_session_ids() {
    let p = rest_portal();
    let sso = p.login("dwho");
    let sessions = p.data().join("sessions");
    for name in ["oidc", "pending"] {
        assert!(sessions.join(name).is_dir(), "{name} folder");
        assert_rest_refuses(&p, name, br#"{"uid": "x"}"#);
        let cookie = format!("Cookie: lemonldap={name}\r\n");
        assert_refused(&p, &[401], "GET", "/session/my/global", &cookie, b"");
        assert!(sessions.join(name).is_dir(), "{name} folder still there");
    }
    let r = hostile::request(p.port, "GET", &format!("/sessions/global/{sso}"), "", b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_serving(&p);
}

/// Session ids are bearer secrets: REST reads, a refused `__secret` and a logout put none of
/// them in the log, whole.
#[test]
fn session_ids_never_reach_the_log_whole() {
    let p = rest_portal();
    let sso = p.login("dwho");
    for target in [
        format!("/sessions/global/{sso}"),
        format!("/sessions/global/{sso}/uid"),
    ] {
        let r = hostile::request(p.port, "GET", &target, "", b"").unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let json = "Content-Type: application/json\r\n";
    let bad_secret = br#"{"uid": "x", "__secret": "bm9wZQ=="}"#;
    let target = format!("/sessions/global/{sso}");
    assert_refused(&p, &[400], "PUT", &target, json, bad_secret);
    let cookie = format!("Cookie: lemonldap={sso}\r\n");
    let r = hostile::request(p.port, "GET", "/?logout=1", &cookie, b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.cookie("lemonldap").as_deref(),
        Some("0"),
        "logout clears the cookie"
    );
    let log = p.log();
    assert!(
        log.contains(&format!("/sessions/global/{}…", &sso[..4])),
        "{log}"
    );
    assert!(!log.contains(&sso), "a session id in the log:\n{log}");
}
