//! A fixed pool of worker threads fed by a bounded queue of complete requests. Each worker
//! routes one request, writes its answer as far as the socket takes it without waiting, logs
//! one access line (gathered with others while requests wait, see [`log::gather_access`]),
//! and hands the connection back to the reading stage: parked in the
//! readiness list when it is idle, or to the loop when an answer is left to finish or
//! pipelined bytes wait. A panic in a handler becomes a logged 500 and the worker lives on.
use super::conn::{self, Conn, Phase, Then};
use super::hub::{pending, Hub};
use super::{Handler, Settings};
use crate::error::Error;
use crate::http::{wire, Method, Request, Response};
use crate::log;
use crate::router::errors::{to_response, Flavour};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// A complete request with its connection.
pub struct Job {
    /// The connection (its phase is `Away`).
    pub conn: Conn,
    /// The request.
    pub req: Request,
    /// Whether the connection stays open after the answer.
    pub keep: bool,
    /// Since when the request is in hand (its first byte).
    pub t0: Instant,
}

/// The bounded queue between the stage and the workers. A worker that finds it empty waits on
/// the condition variable, and a request wakes one waiting worker only (a receiver shared
/// behind a mutex also woke, whenever workers were waiting, a second one to take the mutex and
/// sleep again).
struct Queue {
    state: Mutex<Waiting>,
    ready: Condvar,
    capacity: usize,
}

/// What the queue's mutex guards.
struct Waiting {
    jobs: VecDeque<Job>,
    /// No more requests come: workers drain what is queued and stop.
    closed: bool,
}

impl Queue {
    /// Queues a job; hands it back when the queue is full or closed.
    #[allow(clippy::result_large_err)] // the job is handed back to be answered 503
    fn push(&self, job: Job) -> Result<(), Job> {
        let Ok(mut w) = self.state.lock() else {
            return Err(job);
        };
        if w.closed || w.jobs.len() >= self.capacity {
            return Err(job);
        }
        w.jobs.push_back(job);
        drop(w);
        self.ready.notify_one();
        Ok(())
    }

    /// The next job: at once when one waits, else after `idle` has run and a job came;
    /// `None` once the queue is closed and drained.
    fn pop(&self, idle: impl Fn()) -> Option<Job> {
        let mut w = self.state.lock().ok()?;
        if let Some(job) = w.jobs.pop_front() {
            return Some(job);
        }
        drop(w);
        idle();
        w = self.state.lock().ok()?;
        loop {
            if let Some(job) = w.jobs.pop_front() {
                return Some(job);
            }
            if w.closed {
                return None;
            }
            w = self.ready.wait(w).ok()?;
        }
    }

    fn close(&self) {
        if let Ok(mut w) = self.state.lock() {
            w.closed = true;
        }
        self.ready.notify_all();
    }
}

/// The worker pool.
pub struct Pool {
    queue: Arc<Queue>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `settings.threads` workers behind a queue of `settings.queue` requests.
    pub fn start(settings: Arc<Settings>, handler: Handler, hub: Arc<Hub>) -> Pool {
        let queue = Arc::new(Queue {
            state: Mutex::new(Waiting {
                jobs: VecDeque::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            capacity: settings.queue.max(1),
        });
        let workers = (0..settings.threads.max(1))
            .map(|i| {
                let (queue, handler, hub, s) = (
                    queue.clone(),
                    handler.clone(),
                    hub.clone(),
                    settings.clone(),
                );
                std::thread::Builder::new()
                    .name(format!("worker-{i}"))
                    .spawn(move || worker(&queue, &handler, &hub, &s))
                    .expect("spawning a worker at start-up") // start-up only, not the request path
            })
            .collect();
        Pool { queue, workers }
    }

    /// Queues a request; hands it back when the queue is full.
    #[allow(clippy::result_large_err)] // the job is handed back to be answered 503
    pub fn submit(&self, job: Job) -> Result<(), Job> {
        self.queue.push(job)
    }

    /// Closes the queue and joins the workers once they have drained it.
    pub fn close(mut self) {
        self.queue.close();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn worker(queue: &Queue, handler: &Handler, hub: &Hub, settings: &Settings) {
    log::gather_access();
    // Nothing waits: the lines gathered go out before this worker sleeps.
    while let Some(job) = queue.pop(log::flush_access) {
        crate::metrics::dequeued();
        serve_one(job, handler, hub, settings);
        crate::metrics::worker_done();
    }
    log::flush_access();
}

/// Answers one request and hands its connection back.
fn serve_one(job: Job, handler: &Handler, hub: &Hub, settings: &Settings) {
    let Job {
        mut conn,
        req,
        keep,
        t0,
    } = job;
    let keep = keep && !hub.closing.load(Ordering::SeqCst);
    // Everything that looks at the request runs guarded: a panic anywhere in it still answers,
    // and the connection always goes back to the stage, which alone gives back its counts.
    let answered = catch_unwind(AssertUnwindSafe(|| {
        let resp = dispatch_guarded(handler, &req);
        let out = wire::serialize(&resp, !keep, req.method == Method::Head);
        log::access(
            req.method.as_str(),
            &req.path,
            resp.status,
            t0.elapsed().as_millis(),
        );
        if crate::metrics::queue_depth() == 0 {
            // Not under load: the line is written before the answer leaves.
            log::flush_access();
        }
        out
    }));
    let (out, keep) = match answered {
        Ok(out) => (out, keep),
        Err(_) => (INTERNAL.to_vec(), false),
    };
    conn.served += 1;
    let then = if keep { Then::Keep } else { Then::Close };
    let mut pos = 0;
    let written = conn::write_some(&mut conn.stream, &out, &mut pos);
    match written {
        Ok(true) if then == Then::Keep => {
            conn.to_idle(Instant::now());
            if conn.buf.is_empty() {
                hub.park(conn);
            } else {
                hub.give_back(conn);
            }
        }
        // The rest of the answer (none when it went out whole) and the close are the loop's.
        Ok(_) => {
            conn.phase = Phase::Write(Box::new(pending(settings, out, pos, then)));
            hub.give_back(conn);
        }
        Err(_) => {
            // The client went away: the loop closes it (an empty answer and no keep).
            conn.phase = Phase::Write(Box::new(pending(settings, Vec::new(), 0, Then::Close)));
            hub.give_back(conn);
        }
    }
}

/// The answer when even the error answer failed.
const INTERNAL: &[u8] =
    b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/// Routes the request; a panic anywhere below becomes a 500 with a log line.
fn dispatch_guarded(handler: &Handler, req: &Request) -> Response {
    match catch_unwind(AssertUnwindSafe(|| handler(req))) {
        Ok(resp) => resp,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            let err = Error::Internal(format!("handler panicked: {what}"));
            to_response(&err, req, Flavour::Negotiated, None)
        }
    }
}
