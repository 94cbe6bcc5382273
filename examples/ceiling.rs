//! The ceiling of `make bench`: a bare tiny_http server with Limette's pool shape (the same
//! listener with TCP_NODELAY and idle timeouts, one accept thread feeding a bounded queue, a
//! fixed pool of workers) answering a small JSON body and doing nothing else. Limette's
//! endpoints are reported as a ratio of what this server does in the same run.
//!
//! `cargo run --release --example ceiling -- [ADDR:PORT] [THREADS]`; prints one line with the
//! address it listens on.
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const BODY: &str = r#"{"result":1,"error":"0"}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr = args.get(1).map(String::as_str).unwrap_or("127.0.0.1:0");
    let threads: usize = args.get(2).and_then(|t| t.parse().ok()).unwrap_or(8);
    let listener = match limette::server::listener::bind(addr, Duration::from_secs(5)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ceiling: cannot listen on {addr}: {e}");
            std::process::exit(2);
        }
    };
    let local = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let server = match tiny_http::Server::from_listener(listener, None) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ceiling: {e}");
            std::process::exit(2);
        }
    };
    let (tx, rx) = sync_channel::<tiny_http::Request>(256);
    let rx = Arc::new(Mutex::new(rx));
    for _ in 0..threads.max(1) {
        let rx = rx.clone();
        std::thread::spawn(move || worker(&rx));
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

fn worker(rx: &Mutex<Receiver<tiny_http::Request>>) {
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"application/json"[..]);
    loop {
        let next = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(_) => return,
        };
        let Ok(req) = next else { return };
        let mut resp = tiny_http::Response::from_string(BODY);
        if let Ok(h) = header.clone() {
            resp.add_header(h);
        }
        let _ = req.respond(resp);
    }
}
