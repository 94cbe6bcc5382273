//! The only caller of tiny_http's `recv`: takes each request (already read whole by the
//! reading stage, `front`) and queues it for the workers, answering 503 at once when the queue
//! is full. Nothing else happens on this thread.
use crate::http::{adapter, Response};
use crate::log;
use crate::server::pool::Pool;
use serde_json::json;
use std::os::unix::net::UnixListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Receives until `stop` is set, then closes the pool (which finishes in-flight requests).
/// `spare` is a clone of tiny_http's private socket, used to start a new tiny_http server should its
/// accept thread ever give up (an accept error ends it for good).
pub fn run(first: tiny_http::Server, spare: UnixListener, pool: Pool, stop: &AtomicBool) {
    let mut servers = vec![first];
    while !stop.load(Ordering::SeqCst) {
        let mut got_any = false;
        let mut dead = false;
        let last = servers.len() - 1;
        for (i, server) in servers.iter().enumerate() {
            let res = if i == last {
                server.recv_timeout(Duration::from_millis(if last == 0 { 100 } else { 5 }))
            } else {
                server.try_recv()
            };
            match res {
                Ok(Some(raw)) => {
                    got_any = true;
                    if let Err(raw) = pool.submit(raw) {
                        reject_busy(raw, &pool);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    if i == last {
                        log::error(&format!("accept failed ({e}); starting a new acceptor"));
                        dead = true;
                    }
                }
            }
        }
        if dead {
            match spare
                .try_clone()
                .map(|l| tiny_http::Server::from_listener(l, None))
            {
                Ok(Ok(s)) => servers.push(s),
                _ => {
                    log::error("cannot restart the acceptor; stopping");
                    break;
                }
            }
        }
        if !got_any && servers.len() > 1 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    pool.close();
}

fn reject_busy(raw: adapter::RawRequest, pool: &Pool) {
    let resp = Response::json(503, &json!({"error": "Server busy, try again"}))
        .with_header("Retry-After", "1");
    log::access(
        raw.method().as_str(),
        raw.url().split('?').next().unwrap_or(""),
        503,
        0,
    );
    adapter::write_response(raw, &resp, true, pool.tracker(), pool.limits());
}
