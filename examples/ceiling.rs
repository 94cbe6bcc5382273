//! The ceiling of `make bench`: a bare tiny_http server with Limette's pool shape (the same
//! listener with TCP_NODELAY and idle timeouts, one accept thread feeding a bounded queue, a
//! fixed pool of workers, and Limette's response writer, which rotates keep-alive connections
//! so that none is stranded in tiny_http's pool) answering a small JSON body and doing nothing
//! else: no request reading, routing or handler. Limette's endpoints are reported as a ratio
//! of what this server does in the same run.
//!
//! `cargo run --release --example ceiling -- [ADDR:PORT] [THREADS]`; prints one line with the
//! address it listens on.
use limette::http::adapter::{self, ConnTracker, Limits};
use limette::http::Response;
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
    let shared = Arc::new((
        ConnTracker::default(),
        Limits {
            max_body: 8 << 20,
            body_deadline: Duration::from_secs(10),
            max_requests: 100,
        },
    ));
    for _ in 0..threads.max(1) {
        let (rx, shared) = (rx.clone(), shared.clone());
        std::thread::spawn(move || worker(&rx, &shared.0, &shared.1));
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

fn worker(rx: &Mutex<Receiver<tiny_http::Request>>, tracker: &ConnTracker, limits: &Limits) {
    let body: serde_json::Value = serde_json::from_str(BODY).unwrap_or_default();
    loop {
        let next = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(_) => return,
        };
        let Ok(req) = next else { return };
        adapter::write_response(req, &Response::json(200, &body), false, tracker, limits);
    }
}
