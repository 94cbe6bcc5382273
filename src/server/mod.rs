//! The server: a listener we create ourselves (TCP_NODELAY, write timeouts), the reading stage
//! (`front`) that accepts on it and reads every request whole against deadlines and caps,
//! tiny_http on a private local socket behind it, a loop that only receives from tiny_http and
//! queues (`accept`), and a fixed pool of workers (`pool`).
//! Shutdown is one path: set the flag, the reading stage stops accepting and closes its idle
//! connections, the requests in hand are answered (for at most `DRAIN`), then the receiving
//! loop stops, the queue is closed, the workers finish what they hold and are joined.
pub mod accept;
pub mod front;
pub mod listener;
pub mod pool;

use crate::app::App;
use std::net::SocketAddr;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
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
    /// Stops the receiving loop once the reading stage has drained.
    halt: Arc<AtomicBool>,
    admit: Arc<front::admit::Admit>,
    reading: Option<JoinHandle<()>>,
    receive: Option<JoinHandle<()>>,
    private: PrivateDir,
}

impl Server {
    /// Binds and starts serving `app` with its configured limits.
    pub fn start(app: Arc<App>, listen: &str) -> std::io::Result<Server> {
        let local = &app.local;
        let tcp = listener::bind(listen, local.idle_timeout)?;
        let addr = tcp.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let private = PrivateDir::create()?;
        let inner = private.0.join("http.sock");
        let unix = UnixListener::bind(&inner)?;
        let spare = unix.try_clone()?;
        let http = tiny_http::Server::from_listener(unix, None)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let pool = pool::Pool::start(app.clone(), local.threads, local.queue);
        let admit = front::admit::Admit::new(local.front.clone());
        let ctx = Arc::new(front::conn::Ctx {
            admit: admit.clone(),
            inner,
            idle: local.idle_timeout,
            body_timeout: local.body_timeout,
            max_body: local.max_body as u64,
            max_requests: local.max_requests,
        });
        let halt = Arc::new(AtomicBool::new(false));
        let halt2 = halt.clone();
        let receive = std::thread::Builder::new()
            .name("accept".into())
            .spawn(move || accept::run(http, spare, pool, &halt2))?;
        let stop_front = stop.clone();
        let reading = std::thread::Builder::new()
            .name("front".into())
            .spawn(move || front::run(tcp, ctx, &stop_front))?;
        Ok(Server {
            addr,
            stop,
            halt,
            admit,
            reading: Some(reading),
            receive: Some(receive),
            private,
        })
    }

    /// A handle that asks the server to stop (for signal handlers).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stops accepting, lets in-flight requests finish, joins every thread.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.reading.take() {
            let _ = h.join();
        }
        self.admit.wait_quiet(DRAIN);
        self.halt.store(true, Ordering::SeqCst);
        if let Some(h) = self.receive.take() {
            let _ = h.join();
        }
        self.private.remove();
    }

    /// Blocks until the stop flag is set (by a signal), then shuts down.
    pub fn wait(self) {
        while !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        self.shutdown();
    }
}

/// The folder of tiny_http's socket: made for this process, entered by this user only, so
/// that nobody can reach tiny_http past the reading stage.
struct PrivateDir(PathBuf);

impl PrivateDir {
    fn create() -> std::io::Result<PrivateDir> {
        use std::os::unix::fs::DirBuilderExt;
        let name = format!(
            "limette-{}-{}",
            std::process::id(),
            crate::util::random_hex(8)
        );
        let dir = std::env::temp_dir().join(name);
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        Ok(PrivateDir(dir))
    }

    fn remove(&self) {
        let _ = std::fs::remove_dir_all(Path::new(&self.0));
    }
}
