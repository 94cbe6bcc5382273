//! The logout channels as relying parties meet them: every way a session ends (portal logout,
//! RP-initiated logout, the REST session server's DELETE, `/session/my`, the expiry purge,
//! an expired session met at a request, and `limette sessions delete`) POSTs a logout token
//! to the back-channel RPs the session used, which a small receiver here verifies (Back-Channel Logout 1.0, section 2.4: HS256 with the
//! RP's secret, `typ`, `iss`, `aud`, `events`, `sid` only with `LogoutSessionRequired`, never
//! `nonce`); the pages a browser sees load the front-channel URL of each used RP in an iframe
//! that the page's `frame-src` allows, and none for an unused one; a dead RP does not hold
//! the logout.
use crate::common::oidc::*;
use crate::common::{clock, Portal};
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BYE: &str = "http://127.0.0.1:19999/bye";
const EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";

/// What the receiver got: path, content type, body.
type Got = Arc<Mutex<Vec<(String, String, String)>>>;

/// An RP's logout endpoint: records every request and answers 200.
struct Receiver {
    port: u16,
    got: Got,
}

impl Receiver {
    fn start() -> Receiver {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let got: Got = Arc::default();
        let keep = got.clone();
        std::thread::spawn(move || {
            for s in l.incoming().flatten() {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let (mut line, mut len, mut ctype) = (String::new(), 0, String::new());
                r.read_line(&mut line).unwrap();
                let path = line.split(' ').nth(1).unwrap_or("").to_string();
                loop {
                    let mut h = String::new();
                    r.read_line(&mut h).unwrap();
                    let lower = h.trim().to_ascii_lowercase();
                    if lower.is_empty() {
                        break;
                    }
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap();
                    }
                    if let Some(v) = lower.strip_prefix("content-type:") {
                        ctype = v.trim().to_string();
                    }
                }
                let mut body = vec![0; len];
                r.read_exact(&mut body).unwrap();
                let body = String::from_utf8(body).unwrap();
                keep.lock().unwrap().push((path, ctype, body));
                let mut s = s;
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        Receiver { port, got }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The logout tokens POSTed to `path` (waits a little for the expected `n`).
    fn tokens(&self, path: &str, n: usize) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(3);
        loop {
            let got: Vec<_> = self.got.lock().unwrap().clone();
            let mine: Vec<_> = got.into_iter().filter(|(p, _, _)| p == path).collect();
            if mine.len() >= n || Instant::now() > until {
                return mine
                    .into_iter()
                    .map(|(_, ctype, body)| {
                        assert_eq!(ctype, "application/x-www-form-urlencoded");
                        let t = body.strip_prefix("logout_token=").expect("logout_token");
                        assert!(!t.contains(['%', '&']), "{body}");
                        t.to_string()
                    })
                    .collect();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Checks a logout token as a relying party must (Back-Channel Logout 1.0, section 2.6);
/// returns its claims.
fn verify(p: &Portal, token: &str, client: &str, sid: Option<&str>) -> Value {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "{token}");
    let header = jwt_part(token, 0);
    assert_eq!(
        (header["alg"].as_str(), header["typ"].as_str()),
        (Some("HS256"), Some("logout+jwt"))
    );
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(format!("{}.{}", parts[0], parts[1]).as_bytes());
    let sig = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(parts[2])
        .unwrap();
    mac.verify_slice(&sig).expect("signed with the RP's secret");
    let c = jwt_part(token, 1);
    assert_eq!(c["iss"], p.url("/"));
    assert_eq!(c["aud"], client);
    assert_eq!(c["events"], json!({ EVENT: {} }));
    assert_eq!(c["sub"], "dwho");
    let (iat, exp) = (c["iat"].as_i64().unwrap(), c["exp"].as_i64().unwrap());
    assert!(exp > iat && exp - iat <= 300, "{c}");
    assert!(c["jti"].as_str().is_some_and(|j| j.len() >= 16), "{c}");
    assert!(c.get("nonce").is_none(), "{c}");
    assert_eq!(c.get("sid").and_then(Value::as_str), sid, "{c}");
    c
}

/// RPs: `front` (front-channel, with iss and sid), `unused` (front, never used), `back`
/// (back-channel, with sid) and `back0` (back-channel, no sid).
fn portal(rx: &Receiver, unused: &Receiver, extra: &[(&str, Value)]) -> crate::common::Builder {
    let mut rps = vec![
        (
            "front",
            rp(
                "front",
                json!({"LogoutUrl": rx.url("/fc?app=1"), "LogoutSessionRequired": 1,
                "LogoutBypassConfirm": 1}),
            ),
        ),
        (
            "unused",
            rp("unused", json!({"LogoutUrl": unused.url("/fc")})),
        ),
        (
            "back",
            rp(
                "back",
                json!({"LogoutUrl": rx.url("/bc"), "LogoutType": "back",
                "LogoutSessionRequired": 1}),
            ),
        ),
        (
            "back0",
            rp(
                "back0",
                json!({"LogoutUrl": rx.url("/bc0"), "LogoutType": "back"}),
            ),
        ),
        (
            "backunused",
            rp(
                "backunused",
                json!({"LogoutUrl": rx.url("/bcu"), "LogoutType": "back"}),
            ),
        ),
    ];
    rps.extend(extra.iter().cloned());
    builder(&rps)
}

/// Logs dwho in and has `clients` redeem a code each; returns the session id and the `sid`
/// of the ID tokens.
fn used(p: &Portal, clients: &[&str]) -> (String, String) {
    let id = p.login("dwho");
    let mut sid = String::new();
    for c in clients {
        let r = redeem(p, c, &code(p, &id, c, ""));
        assert_eq!(r.status, 200, "{}", r.text());
        sid = jwt_part(r.json()["id_token"].as_str().unwrap(), 1)["sid"]
            .as_str()
            .unwrap()
            .to_string();
    }
    (id, sid)
}

/// Both back-channel RPs got exactly one valid token, the unused one none.
fn backs_told(p: &Portal, rx: &Receiver, sid: &str) {
    let bc = rx.tokens("/bc", 1);
    assert_eq!(bc.len(), 1);
    verify(p, &bc[0], "back", Some(sid));
    let bc0 = rx.tokens("/bc0", 1);
    assert_eq!(bc0.len(), 1);
    verify(p, &bc0[0], "back0", None);
    assert!(
        rx.tokens("/bcu", 0).is_empty(),
        "an unused RP is told nothing"
    );
}

/// The `src` of every iframe of a page.
fn iframes(page: &str) -> Vec<String> {
    page.split("<iframe")
        .skip(1)
        .map(|f| {
            let s = f.split("src=\"").nth(1).unwrap();
            s.split('"').next().unwrap().replace("&amp;", "&")
        })
        .collect()
}

#[test]
fn portal_logout_loads_front_channel_frames_and_posts_logout_tokens() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    let p = portal(&rx, &unused, &[]).start();
    let disco = p
        .client()
        .get_json("/.well-known/openid-configuration")
        .json();
    for flag in ["frontchannel_logout", "backchannel_logout"] {
        assert_eq!(disco[format!("{flag}_supported")], true);
        assert_eq!(disco[format!("{flag}_session_supported")], true);
    }
    assert!(disco["claims_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("sid")));
    let (id, sid) = used(&p, &["front", "back", "back0"]);
    let r = p.logout_confirmed(&id);
    assert_eq!(r.status, 200);
    let page = r.text();
    assert!(page.contains("trmsg=\"47\""), "{page}");
    let iss = enc(&p.url("/"));
    assert_eq!(
        iframes(&page),
        vec![format!("{}&iss={iss}&sid={sid}", rx.url("/fc?app=1"))]
    );
    let csp = r.header("content-security-policy").unwrap();
    assert!(csp.contains(&format!("frame-src {};", rx.url(""))), "{csp}");
    assert!(!csp.contains(&unused.url("")), "{csp}");
    backs_told(&p, &rx, &sid);
    assert!(unused.got.lock().unwrap().is_empty());
    // A session that used no front-channel RP: no iframe, no frame-src.
    // It goes straight on to the signed-out page.
    let (id, _) = used(&p, &["back0"]);
    let r = p.logout_confirmed(&id);
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(r.header("location").unwrap().ends_with("?loggedout=1"));
    assert!(iframes(&r.text()).is_empty());
    assert!(!r
        .header("content-security-policy")
        .unwrap_or_default()
        .contains("frame-src"));
}

#[test]
fn rp_initiated_logout_shows_the_frames_then_goes_on() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    let p = portal(&rx, &unused, &[]).start();
    let (id, sid) = used(&p, &["back", "back0", "front"]);
    let hint = {
        let r = redeem(&p, "front", &code(&p, &id, "front", ""));
        r.json()["id_token"].as_str().unwrap().to_string()
    };
    let q = format!(
        "/oauth2/logout?id_token_hint={hint}&post_logout_redirect_uri={}&state=s1",
        enc(BYE)
    );
    let r = p
        .client()
        .get(&q, &[("Cookie", &format!("lemonldap={id}"))]);
    assert_eq!(r.status, 200, "an intermediate page, not a redirect yet");
    let page = r.text();
    assert_eq!(iframes(&page).len(), 1, "{page}");
    assert!(iframes(&page)[0].ends_with(&format!("&sid={sid}")));
    assert!(page.contains(&format!("url={BYE}?state=s1\"")), "{page}");
    assert!(page.contains(&format!("href=\"{BYE}?state=s1\"")), "{page}");
    assert!(r.cookie("lemonldap").is_some_and(|c| c == "0"));
    backs_told(&p, &rx, &sid);
}

#[test]
fn rest_delete_and_session_my_tell_the_back_channel() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    let p = portal(&rx, &unused, &[])
        .conf("restSessionServer", json!(1))
        .start();
    let (id, sid) = used(&p, &["back", "back0", "front"]);
    let r = p
        .client()
        .send("DELETE", &format!("/sessions/global/{id}"), &[], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    backs_told(&p, &rx, &sid);
    assert!(
        rx.tokens("/fc?app=1", 0).is_empty(),
        "no browser: no front channel"
    );

    let (rx, unused) = (Receiver::start(), Receiver::start());
    let p = portal(&rx, &unused, &[]).start();
    let (id, sid) = used(&p, &["back", "back0"]);
    let h = [
        ("Accept", "application/json"),
        ("Cookie", &*format!("lemonldap={id}")),
    ];
    let r = p.client().send("DELETE", "/session/my", &h, b"");
    assert_eq!(r.status, 200, "{}", r.text());
    backs_told(&p, &rx, &sid);
}

/// `limette sessions <args>` on the portal's settings (clock moved `skew` seconds).
fn cli(p: &Portal, args: &[&str], skew: i64) -> String {
    let out = crate::common::portal_command(p, &["sessions"])
        .args(args)
        .env("LIMETTE_TEST_HOOKS", "1")
        .env("LIMETTE_TEST_CLOCK_SKEW", skew.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_command_line_and_the_purge_tell_the_back_channel() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    let p = portal(&rx, &unused, &[])
        .conf("timeout", json!(600))
        .test_hooks()
        .start();
    let (id, sid) = used(&p, &["back", "back0"]);
    assert_eq!(
        cli(&p, &["delete", &id], 0),
        format!("session {id} deleted\n")
    );
    backs_told(&p, &rx, &sid);

    let (rx, unused) = (Receiver::start(), Receiver::start());
    let p = portal(&rx, &unused, &[])
        .conf("timeout", json!(600))
        .test_hooks()
        .start();
    let (_, sid) = used(&p, &["back", "back0"]);
    assert_eq!(cli(&p, &["purge"], 0), "0 expired sessions removed\n");
    assert!(
        rx.tokens("/bc", 0).is_empty(),
        "a live session is not ended"
    );
    assert_eq!(cli(&p, &["purge"], 700), "1 expired sessions removed\n");
    backs_told(&p, &rx, &sid);
}

#[test]
fn an_expired_session_seen_at_a_request_tells_the_back_channel() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    let p = portal(&rx, &unused, &[])
        .conf("timeout", json!(600))
        .test_hooks()
        .start();
    let (id, sid) = used(&p, &["back", "back0"]);
    clock::advance(&p, 700);
    let h = [
        ("Accept", "application/json"),
        ("Cookie", &*format!("lemonldap={id}")),
    ];
    assert_eq!(p.client().get("/", &h).status, 401);
    backs_told(&p, &rx, &sid);
}

#[test]
fn a_dead_relying_party_does_not_hold_the_logout() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    let refused = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }; // closed again: connections are refused
    let silent = TcpListener::bind("127.0.0.1:0").unwrap(); // never accepts nor answers
    let silent_url = format!(
        "http://127.0.0.1:{}/bc",
        silent.local_addr().unwrap().port()
    );
    let dead = [
        (
            "refused",
            rp(
                "refused",
                json!({"LogoutType": "back",
                "LogoutUrl": format!("http://127.0.0.1:{refused}/bc")}),
            ),
        ),
        (
            "silent",
            rp(
                "silent",
                json!({"LogoutType": "back", "LogoutUrl": silent_url}),
            ),
        ),
    ];
    let p = portal(&rx, &unused, &dead).start();
    let (id, sid) = used(&p, &["refused", "silent", "back", "back0"]);
    let start = Instant::now();
    let r = p.logout_confirmed(&id);
    let took = start.elapsed();
    assert_eq!(r.status, 302);
    assert!(
        took < Duration::from_millis(2800),
        "the logout took {took:?}"
    );
    backs_told(&p, &rx, &sid);
    let until = Instant::now() + Duration::from_secs(3);
    let log = loop {
        let log = p.log();
        let both = log.contains("relying party refused") && log.contains("relying party silent");
        if both || Instant::now() > until {
            break log;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    for name in ["refused", "silent"] {
        let line = log
            .lines()
            .find(|l| l.contains(&format!("back-channel logout of relying party {name} ")))
            .unwrap_or_else(|| panic!("no warning for {name}: {log}"));
        assert!(line.contains("warn"), "{line}");
    }
    assert!(
        !log.contains("logout_token") && !log.contains("eyJ"),
        "no token in the log: {log}"
    );
    drop(silent);
}

/// The 99th percentile of some durations.
fn p99(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[(d.len() * 99 / 100).min(d.len() - 1)]
}

/// `DELETE /session/my`: the JSON logout, timed.
fn json_logout(p: &Portal, id: &str) -> Duration {
    let h = [
        ("Accept", "application/json"),
        ("Cookie", &*format!("lemonldap={id}")),
    ];
    let start = Instant::now();
    let r = p.client().send("DELETE", "/session/my", &h, b"");
    assert_eq!(r.status, 200, "{}", r.text());
    start.elapsed()
}

#[test]
fn a_relying_party_that_never_answers_slows_no_logout_and_no_user() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    // Accepts every connection and never answers one.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!(
        "http://127.0.0.1:{}/bc",
        silent.local_addr().unwrap().port()
    );
    std::thread::spawn(move || {
        let held: Vec<_> = silent.incoming().flatten().collect();
        drop(held);
    });
    let dead = [(
        "silent",
        rp(
            "silent",
            json!({"LogoutType": "back", "LogoutUrl": silent_url}),
        ),
    )];
    let p = portal(&rx, &unused, &dead).start();
    let timed_sid = p.login("rtyler");
    // 8 users log in, use the silent RP, log out, for 4 s and at least 300 logouts (past the
    // 256 notices one RP may have waiting), 30 s at most.
    let (started, total, left) = (Instant::now(), AtomicUsize::new(0), AtomicUsize::new(8));
    let go_on = || {
        let t = started.elapsed();
        t < Duration::from_secs(30)
            && (t < Duration::from_secs(4) || total.load(Ordering::Relaxed) < 300)
    };
    let (logouts, timed) = std::thread::scope(|s| {
        let loopers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let mut took = Vec::new();
                    while go_on() {
                        let (id, _) = used(&p, &["silent"]);
                        took.push(json_logout(&p, &id));
                        total.fetch_add(1, Ordering::Relaxed);
                    }
                    left.fetch_sub(1, Ordering::Relaxed);
                    took
                })
            })
            .collect();
        let h = [
            ("Accept", "application/json"),
            ("Cookie", &*format!("lemonldap={timed_sid}")),
        ];
        let mut timed = Vec::new();
        while left.load(Ordering::Relaxed) > 0 {
            let start = Instant::now();
            assert_eq!(p.client().get("/", &h).status, 200);
            timed.push(start.elapsed());
            std::thread::sleep(Duration::from_millis(10));
        }
        let logouts: Vec<Duration> = loopers
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        (logouts, timed)
    });
    let (n, lp, tp) = (logouts.len(), p99(logouts), p99(timed));
    eprintln!("{n} logouts, p99 {lp:?}; the timed user's p99 {tp:?}");
    assert!(n >= 300, "{n} logouts");
    assert!(lp < Duration::from_millis(500), "logout p99 {lp:?}");
    assert!(
        tp < Duration::from_millis(300),
        "the timed user's p99 {tp:?}"
    );
    // Meanwhile another RP is told at once: the silent one holds one sender, not both.
    let (id, sid) = used(&p, &["back"]);
    json_logout(&p, &id);
    let bc = rx.tokens("/bc", 1);
    assert_eq!(bc.len(), 1, "the healthy RP waits behind the silent one");
    verify(&p, &bc[0], "back", Some(&sid));
    // The notices did go, each try at the silent RP ending in a logged timeout, and past 256
    // waiting for it the others were dropped, each with an error line naming it.
    let log = p.log();
    assert!(
        log.contains("back-channel logout of relying party silent failed (try 1)"),
        "{log}"
    );
    let dropped =
        "back-channel logout of relying party silent dropped: 256 notices already waiting";
    let line = log.lines().find(|l| l.contains(dropped)).expect(dropped);
    assert!(line.contains("[error]"), "{line}");
    assert!(!log.contains("eyJ"), "no token in the log");
}

