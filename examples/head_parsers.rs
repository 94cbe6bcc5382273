//! Request-head parsing three ways, on the heads the benchmark's clients send and on a
//! browser's larger head: Limette's line-by-line parser (`server::head::parse`), what the
//! server runs (`server::head::parse_head`: httparse, then Limette's rules on top), and
//! httparse alone with the owned strings a request needs. Time per head, and what each
//! accepts of the shapes a smuggler or a sloppy client sends. `make bench` runs it and
//! `docs/benchmarks.md` records the result and the choice it led to.
//!
//! `cargo run --release --example head_parsers`
use limette::server::head;
use std::time::Instant;

const HEADS: &[(&str, &[u8])] = &[
    (
        "wrk GET with cookie",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nCookie: lemonldap=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\r\nAccept: application/json\r\n\r\n",
    ),
    (
        "token POST",
        b"POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Basic ZGVtbzpkZW1vc2VjcmV0\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 96\r\n\r\n",
    ),
    (
        "browser GET",
        b"GET /oauth2/authorize?response_type=code&client_id=demo&scope=openid%20profile%20email&redirect_uri=http%3A%2F%2F127.0.0.1%3A9999%2Fcb&state=xyz&nonce=abc HTTP/1.1\r\nHost: auth.example.com\r\nConnection: keep-alive\r\nsec-ch-ua: \"Chromium\";v=\"120\", \"Not?A_Brand\";v=\"8\"\r\nsec-ch-ua-mobile: ?0\r\nsec-ch-ua-platform: \"Linux\"\r\nUpgrade-Insecure-Requests: 1\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\nSec-Fetch-Site: same-site\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-Dest: document\r\nReferer: https://app.example.com/\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: fr-FR,fr;q=0.9,en;q=0.8\r\nCookie: lemonldap=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef; lang=fr\r\n\r\n",
    ),
];

/// Shapes that must be refused (RFC 9112), and whether each parser refuses them.
const SHAPES: &[(&str, &[u8])] = &[
    (
        "obs-text in a value",
        b"GET / HTTP/1.1\r\nHost: x\r\nX: a\xffb\r\n\r\n",
    ),
    (
        "space before the colon",
        b"GET / HTTP/1.1\r\nHost: x\r\nX : a\r\n\r\n",
    ),
    (
        "obs-fold",
        b"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n",
    ),
    (
        "two spaces in the request line",
        b"GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
    ),
    (
        "lone CR before the request line",
        b"\rGET / HTTP/1.1\r\nHost: x\r\n\r\n",
    ),
    (
        "NUL in a value",
        b"GET / HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n",
    ),
    (
        "control in the target",
        b"GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n",
    ),
];

const ROUNDS: u32 = 200_000;

fn lines(buf: &[u8]) -> Option<head::Head> {
    let skip = head::leading_empty_lines(buf);
    let (lines_end, _) = head::head_end(&buf[skip..])?;
    head::parse(&head::lines(&buf[skip..skip + lines_end])).ok()
}

fn served(buf: &[u8]) -> Option<head::Head> {
    let skip = head::leading_empty_lines(buf);
    let (_, end) = head::head_end(&buf[skip..])?;
    head::parse_head(&buf[skip..skip + end]).ok()
}

/// Method, target and fields as owned strings.
type Owned = (String, String, Vec<(String, String)>);

/// httparse, then the owned strings a handler's request needs (what ours also builds).
fn theirs(buf: &[u8]) -> Option<Owned> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return None,
    }
    let fields = req
        .headers
        .iter()
        .map(|h| {
            let v = String::from_utf8_lossy(h.value).into_owned();
            (h.name.to_string(), v)
        })
        .collect();
    Some((req.method?.to_string(), req.path?.to_string(), fields))
}

fn time<T>(buf: &[u8], f: impl Fn(&[u8]) -> Option<T>) -> f64 {
    let t0 = Instant::now();
    for _ in 0..ROUNDS {
        std::hint::black_box(f(std::hint::black_box(buf)));
    }
    t0.elapsed().as_nanos() as f64 / ROUNDS as f64
}

fn main() {
    println!("| head | bytes | line parser ns | parse_head (served) ns | httparse alone ns |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, buf) in HEADS {
        assert!(lines(buf).is_some() && served(buf).is_some() && theirs(buf).is_some());
        let (a, b, c) = (time(buf, lines), time(buf, served), time(buf, theirs));
        println!("| {name} | {} | {a:.0} | {b:.0} | {c:.0} |", buf.len());
    }
    println!();
    println!("| shape | line parser | parse_head (served) | httparse alone |");
    println!("| --- | --- | --- | --- |");
    for (name, buf) in SHAPES {
        let verdict = |ok: bool| if ok { "accepted" } else { "refused" };
        println!(
            "| {name} | {} | {} | {} |",
            verdict(lines(buf).is_some()),
            verdict(served(buf).is_some()),
            verdict(theirs(buf).is_some())
        );
    }
}
