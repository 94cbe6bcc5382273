//! Dynamic registration's bounds (issue 40, item 2), attacked as the finding did: a thousand
//! registrations from one address (127.0.0.2) grow neither the data folder nor the server's
//! memory; the rate answers 429 with `Retry-After` while another address still registers;
//! oversized metadata, a full set of self-registered clients, and the versions registrations
//! leave behind are each bounded. Item 14 too: a self-registered client is no open redirect.
use crate::common::hostile::{self, request_from};
use crate::common::oidc::*;
use crate::common::{Portal, Resp};
use serde_json::{json, Value};
use std::path::Path;

/// A portal with registration on and `extra` keys.
fn portal(extra: &[(&str, Value)]) -> Portal {
    let mut b = builder(&[("rp1", rp("rp1", json!({})))])
        .conf("oidcServiceAllowDynamicRegistration", json!(1));
    for (k, v) in extra {
        b = b.conf(k, v.clone());
    }
    b.start()
}

/// `POST /oauth2/register` from the loopback address `from`, on a connection of its own.
fn register_from(p: &Portal, from: &str, body: &Value) -> Resp {
    let bytes = serde_json::to_vec(body).unwrap();
    let h = "Content-Type: application/json\r\n";
    request_from(from, p.port, "POST", "/oauth2/register", h, &bytes).expect("an answer")
}

fn minimal() -> Value {
    json!({"redirect_uris": [CB]})
}

/// Bytes under `dir`, every file of every folder.
fn size_of(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => size_of(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

fn conf_versions(p: &Portal) -> Vec<u64> {
    let mut v: Vec<u64> = std::fs::read_dir(p.data().join("conf"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            n.strip_prefix("lmConf-")?
                .strip_suffix(".json")?
                .parse()
                .ok()
        })
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn a_thousand_registrations_from_one_address_leave_disk_and_memory_alone() {
    let p = portal(&[]);
    let pid = p.child.as_ref().unwrap().id();
    // A first registration from elsewhere warms what every later one uses (keys, settings).
    assert_eq!(register_from(&p, "127.0.0.3", &minimal()).status, 201);
    let (disk0, rss0) = (size_of(p.data()), hostile::rss_kib(pid));
    let mut created = 0;
    for i in 0..1000 {
        // Each a little different, near the size cap, as an attacker fills the disk.
        let body = json!({"redirect_uris": [CB], "client_name": format!("flood {i}"),
            "padding": "x".repeat(7000)});
        let r = register_from(&p, "127.0.0.2", &body);
        match r.status {
            201 => created += 1,
            429 => {
                assert_eq!(r.json()["error"], "temporarily_unavailable");
                let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
                assert!((1..=60).contains(&wait), "{wait}");
            }
            s => panic!("{s}: {}", r.text()),
        }
    }
    assert_eq!(created, 5, "the default rate is 5 a minute");
    let grown = size_of(p.data()).saturating_sub(disk0);
    assert!(grown < 10 << 20, "the data folder grew by {grown} bytes");
    let rss = hostile::rss_kib(pid).saturating_sub(rss0);
    assert!(rss < 20 << 10, "RSS grew by {rss} KiB");
    // Another address is not held back by the flood.
    assert_eq!(register_from(&p, "127.0.0.4", &minimal()).status, 201);
}

#[test]
fn metadata_over_the_size_cap_is_refused() {
    let p = portal(&[("oidcServiceDynamicRegistrationMaxSize", json!(2048))]);
    let body = |n: usize| json!({"redirect_uris": [CB], "padding": "x".repeat(n)});
    let r = register_from(&p, "127.0.0.2", &body(2100));
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("invalid_client_metadata"))
    );
    assert!(r.text().contains("over 2048 bytes"), "{}", r.text());
    assert_eq!(register_from(&p, "127.0.0.2", &body(1900)).status, 201);
    assert_eq!(conf_versions(&p).len(), 2, "the refused one saved nothing");
}

#[test]
fn registrations_stop_at_the_cap_on_self_registered_clients() {
    let p = portal(&[
        ("oidcServiceDynamicRegistrationMaxClients", json!(2)),
        ("oidcServiceDynamicRegistrationRate", json!(100)),
    ]);
    for from in ["127.0.0.2", "127.0.0.3"] {
        assert_eq!(register_from(&p, from, &minimal()).status, 201);
    }
    let r = register_from(&p, "127.0.0.4", &minimal());
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (403, json!("access_denied"))
    );
    assert!(
        r.text().contains("self-registered clients (2)"),
        "{}",
        r.text()
    );
}