#[test]
fn a_notice_that_fails_is_tried_again_and_delivered() {
    let (rx, unused) = (Receiver::start(), Receiver::start());
    // Answers 503 to the first request, 200 to the others; records the bodies.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/bc", l.local_addr().unwrap().port());
    let got: Arc<Mutex<Vec<String>>> = Arc::default();
    let keep = got.clone();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let mut r = BufReader::new(s.try_clone().unwrap());
            let (mut line, mut len) = (String::new(), 0);
            loop {
                line.clear();
                r.read_line(&mut line).unwrap();
                let lower = line.trim().to_ascii_lowercase();
                if lower.is_empty() {
                    break;
                }
                if let Some(v) = lower.strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            r.read_exact(&mut body).unwrap();
            let mut all = keep.lock().unwrap();
            all.push(String::from_utf8(body).unwrap());
            let status = if all.len() == 1 { "503 Busy" } else { "200 OK" };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    let flaky = [(
        "flaky",
        rp("flaky", json!({"LogoutType": "back", "LogoutUrl": url})),
    )];
    let p = portal(&rx, &unused, &flaky).start();
    let (id, _) = used(&p, &["flaky"]);
    assert!(json_logout(&p, &id) < Duration::from_secs(1));
    let until = Instant::now() + Duration::from_secs(15);
    while got.lock().unwrap().len() < 2 {
        assert!(Instant::now() < until, "not tried again: {}", p.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    let bodies = got.lock().unwrap().clone();
    assert_eq!(bodies[0], bodies[1], "the same token, tried again");
    let token = bodies[1].strip_prefix("logout_token=").unwrap();
    verify(&p, token, "flaky", None);
    let log = p.log();
    assert!(
        log.contains("back-channel logout of relying party flaky failed (try 1): HTTP 503"),
        "{log}"
    );
    assert!(!log.contains("given up"), "{log}");
}

/// OpenID Connect Back-Channel Logout 1.0 §2.2 and Front-Channel Logout 1.0 §2.2 through
/// dynamic registration: a client registering `backchannel_logout_uri` (with
/// `backchannel_logout_session_required`) gets it back in the answer and hears of the end of a
/// session it was used in, with `sid`; one registering both channels, or a URI off its
/// redirect URIs' origins, is refused with `invalid_client_metadata` and nothing is saved.
#[test]
fn a_registered_logout_channel_is_kept_and_told() {
    let rx = Receiver::start();
    let p = builder(&[("rp1", rp("rp1", json!({})))])
        .conf("oidcServiceAllowDynamicRegistration", json!(1))
        .conf("oidcServiceDynamicRegistrationRate", json!(100))
        .start();
    let register = |body: Value| {
        p.client().send(
            "POST",
            "/oauth2/register",
            &[("Content-Type", "application/json")],
            &serde_json::to_vec(&body).unwrap(),
        )
    };
    let r = register(json!({"redirect_uris": [CB, rx.url("/cb")],
        "backchannel_logout_uri": rx.url("/reg-bc?x=1"),
        "backchannel_logout_session_required": true}));
    assert_eq!(r.status, 201, "{}", r.text());
    let a = r.json();
    assert_eq!(a["backchannel_logout_uri"], rx.url("/reg-bc?x=1"));
    assert_eq!(a["backchannel_logout_session_required"], true);
    assert!(a.get("frontchannel_logout_uri").is_none());
    let (id, secret) = (
        a["client_id"].as_str().unwrap().to_string(),
        a["client_secret"].as_str().unwrap().to_string(),
    );
    // The refusals: both channels (one LogoutUrl per RP), another origin; never dropped.
    for body in [
        json!({"redirect_uris": [rx.url("/cb")], "backchannel_logout_uri": rx.url("/b"),
            "frontchannel_logout_uri": rx.url("/f")}),
        json!({"redirect_uris": [CB], "frontchannel_logout_uri": rx.url("/f")}),
        json!({"redirect_uris": [CB], "backchannel_logout_session_required": true}),
    ] {
        let r = register(body.clone());
        assert_eq!(r.status, 400, "{body}");
        assert_eq!(r.json()["error"], "invalid_client_metadata", "{body}");
        assert!(r.json()["error_description"]
            .as_str()
            .unwrap()
            .contains("logout"));
    }
    // The registered client is used in a session (consent, code, tokens), which then ends.
    let sso = p.login("dwho");
    let cookie = format!("lemonldap={sso}");
    let page = authorize(&p, Some(&sso), &query(&id, ""), &[]).text();
    let at = page.find("name=\"token\" value=\"").expect("consent page") + 20;
    let csrf = &page[at..at + page[at..].find('"').unwrap()];
    let f = [
        ("response_type", "code"),
        ("client_id", &id),
        ("scope", "openid profile email"),
        ("redirect_uri", CB),
        ("state", "st1"),
        ("nonce", "n1"),
        ("token", csrf),
        ("confirm", "1"),
    ];
    let r = p
        .client()
        .post_form("/oauth2/authorize", &f, &[("Cookie", &cookie)]);
    let c = param(r.header("location").expect("redirect"), "code").unwrap();
    let f = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", CB),
    ];
    let t = token(&p, Some((&id, &secret)), &f);
    assert_eq!(t.status, 200, "{}", t.text());
    let sid = jwt_part(t.json()["id_token"].as_str().unwrap(), 1)["sid"].clone();
    assert!(sid.is_string());
    p.logout_confirmed(&sso);
    let told = rx.tokens("/reg-bc?x=1", 1);
    assert_eq!(told.len(), 1);
    let claims = jwt_part(&told[0], 1);
    assert_eq!(claims["aud"], json!(id));
    assert_eq!(claims["sid"], sid);
    assert!(claims["events"].get(EVENT).is_some(), "{claims}");
}
