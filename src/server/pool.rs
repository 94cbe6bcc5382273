//! A fixed pool of worker threads fed by a bounded queue. Each worker reads the request body
//! (bounded), routes it, writes the response and logs one access line. A panic in a handler
//! becomes a logged 500 and the worker lives on.
use crate::app::App;
use crate::error::Error;
use crate::http::adapter::{self, ConnTracker, Limits, RawRequest};
use crate::http::{Method, Request, Response};
use crate::log;
use crate::router;
use crate::router::errors::{to_response, Flavour};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The worker pool.
pub struct Pool {
    tx: Option<SyncSender<RawRequest>>,
    workers: Vec<JoinHandle<()>>,
    shared: Arc<Shared>,
}

struct Shared {
    tracker: ConnTracker,
    limits: Limits,
}

impl Pool {
    /// Starts `threads` workers behind a queue of `queue` requests.
    pub fn start(app: Arc<App>, threads: usize, queue: usize) -> Pool {
        let (tx, rx) = sync_channel::<RawRequest>(queue);
        let rx = Arc::new(Mutex::new(rx));
        let shared = Arc::new(Shared {
            tracker: ConnTracker::default(),
            limits: app.local.limits(),
        });
        let workers = (0..threads.max(1))
            .map(|i| {
                let (rx, app, shared) = (rx.clone(), app.clone(), shared.clone());
                std::thread::Builder::new()
                    .name(format!("worker-{i}"))
                    .spawn(move || worker(&rx, &app, &shared))
                    .expect("spawning a worker at start-up") // start-up only, not the request path
            })
            .collect();
        Pool {
            tx: Some(tx),
            workers,
            shared,
        }
    }

    /// Queues a request; hands it back when the queue is full.
    #[allow(clippy::result_large_err)] // the request is handed back to be answered 503
    pub fn submit(&self, raw: RawRequest) -> Result<(), RawRequest> {
        match &self.tx {
            Some(tx) => match tx.try_send(raw) {
                Ok(()) => Ok(()),
                Err(TrySendError::Full(r)) | Err(TrySendError::Disconnected(r)) => Err(r),
            },
            None => Err(raw),
        }
    }

    /// The connection tracker shared with the workers.
    pub fn tracker(&self) -> &ConnTracker {
        &self.shared.tracker
    }

    /// The read/write limits.
    pub fn limits(&self) -> &Limits {
        &self.shared.limits
    }

    /// Closes the queue and joins the workers once they have drained it.
    pub fn close(mut self) {
        self.tx = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn worker(rx: &Mutex<Receiver<RawRequest>>, app: &App, shared: &Shared) {
    loop {
        let next = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(_) => return,
        };
        let Ok(raw) = next else { return };
        serve_one(raw, app, shared);
    }
}

fn serve_one(mut raw: RawRequest, app: &App, shared: &Shared) {
    let t0 = Instant::now();
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let (resp, close, method, path) = match adapter::read_request(&mut raw, id, &shared.limits) {
        Ok(req) => {
            let resp = dispatch_guarded(app, &req);
            (resp, false, req.method, req.path)
        }
        Err(e) => {
            let url = raw.url().to_string();
            let req = Request::new(Method::parse(raw.method().as_str()), &url)
                .with_header("accept", "application/json");
            let resp = to_response(&e, &req, Flavour::Negotiated, "");
            let path = req.path.clone();
            (resp, true, req.method, path)
        }
    };
    let status = resp.status;
    adapter::write_response(raw, &resp, close, &shared.tracker, &shared.limits);
    log::access(method.as_str(), &path, status, t0.elapsed().as_millis());
}

/// Routes the request; a panic anywhere below becomes a 500 with a log line.
fn dispatch_guarded(app: &App, req: &Request) -> Response {
    match catch_unwind(AssertUnwindSafe(|| router::dispatch(app, req))) {
        Ok(resp) => resp,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            let err = Error::Internal(format!("handler panicked: {what}"));
            to_response(&err, req, Flavour::Negotiated, "")
        }
    }
}