#[test]
fn only_the_newest_versions_made_by_registrations_are_kept() {
    let p = portal(&[
        ("oidcServiceDynamicRegistrationKeptVersions", json!(2)),
        ("oidcServiceDynamicRegistrationRate", json!(100)),
    ]);
    for _ in 0..5 {
        assert_eq!(register_from(&p, "127.0.0.2", &minimal()).status, 201);
    }
    // 1 was written by hand (the test's), 2-6 by registrations: 5 and 6 stay beside 1.
    assert_eq!(conf_versions(&p), [1, 5, 6]);
    // The newest holds every registered client.
    let latest: Value = serde_json::from_slice(
        &std::fs::read(p.data().join("conf").join("lmConf-6.json")).unwrap(),
    )
    .unwrap();
    let rps = latest["oidcRPMetaDataOptions"].as_object().unwrap();
    assert_eq!(rps.keys().filter(|k| k.starts_with("register-")).count(), 5);
}

#[test]
fn the_rate_is_per_address() {
    let p = portal(&[("oidcServiceDynamicRegistrationRate", json!(2))]);
    for _ in 0..2 {
        assert_eq!(register_from(&p, "127.0.0.2", &minimal()).status, 201);
    }
    let r = register_from(&p, "127.0.0.2", &minimal());
    assert_eq!(r.status, 429, "{}", r.text());
    assert!(r.header("retry-after").is_some());
    assert_eq!(register_from(&p, "127.0.0.3", &minimal()).status, 201);
}

/// Issue 40, item 14: a post-logout URI off the client's origins is refused at registration;
/// a self-registered client's URI is followed only with a verified hint issued to it.
#[test]
fn a_self_registered_client_is_no_open_redirect_at_logout() {
    const BYE: &str = "http://127.0.0.1:19999/bye";
    let p = portal(&[]);
    let evil =
        json!({"redirect_uris": [CB], "post_logout_redirect_uris": ["http://evil.example/"]});
    let r = register_from(&p, "127.0.0.2", &evil);
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("invalid_client_metadata"))
    );
    let userinfo = json!({"redirect_uris": ["http://127.0.0.1:19999@evil.example/cb"]});
    assert_eq!(register_from(&p, "127.0.0.2", &userinfo).status, 400);
    let r = register_from(
        &p,
        "127.0.0.2",
        &json!({"redirect_uris": [CB], "post_logout_redirect_uris": [BYE],
            "id_token_signed_response_alg": "HS256"}),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let a = r.json();
    let (id, secret) = (
        a["client_id"].as_str().unwrap(),
        a["client_secret"].as_str().unwrap(),
    );
    // Without a hint: the portal's logout page, not the registered URI.
    let q = format!(
        "/oauth2/logout?client_id={id}&post_logout_redirect_uri={}&state=z",
        enc(BYE)
    );
    let r = p.client().get(&q, &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("location").is_none());
    // With a verified ID token of that client: back to it.
    let sid = p.login("dwho");
    let c = consented_code(&p, &sid, id, "openid");
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
    ];
    let t = token(&p, Some((id, secret)), &f);
    assert_eq!(t.status, 200, "{}", t.text());
    let idt = t.json()["id_token"].as_str().unwrap().to_string();
    let q = format!(
        "/oauth2/logout?id_token_hint={idt}&post_logout_redirect_uri={}&state=z",
        enc(BYE)
    );
    let r = p.client().get(&q, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some(&*format!("{BYE}?state=z")));
}
