//! The threads that serve connections, reused: a new connection goes to a thread that has
//! finished its last one when there is such a thread, else to a new thread; a thread left
//! without work for `LINGER` ends. Starting a thread for every connection cost a fifth of
//! the throughput of `Connection: close` clients, more with the static build's allocator
//! (each new thread sets up its heap, each ending one hands it back).
//!
//! The number of threads serving at once is the number of admitted connections (the caller
//! holds a slot for each); idle threads add at most the peak of that, for `LINGER`.
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long a thread waits for a next connection before it ends.
const LINGER: Duration = Duration::from_secs(5);

/// One connection's work.
pub type Job = Box<dyn FnOnce() + Send>;

/// The pool of connection threads.
pub struct Crew {
    state: Mutex<State>,
    wake: Condvar,
    stack: usize,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    idle: usize,
}

impl Crew {
    /// A crew whose threads have `stack` bytes of stack.
    pub fn new(stack: usize) -> Arc<Crew> {
        Arc::new(Crew {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            stack,
        })
    }

    /// Runs `job` on an idle thread, or on a new one; the job is dropped (its connection
    /// closed) only when no thread can be started.
    pub fn run(self: &Arc<Crew>, job: Job) -> std::io::Result<()> {
        if let Ok(mut st) = self.state.lock() {
            if st.idle > st.queue.len() {
                st.queue.push_back(job);
                self.wake.notify_one();
                return Ok(());
            }
        }
        let crew = self.clone();
        std::thread::Builder::new()
            .name("conn".into())
            .stack_size(self.stack)
            .spawn(move || {
                job();
                crew.serve_more();
            })
            .map(|_| ())
    }

    /// Takes queued jobs until none comes for `LINGER`.
    fn serve_more(&self) {
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        loop {
            if let Some(job) = st.queue.pop_front() {
                drop(st);
                job();
                st = match self.state.lock() {
                    Ok(st) => st,
                    Err(_) => return,
                };
                continue;
            }
            st.idle += 1;
            let waited = self.wake.wait_timeout(st, LINGER);
            let Ok((again, timeout)) = waited else {
                return;
            };
            st = again;
            st.idle -= 1;
            if timeout.timed_out() && st.queue.is_empty() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn a_finished_thread_takes_the_next_job() {
        let crew = Crew::new(64 * 1024);
        let (tx, rx) = channel();
        let t = tx.clone();
        crew.run(Box::new(move || {
            t.send(std::thread::current().id()).unwrap()
        }))
        .unwrap();
        let first = rx.recv().unwrap();
        // Wait until that thread is idle, then the next job goes to it.
        while crew.state.lock().unwrap().idle == 0 {
            std::thread::yield_now();
        }
        crew.run(Box::new(move || {
            tx.send(std::thread::current().id()).unwrap()
        }))
        .unwrap();
        assert_eq!(rx.recv().unwrap(), first);
    }

    #[test]
    fn busy_threads_never_hold_up_a_new_job() {
        let crew = Crew::new(64 * 1024);
        let (hold_tx, hold_rx) = channel::<()>();
        let hold = Arc::new(Mutex::new(hold_rx));
        let h = hold.clone();
        crew.run(Box::new(move || {
            let _ = h.lock().unwrap().recv();
        }))
        .unwrap();
        let (tx, rx) = channel();
        crew.run(Box::new(move || tx.send(()).unwrap())).unwrap();
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the second job ran while the first held its thread");
        hold_tx.send(()).unwrap();
    }
}
