//! The ceilings of `make bench`, two servers that answer a small JSON body and do nothing else
//! (no routing, no handler):
//! - `tiny` (the default): a bare tiny_http server with Limette's former pool shape (one accept
//!   thread feeding a bounded queue, a fixed pool of workers, and the response writer Limette
//!   used over tiny_http, which answers `Connection: close` every 100 requests of a connection:
//!   plain tiny_http responses strand keep-alive connections in its pool and measure half as
//!   much, which would flatter every ratio), the external reference: Limette's endpoints are
//!   reported as a ratio of what it does in the same run;
//! - `own`: Limette's own HTTP stack (`server::Server`) with a handler that answers the same
//!   constant, which shows what the stack costs apart from the handlers.
//!
//! `cargo run --release --example ceiling -- [ADDR:PORT] [THREADS] [tiny|own]`; prints one line
//! with the address it listens on.
use limette::http::{wire, Response};
use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

const BODY: &str = r#"{"result":1,"error":"0"}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr = args.get(1).map(String::as_str).unwrap_or("127.0.0.1:0");
    let threads: usize = args.get(2).and_then(|t| t.parse().ok()).unwrap_or(8);
    match args.get(3).map(String::as_str).unwrap_or("tiny") {
        "tiny" => tiny(addr, threads),
        "own" => own(addr, threads),
        other => {
            eprintln!("ceiling: unknown kind {other} (tiny or own)");
            std::process::exit(2);
        }
    }
}

fn fail(what: &str) -> ! {
    eprintln!("ceiling: {what}");
    std::process::exit(2);
}

/// Limette's stack answering a constant.
fn own(addr: &str, threads: usize) {
    let settings = limette::server::Settings {
        // The bench's Limette instances raise the cap per address (wrk loads from one); so
        // does this one, or its Connection: close row is refused at the door (connections
        // closing still count) and measures refusals.
        limits: limette::config::server::ServerLimits {
            max_connections_per_address: 1024,
            ..limette::config::server::ServerLimits::default()
        },
        idle: std::time::Duration::from_secs(5),
        body_timeout: std::time::Duration::from_secs(10),
        max_requests: 100,
        threads,
        queue: 256,
        fetch: limette::config::fetch::FetchLimits::default(),
        body_limit: Box::new(|_| 64 * 1024),
        gate: Box::new(|_| None),
    };
    let body: serde_json::Value = serde_json::from_str(BODY).unwrap_or_default();
    let handler: limette::server::Handler = Arc::new(move |_| Response::json(200, &body));
    let server = limette::server::Server::serve(settings, handler, addr)
        .unwrap_or_else(|e| fail(&format!("cannot listen on {addr}: {e}")));
    println!(
        "ceiling (own stack) listening on http://{} with {threads} workers",
        server.addr
    );
    server.wait();
}

/// The bare tiny_http server.
fn tiny(addr: &str, threads: usize) {
    let listener = limette::server::listener::bind(addr)
        .unwrap_or_else(|e| fail(&format!("cannot listen on {addr}: {e}")));
    let local = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let server =
        tiny_http::Server::from_listener(listener, None).unwrap_or_else(|e| fail(&e.to_string()));
    let (tx, rx) = sync_channel::<tiny_http::Request>(256);
    let rx = Arc::new(Mutex::new(rx));
    let counts = Arc::new(Mutex::new(HashMap::new()));
    for _ in 0..threads.max(1) {
        let (rx, counts) = (rx.clone(), counts.clone());
        std::thread::spawn(move || worker(&rx, &counts));
    }
    println!("ceiling listening on http://{local} with {threads} workers");
    for req in server.incoming_requests() {
        if let Err(e) = tx.try_send(req) {
            let req = match e {
                std::sync::mpsc::TrySendError::Full(r)
                | std::sync::mpsc::TrySendError::Disconnected(r) => r,
            };
            let _ = req.respond(tiny_http::Response::empty(503));
        }
    }
}

/// Requests answered on one connection before `Connection: close`.
const ROTATE: u32 = 100;

fn worker(rx: &Mutex<Receiver<tiny_http::Request>>, counts: &Mutex<HashMap<SocketAddr, u32>>) {
    let body: serde_json::Value = serde_json::from_str(BODY).unwrap_or_default();
    let resp = Response::json(200, &body);
    loop {
        let next = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(_) => return,
        };
        let Ok(req) = next else { return };
        let close = match (req.remote_addr().copied(), counts.lock()) {
            (Some(peer), Ok(mut map)) => {
                if map.len() > 16_384 {
                    map.clear(); // entries of connections that ended by themselves
                }
                let n = map.entry(peer).or_insert(0);
                *n += 1;
                let close = *n >= ROTATE;
                if close {
                    map.remove(&peer);
                }
                close
            }
            _ => false,
        };
        let mut w = req.into_writer();
        let _ = w.write_all(&wire::serialize(&resp, close, false));
        let _ = w.flush();
    }
}
