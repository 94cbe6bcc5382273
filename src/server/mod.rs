//! The server: a listener we create ourselves (TCP_NODELAY, idle timeouts), a tiny_http accept
//! loop that only receives and queues (`accept`), and a fixed pool of workers (`pool`).
//! Shutdown is one path: set the flag, the accept loop stops receiving, the queue is closed,
//! the workers finish what they hold and are joined.
pub mod accept;
pub mod listener;
pub mod pool;

use crate::app::App;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A running server.
pub struct Server {
    /// The address actually bound (useful with port 0).
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds and starts serving `app` with its configured limits.
    pub fn start(app: Arc<App>, listen: &str) -> std::io::Result<Server> {
        let local = &app.local;
        let tcp = listener::bind(listen, local.idle_timeout)?;
        let addr = tcp.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let heartbeat = listener::spawn_heartbeat(addr, local.idle_timeout, stop.clone());
        let pool = pool::Pool::start(app.clone(), local.threads, local.queue);
        let spare = tcp.try_clone()?;
        let http = tiny_http::Server::from_listener(tcp, None)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let stop2 = stop.clone();
        let accept = std::thread::Builder::new()
            .name("accept".into())
            .spawn(move || {
                accept::run(http, spare, pool, &stop2);
                let _ = heartbeat.join();
            })?;
        Ok(Server {
            addr,
            stop,
            accept: Some(accept),
        })
    }

    /// A handle that asks the server to stop (for signal handlers).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stops accepting, lets in-flight requests finish, joins every thread.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }

    /// Blocks until the stop flag is set (by a signal), then shuts down.
    pub fn wait(self) {
        while !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        self.shutdown();
    }
}
