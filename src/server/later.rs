//! The fetchers: a few threads that give the answers a handler gives later
//! ([`Later`]: a request waiting on another server, such as a request object at a
//! `request_uri`). A worker that gets such an answer hands it here with its connection and goes
//! back to the queue at once; a fetcher runs it and writes its answer as a worker does
//! (`pool::write_answer`). Bounded three ways (`config::fetch`): the threads, the requests
//! waiting for one, and each client's share of both (keyed by [`Later::key`]); a request that
//! finds any of them full is refused at once on the worker, with the answer its handler gave
//! for that (`Later::busy`). Nothing here waits on a worker, and no worker waits here.
use super::hub::Hub;
use super::pool::{run_task, write_answer, Job};
use super::Settings;
use crate::http::response::{Later, Task};
use crate::log;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// A request waiting for a fetcher, with its connection.
struct Waiting {
    job: Job,
    key: String,
    run: Task,
    busy: Task,
}

/// What the queue's mutex guards.
#[derive(Default)]
struct State {
    jobs: VecDeque<Waiting>,
    /// Requests in hand (waiting or running) by key.
    in_hand: HashMap<String, usize>,
    /// No more requests come: what waits is refused, the fetchers stop.
    closed: bool,
}

/// The queue between the workers and the fetchers.
struct Queue {
    state: Mutex<State>,
    ready: Condvar,
    capacity: usize,
    per_key: usize,
}

/// The fetchers.
pub struct Fetchers {
    queue: Arc<Queue>,
    threads: Vec<JoinHandle<()>>,
}

impl Fetchers {
    /// Starts `settings.fetch.fetchers` threads.
    pub fn start(settings: Arc<Settings>, hub: Arc<Hub>) -> Fetchers {
        let limits = &settings.fetch;
        let queue = Arc::new(Queue {
            state: Mutex::new(State::default()),
            ready: Condvar::new(),
            capacity: limits.queue.max(1),
            per_key: limits.per_client.max(1),
        });
        let threads = (0..limits.fetchers.max(1))
            .map(|i| {
                let (queue, hub, s) = (queue.clone(), hub.clone(), settings.clone());
                std::thread::Builder::new()
                    .name(format!("fetcher-{i}"))
                    .spawn(move || fetcher(&queue, &hub, &s))
                    .expect("spawning a fetcher at start-up") // start-up only, not the request path
            })
            .collect();
        Fetchers { queue, threads }
    }

    /// Takes a later answer and its connection; hands both back (to be refused at once) when
    /// the queue is full or closed, or the key has its share in hand.
    #[allow(clippy::result_large_err)] // handed back to be refused
    pub fn submit(&self, job: Job, later: Later) -> Result<(), (Job, Later)> {
        let Later { key, run, busy } = later;
        let Ok(mut s) = self.queue.state.lock() else {
            return Err((job, Later { key, run, busy }));
        };
        let held = s.in_hand.get(&key).copied().unwrap_or(0);
        if s.closed || s.jobs.len() >= self.queue.capacity || held >= self.queue.per_key {
            drop(s);
            // At info: an attacker makes one of these per request (the access line has it too).
            log::info(&format!("fetchers busy: a request of {key} refused"));
            return Err((job, Later { key, run, busy }));
        }
        *s.in_hand.entry(key.clone()).or_insert(0) += 1;
        s.jobs.push_back(Waiting {
            job,
            key,
            run,
            busy,
        });
        drop(s);
        self.queue.ready.notify_one();
        Ok(())
    }

    /// Closes the queue (what still waits is refused) and joins the fetchers.
    pub fn close(mut self) {
        if let Ok(mut s) = self.queue.state.lock() {
            s.closed = true;
        }
        self.queue.ready.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn fetcher(queue: &Queue, hub: &Hub, settings: &Settings) {
    while let Some((w, closing)) = next(queue) {
        let Waiting {
            job,
            key,
            run,
            busy,
        } = w;
        // At shutdown what still waits gets its refusal, not a fetch.
        let task = if closing { busy } else { run };
        let resp = run_task(task, &job.req);
        if let Ok(mut s) = queue.state.lock() {
            if let Some(n) = s.in_hand.get_mut(&key) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    s.in_hand.remove(&key);
                }
            }
        }
        write_answer(job, resp, hub, settings);
        log::flush_access();
    }
}

/// The next request and whether the queue is closed; `None` once closed and drained.
fn next(queue: &Queue) -> Option<(Waiting, bool)> {
    let mut s = queue.state.lock().ok()?;
    loop {
        if let Some(w) = s.jobs.pop_front() {
            return Some((w, s.closed));
        }
        if s.closed {
            return None;
        }
        s = queue.ready.wait(s).ok()?;
    }
}
