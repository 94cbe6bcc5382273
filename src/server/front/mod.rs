//! The reading stage in front of tiny_http: our own accept loop on the public socket, one
//! small thread per admitted connection (their number capped by `maxConnections`), and
//! requests handed on only once complete. tiny_http listens on a private Unix socket in a
//! folder only this user can enter, so every request it parses has passed the stage's
//! deadlines, framing rules and caps, and a worker never waits for a client.
//!
//! Why in front and not a patched tiny_http: tiny_http 0.12 reads the head on a thread per
//! connection with no deadline and lets the caller read the body, which is where a slow
//! client held a worker; both live deep in its connection loop. A stage in front changes
//! neither tiny_http nor its contract, and keeps the repository free of a vendored crate.
//!
//! - `head`: RFC 9112 parsing and framing of a head (pure);
//! - `wire`: reading one request against the clock;
//! - `admit`: connection and read caps, overall and per client address;
//! - `conn`: one connection's life;
//! - `crew`: the threads that serve connections, reused from one connection to the next;
//! - `relay`: the private connection to tiny_http that carries its requests and answers.
pub mod admit;
pub mod conn;
pub mod crew;
pub mod head;
pub mod relay;
pub mod wire;

use crate::log;
use conn::Ctx;
use std::io::{ErrorKind, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Stack of a connection thread: parsing and relaying need little, and the ceiling on
/// connections times this bounds the stage's address space.
const CONN_STACK: usize = 256 * 1024;

/// How often a blocked `accept` wakes to look at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Accepts until `stop` is set, then closes the idle connections and lets the others finish
/// the request they hold (`Admit::close`).
pub fn run(listener: TcpListener, ctx: Arc<Ctx>, stop: &AtomicBool) {
    let crew = crew::Crew::new(CONN_STACK);
    if let Err(e) = socket2::SockRef::from(&listener).set_read_timeout(Some(STOP_CHECK)) {
        log::error(&format!("cannot set the accept timeout: {e}"));
    }
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, peer)) => admit(stream, peer, &ctx, &crew),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => {
                // Out of descriptors, most likely: wait a little instead of spinning.
                log::error(&format!("accept failed: {e}"));
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    ctx.admit.close();
}

/// Admits a connection and hands it to a thread of the crew, or answers why not and closes it.
fn admit(stream: TcpStream, peer: std::net::SocketAddr, ctx: &Arc<Ctx>, crew: &Arc<crew::Crew>) {
    let slot = match ctx.admit.connect(peer.ip(), &stream) {
        Ok(slot) => slot,
        Err(r) => return turn_away(stream, &r),
    };
    let ctx2 = ctx.clone();
    if let Err(e) = crew.run(Box::new(move || conn::serve(stream, peer, slot, &ctx2))) {
        log::error(&format!("cannot start a connection thread: {e}"));
    }
}

/// A connection refused at the door: the answer is written at once (the socket buffer takes
/// it) and the connection closed; nothing of the client's is read. The log line is the
/// refusal's own (`admit`), at most one a second: a flood must not flood the log too.
fn turn_away(mut stream: TcpStream, r: &head::Reject) {
    let resp = crate::http::Response::json(r.status, &serde_json::json!({ "error": r.msg }))
        .with_header("Retry-After", "1");
    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
    let _ = stream.write_all(&crate::http::adapter::serialize(&resp, true, false));
    let _ = stream.shutdown(Shutdown::Write);
}
