//! A request object by reference, met as a hostile `request_uri` serves it: more than 16 KiB
//! (refused whole, and no more than that read), a redirect (not followed), an answer after
//! 3 s (refused within about 2 s); and request objects whose `exp`, `nbf` or `iat` do not hold.
use crate::common::oidc::*;
use crate::common::Portal;
use limette::oidc::jwt::{self, Alg, SignKey};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A request object signed with the RP's secret.
fn object(claims: Value) -> String {
    let m = claims.as_object().cloned().unwrap_or_default();
    jwt::sign(&m, Alg::HS256, "JWT", SignKey::Secret(SECRET.as_bytes())).unwrap()
}

/// Reads a request's head.
fn read_head(s: &TcpStream) {
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    while r.read_line(&mut line).unwrap_or(0) > 2 {
        line.clear();
    }
}

/// Serves each connection with `answer` on its own thread; the base URL and how many
/// connections came.
fn serve(answer: impl Fn(TcpStream) + Send + Sync + 'static) -> (String, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let (answer, count) = (Arc::new(answer), seen.clone());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            let answer = answer.clone();
            std::thread::spawn(move || answer(s));
        }
    });
    (format!("http://127.0.0.1:{port}"), seen)
}

/// A 200 with `body` after `delay`.
fn ok_after(s: TcpStream, body: &str, delay: Duration) {
    read_head(&s);
    // The slow server under test: the delay is the fault, not a wait.
    std::thread::sleep(delay);
    let mut s = s;
    let _ = write!(
        s,
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A portal whose RP `app` may send request objects from `base`, with a logged-in user.
fn portal(base: &str) -> (Portal, String) {
    let p = start(&[(
        "app",
        rp("app", json!({"RequestUris": format!("{base}/*")})),
    )]);
    let sid = p.login("dwho");
    (p, sid)
}

/// The `error` an authorize with `request_uri` gets back at the redirect URI.
fn by_reference(p: &Portal, sid: &str, uri: &str) -> Option<String> {
    let q = format!(
        "client_id=app&response_type=code&scope=openid&state=s&redirect_uri={}&request_uri={}",
        enc(CB),
        enc(uri)
    );
    let r = authorize(p, Some(sid), &q, &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    // Given by a fetcher, finished as any answer is.
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    let loc = r.header("location").unwrap().to_string();
    assert!(loc.starts_with(CB), "{loc}");
    param(&loc, "error")
}

#[test]
fn a_request_object_over_16_kib_is_refused_whole_and_no_more_is_read() {
    // A valid object padded past 16 KiB: refused, not cut to its valid start.
    let obj = object(json!({"scope": "openid", "nonce": "padded"}));
    let padded = format!("{obj}{}", " ".repeat(16 * 1024 + 100 - obj.len()));
    let (base, _) = serve(move |s| ok_after(s, &padded, Duration::ZERO));
    let (p, sid) = portal(&base);
    let err = by_reference(&p, &sid, &format!("{base}/padded"));
    assert_eq!(err.as_deref(), Some("invalid_request_uri"));
    // An endless answer: the portal stops reading after 16 KiB and a byte (what the kernel
    // buffers hold comes on top), where it read 16 MiB before.
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = sent.clone();
    let (endless, _) = serve(move |mut s| {
        read_head(&s);
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n";
        if s.write_all(head.as_bytes()).is_err() {
            return;
        }
        let chunk = [b'a'; 16 * 1024];
        while s.write_all(&chunk).is_ok() {
            counted.fetch_add(chunk.len(), Ordering::SeqCst);
        }
    });
    let p2 = start(&[(
        "app",
        rp("app", json!({"RequestUris": format!("{endless}/*")})),
    )]);
    let sid2 = p2.login("dwho");
    let err = by_reference(&p2, &sid2, &format!("{endless}/big"));
    assert_eq!(err.as_deref(), Some("invalid_request_uri"));
    let read = sent.load(Ordering::SeqCst);
    assert!(read < 4 << 20, "{read} bytes taken from the request_uri");
    assert!(p2.log().contains("over 16 KiB"), "{}", p2.log());
}

#[test]
fn a_redirect_at_the_request_uri_is_not_followed() {
    let obj = object(json!({"scope": "openid", "nonce": "moved"}));
    let (target, reached) = serve(move |s| ok_after(s, &obj, Duration::ZERO));
    let to = format!("{target}/req");
    let (base, _) = serve(move |mut s| {
        read_head(&s);
        let _ = write!(
            s,
            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
    });
    let (p, sid) = portal(&base);
    let err = by_reference(&p, &sid, &format!("{base}/moved"));
    assert_eq!(err.as_deref(), Some("invalid_request_uri"));
    assert_eq!(
        reached.load(Ordering::SeqCst),
        0,
        "the redirect was followed"
    );
}

#[test]
fn a_request_uri_that_answers_after_3_s_is_refused_within_2_s() {
    let obj = object(json!({"scope": "openid", "nonce": "late"}));
    let (base, _) = serve(move |s| ok_after(s, &obj, Duration::from_secs(3)));
    let (p, sid) = portal(&base);
    let t0 = Instant::now();
    let err = by_reference(&p, &sid, &format!("{base}/late"));
    let took = t0.elapsed();
    assert_eq!(err.as_deref(), Some("invalid_request_uri"));
    assert!(
        took < Duration::from_millis(2800),
        "answered after {took:?}"
    );
}

#[test]
fn request_objects_out_of_their_time_are_refused() {
    let p = start(&[("app", rp("app", json!({})))]);
    let sid = p.login("dwho");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let run = |claims: Value| {
        let q = format!(
            "client_id=app&response_type=code&scope=openid&state=s&redirect_uri={}&request={}",
            enc(CB),
            object(claims)
        );
        let r = authorize(&p, Some(&sid), &q, &[]);
        assert_eq!(r.status, 302, "{}", r.text());
        let loc = r.header("location").unwrap().to_string();
        (param(&loc, "error"), param(&loc, "code").is_some())
    };
    let refused = (Some("invalid_request_object".to_string()), false);
    // Expired an hour ago; not valid before an hour from now; issued an hour from now
    // (beyond the minute of clock skew allowed).
    assert_eq!(run(json!({"nonce": "a", "exp": now - 3600})), refused);
    assert_eq!(run(json!({"nonce": "b", "nbf": now + 3600})), refused);
    assert_eq!(run(json!({"nonce": "c", "iat": now + 3600})), refused);
    // Within its time, and within the skew: served.
    let fine = json!({"nonce": "d", "exp": now + 300, "nbf": now + 30, "iat": now + 30});
    assert_eq!(run(fine), (None, true));
}

#[test]
fn a_pushed_request_takes_no_fetcher_even_under_a_catch_all_pattern() {
    // A listener that never answers holds the client's one fetch...
    let (silent, held) = serve(|s| {
        read_head(&s);
        // The silence is the fault under test: the fetch must be held, not answered.
        std::thread::sleep(Duration::from_secs(5));
    });
    let p = builder(&[("app", rp("app", json!({"RequestUris": "*"})))])
        .ini("fetchesPerClient = 1")
        .start();
    let sid = p.login("dwho");
    let q = format!(
        "client_id=app&response_type=code&scope=openid&redirect_uri={}&request_uri={}",
        enc(CB),
        enc(&format!("{silent}/req"))
    );
    let port = p.port;
    let holder = std::thread::spawn(move || {
        crate::common::Client::new(port).get(&format!("/oauth2/authorize?{q}"), &[])
    });
    let start = Instant::now();
    while held.load(Ordering::SeqCst) == 0 && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(held.load(Ordering::SeqCst), 1);
    // ...and the pushed request, whose URN the pattern `*` also covers, is read from the
    // store, not queued for a fetcher.
    let fields = [
        ("response_type", "code"),
        ("scope", "openid"),
        ("redirect_uri", CB),
        ("state", "ps"),
    ];
    let auth = basic("app", SECRET);
    let r = p
        .client()
        .post_form("/oauth2/par", &fields, &[("Authorization", &auth)]);
    assert_eq!(r.status, 201, "{}", r.text());
    let uri = r.json()["request_uri"].as_str().unwrap().to_string();
    let r = authorize(
        &p,
        Some(&sid),
        &format!("client_id=app&request_uri={}", enc(&uri)),
        &[],
    );
    assert_eq!(r.status, 302, "{}", r.text());
    let loc = r.header("location").unwrap();
    assert!(param(loc, "code").is_some(), "{loc}");
    assert_eq!(param(loc, "state").as_deref(), Some("ps"));
    let _ = holder.join();
}
