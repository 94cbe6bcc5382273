//! A fixed pool of worker threads fed by a bounded queue of complete requests. Each worker
//! routes one request, writes its answer as far as the socket takes it without waiting, logs
//! one access line (gathered with others while requests wait, see [`log::gather_access`]),
//! and hands the connection back to the reading stage: parked in the
//! readiness list when it is idle, or to the loop when an answer is left to finish or
//! pipelined bytes wait. A panic in a handler becomes a logged 500 and the worker lives on.
//! An answer the handler gives later (`Later`: it waits on another server) goes, with its
//! connection, to the fetchers (`later`), which write it the same way (`write_answer`).
use super::conn::{self, Conn, Phase, Then};
use super::hub::{pending, Hub};
use super::later::Fetchers;
use super::{Handler, Settings};
use crate::error::Error;
use crate::http::response::Task;
use crate::http::{wire, Method, Request, Response};
use crate::log;
use crate::router::errors::{to_response, Flavour, UNANSWERABLE};
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
    fetchers: Option<Arc<Fetchers>>,
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
        let fetchers = Arc::new(Fetchers::start(settings.clone(), hub.clone()));
        let workers = (0..settings.threads.max(1))
            .map(|i| {
                let (queue, handler, hub, s, f) = (
                    queue.clone(),
                    handler.clone(),
                    hub.clone(),
                    settings.clone(),
                    fetchers.clone(),
                );
                std::thread::Builder::new()
                    .name(format!("worker-{i}"))
                    .spawn(move || worker(&queue, &handler, &hub, &s, &f))
                    .expect("spawning a worker at start-up") // start-up only, not the request path
            })
            .collect();
        Pool {
            queue,
            workers,
            fetchers: Some(fetchers),
        }
    }

    /// Queues a request; hands it back when the queue is full.
    #[allow(clippy::result_large_err)] // the job is handed back to be answered 503
    pub fn submit(&self, job: Job) -> Result<(), Job> {
        self.queue.push(job)
    }

    /// Closes the queue and joins the workers once they have drained it, then the fetchers
    /// (which the workers may still have fed).
    pub fn close(mut self) {
        self.queue.close();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        // The workers held the other references; they are joined.
        if let Some(f) = self.fetchers.take().and_then(Arc::into_inner) {
            f.close();
        }
    }
}

fn worker(queue: &Queue, handler: &Handler, hub: &Hub, settings: &Settings, f: &Fetchers) {
    log::gather_access();
    // Nothing waits: the lines gathered go out before this worker sleeps.
    while let Some(job) = queue.pop(log::flush_access) {
        crate::metrics::dequeued();
        serve_one(job, handler, hub, settings, f);
        crate::metrics::worker_done();
    }
    log::flush_access();
}

/// Answers one request and hands its connection back; an answer given later goes with its
/// connection to the fetchers (refused at once when they cannot take it).
fn serve_one(job: Job, handler: &Handler, hub: &Hub, settings: &Settings, fetchers: &Fetchers) {
    let mut resp = dispatch_guarded(handler, &job.req);
    if let Some(later) = resp.later.take() {
        match fetchers.submit(job, *later) {
            Ok(()) => return,
            Err((job, later)) => {
                let resp = run_task(later.busy, &job.req);
                return write_answer(job, resp, hub, settings);
            }
        }
    }
    write_answer(job, resp, hub, settings);
}

/// Runs a task that gives an answer (`Later`); an error or a panic in it becomes an answer.
pub(super) fn run_task(task: Task, req: &Request) -> Response {
    match catch_unwind(AssertUnwindSafe(task)) {
        Ok(Ok(resp)) if resp.later.is_none() => resp,
        Ok(Ok(_)) => {
            let err = Error::Internal("an answer given later asked to be later again".into());
            to_response(&err, req, Flavour::Negotiated, None)
        }
        Ok(Err(e)) => to_response(&e, req, Flavour::Negotiated, None),
        Err(panic) => panicked(panic, req),
    }
}

/// Writes one answer as far as the socket takes it without waiting, logs its access line, and
/// hands the connection back (what a worker does after routing, and a fetcher after its task).
pub(super) fn write_answer(job: Job, resp: Response, hub: &Hub, settings: &Settings) {
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
        Err(_) => (UNANSWERABLE.to_vec(), false),
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

/// Routes the request; a panic anywhere below becomes a 500 with a log line.
fn dispatch_guarded(handler: &Handler, req: &Request) -> Response {
    match catch_unwind(AssertUnwindSafe(|| handler(req))) {
        Ok(resp) => resp,
        Err(panic) => panicked(panic, req),
    }
}

/// The 500 for a panic, its message logged.
fn panicked(panic: Box<dyn std::any::Any + Send>, req: &Request) -> Response {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into());
    let err = Error::Internal(format!("handler panicked: {what}"));
    to_response(&err, req, Flavour::Negotiated, None)
}
