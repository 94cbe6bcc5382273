//! The server: one HTTP stack of Limette's own. A listener we create ourselves (TCP_NODELAY),
//! the reading stage (`stage`: one thread and the kernel's readiness list) that accepts, reads
//! every request whole against deadlines and caps and finishes slow answers, and a fixed pool
//! of workers (`pool`) behind a bounded queue that route each complete request and write its
//! answer. A connection costs a thread only while a worker answers it.
//!
//! - `head`: RFC 9112 parsing and framing of a head (pure);
//! - `chunked`: the chunked coding, decoded as bytes arrive;
//! - `admit`: connection and body caps, overall and per client address, reading slots shared
//!   fairly, and the bytes of large bodies in hand;
//! - `forward`: who a request comes from (the peer, the client a trusted proxy names, or
//!   nobody known behind a proxy that is not trusted);
//! - `conn`: one connection's state, and writing without blocking;
//! - `stage`: the loop, and `read` its reading half; `hub`: what it shares with the workers;
//! - `pool`: the workers; `settings`: what the server is told; `listener`: the socket.
//!
//! Shutdown is one path: set the flag, the stage stops accepting and closes its idle
//! connections, the requests in hand are answered (for at most `DRAIN`), then the queue is
//! closed and the workers finish what they hold and are joined.
pub mod admit;
pub mod chunked;
pub mod conn;
pub mod forward;
pub mod head;
pub mod hub;
pub mod later;
pub mod listener;
pub mod pool;
mod read;
pub mod settings;
pub mod stage;

pub use settings::{Handler, Settings};

use crate::app::App;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Longest wait at shutdown for requests in hand (being read or answered) to be answered.
const DRAIN: Duration = Duration::from_secs(10);

/// A running server.
pub struct Server {
    /// The address actually bound (useful with port 0).
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    hub: Arc<hub::Hub>,
    stage: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds and starts serving `app` with its configured limits.
    pub fn start(app: Arc<App>, listen: &str) -> std::io::Result<Server> {
        let settings = Settings::of(&app);
        let handler: Handler = Arc::new(move |req| crate::router::dispatch(&app, req));
        Server::serve(settings, handler, listen)
    }

    /// Binds `listen` and serves `handler` with `settings`.
    pub fn serve(settings: Settings, handler: Handler, listen: &str) -> std::io::Result<Server> {
        let tcp = listener::bind(listen)?;
        let addr = tcp.local_addr()?;
        let settings = Arc::new(settings);
        let hub = Arc::new(hub::Hub::new()?);
        let pool = pool::Pool::start(settings.clone(), handler, hub.clone());
        let stop = Arc::new(AtomicBool::new(false));
        let (stop2, hub2) = (stop.clone(), hub.clone());
        let stage = std::thread::Builder::new()
            .name("stage".into())
            .spawn(move || stage::run(tcp, settings, hub2, pool, &stop2, DRAIN))?;
        Ok(Server {
            addr,
            stop,
            hub,
            stage: Some(stage),
        })
    }

    /// A handle that asks the server to stop (for signal handlers).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stops accepting, lets in-flight requests finish, joins every thread.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.hub.wake();
        if let Some(h) = self.stage.take() {
            let _ = h.join();
        }
    }

    /// Blocks until the stop flag is set (by a signal), then shuts down.
    pub fn wait(self) {
        while !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
        self.shutdown();
    }
}
