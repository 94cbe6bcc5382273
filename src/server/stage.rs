//! The reading stage: one thread that accepts, parks every connection waiting for bytes in
//! the kernel's readiness list (epoll), reads heads and bodies as bytes arrive against their
//! deadlines, and hands each complete request to the worker pool's bounded queue (503 at
//! once when it is full). Answers that the socket cannot take at once are finished here too,
//! under a total deadline. A connection costs a thread only while a worker answers it.
//!
//! The loop owns every connection it holds and the book of caps (`admit`); a worker hands a
//! connection back through the `Hub` once its answer is written (or cannot be, yet).
//! What it refuses (400, 408, 413, 429, 501, 503, 505) it answers itself, logs, and ends the
//! connection: bytes after a refused request are never read as another request.
use super::admit::{refused, Admit, BUSY};
use super::conn::{self, Conn, Got, Phase, Then, DRAIN_FOR};
use super::forward::Forwarders;
use super::head::{self, Head, Reject};
use super::hub::{pending, watch, Hub, WAKE};
use super::pool::Pool;
use super::Settings;
use crate::http::{wire, Response};
use crate::log;
use crate::router::errors::refusal;
use rustix::event::epoll::{self, EventData, EventFlags};
use std::collections::HashMap;
use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often deadlines are checked (a deadline is met within this much).
const TICK: Duration = Duration::from_millis(100);
/// The key of the listening socket in the readiness list (the wake-up source has `WAKE`).
const LISTENER: u64 = u64::MAX - 1;
/// Largest read from one connection at one time (fairness between connections).
const READ_SIZE: usize = 64 * 1024;
/// Most bytes drained from a refused connection.
const DRAIN_MAX: usize = 1 << 20;

/// The loop's state (its reading half is `read`).
pub(super) struct Stage {
    pub(super) settings: Arc<Settings>,
    hub: Arc<Hub>,
    pub(super) pool: Pool,
    listener: Option<TcpListener>,
    /// The listener is out of the readiness list after a failed accept (until the next tick).
    paused: bool,
    pub(super) admit: Admit,
    /// The untrusted peers that forwarded, as logged.
    pub(super) forwarders: Forwarders,
    conns: HashMap<u64, Conn>,
    /// Connections a worker holds.
    pub(super) away: usize,
    next_id: u64,
    scratch: Vec<u8>,
}

/// Runs the loop until `stop` is set and the requests in hand are answered (at most `drain`).
pub fn run(
    listener: TcpListener,
    settings: Arc<Settings>,
    hub: Arc<Hub>,
    pool: Pool,
    stop: &AtomicBool,
    drain: Duration,
) {
    if let Err(e) = listener.set_nonblocking(true).and_then(|_| {
        epoll::add(
            &hub.epoll,
            &listener,
            EventData::new_u64(LISTENER),
            EventFlags::IN,
        )
        .map_err(std::io::Error::from)
    }) {
        log::error(&format!("cannot watch the listening socket: {e}"));
        return pool.close();
    }
    let mut stage = Stage {
        admit: Admit::new(settings.limits.clone()),
        forwarders: Forwarders::default(),
        settings,
        hub,
        pool,
        listener: Some(listener),
        paused: false,
        conns: HashMap::new(),
        away: 0,
        next_id: 0,
        scratch: vec![0; READ_SIZE],
    };
    stage.turn(stop, drain);
    stage.pool.close();
}

impl Stage {
    /// The loop itself.
    fn turn(&mut self, stop: &AtomicBool, drain: Duration) {
        let mut events = Vec::with_capacity(256);
        let mut next_tick = Instant::now() + TICK;
        let mut ending: Option<Instant> = None;
        loop {
            let wait = next_tick.saturating_duration_since(Instant::now());
            let ts = rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: wait.subsec_nanos().into(),
            };
            events.clear();
            let waited = epoll::wait(
                &self.hub.epoll,
                rustix::buffer::spare_capacity(&mut events),
                Some(&ts),
            );
            if let Err(e) = waited {
                if e != rustix::io::Errno::INTR {
                    log::error(&format!("waiting for sockets failed: {e}"));
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            // The wake-up is consumed before the list is taken: a connection handed back after
            // this wakes the loop again.
            if events.iter().any(|ev| ev.data.u64() == WAKE) {
                self.hub.woken();
            }
            for back in self.hub.take_back() {
                self.away = self.away.saturating_sub(1);
                self.returned(back.conn, back.watched);
            }
            for ev in &events {
                match ev.data.u64() {
                    LISTENER => self.accept_all(),
                    WAKE => {}
                    id => self.ready(id, ev.flags),
                }
            }
            let now = Instant::now();
            if now >= next_tick {
                next_tick = now + TICK;
                if ending.is_none() && stop.load(Ordering::SeqCst) {
                    ending = Some(now + drain);
                    self.begin_closing();
                }
                self.sweep(now);
                self.resume_accepting();
            }
            if let Some(end) = ending {
                if (self.conns.is_empty() && self.away == 0) || now >= end {
                    return;
                }
            }
        }
    }

    /// Accepts every waiting connection.
    fn accept_all(&mut self) {
        loop {
            let Some(listener) = &self.listener else {
                return;
            };
            match listener.accept() {
                Ok((stream, peer)) => self.admit_conn(stream, peer),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // Out of descriptors, most likely. The listener would stay readable and
                    // the loop spin on it: it leaves the readiness list until the next tick.
                    refused(&format!("accept failed ({e}); accepting again in 100 ms"));
                    let _ = epoll::delete(&self.hub.epoll, listener);
                    self.paused = true;
                    return;
                }
            }
        }
    }

    /// Puts the listener back in the readiness list after a failed accept took it out.
    fn resume_accepting(&mut self) {
        let Some(listener) = &self.listener else {
            return;
        };
        if self.paused {
            let data = EventData::new_u64(LISTENER);
            self.paused = epoll::add(&self.hub.epoll, listener, data, EventFlags::IN).is_err();
        }
    }

    /// Admits a connection (making room at the ceiling) or answers why not and closes it.
    fn admit_conn(&mut self, stream: TcpStream, peer: SocketAddr) {
        let counted = match self.admit.connect(peer.ip()) {
            Ok(k) => k,
            Err(r) => return turn_away(stream, &r),
        };
        if self.conns.len() + self.away >= self.settings.limits.max_connections && !self.evict() {
            self.admit.disconnect(counted);
            refused("maxConnections reached and no idle or stalled connection to close");
            return turn_away(stream, &BUSY);
        }
        if stream.set_nonblocking(true).is_err() {
            return self.admit.disconnect(counted);
        }
        self.next_id += 1;
        let id = self.next_id;
        let flags = EventFlags::IN | EventFlags::ONESHOT;
        if epoll::add(&self.hub.epoll, &stream, EventData::new_u64(id), flags).is_err() {
            return self.admit.disconnect(counted);
        }
        let conn = Conn {
            id,
            stream,
            peer,
            counted,
            holds: 0,
            buf: Vec::new(),
            served: 0,
            phase: Phase::Idle(Instant::now()),
        };
        self.conns.insert(id, conn);
        crate::metrics::connection_opened();
    }

    /// At the ceiling: closes the connection idle the longest, or else the one stalled the
    /// longest on writing its answer; false when there is neither.
    fn evict(&mut self) -> bool {
        let idle = self.conns.values().filter_map(|c| match c.phase {
            Phase::Idle(since) if c.buf.is_empty() => Some((since, c.id)),
            _ => None,
        });
        let victim = idle.min().map(|(_, id)| id).or_else(|| {
            let writing = self.conns.values().filter_map(|c| match &c.phase {
                Phase::Write(p) => Some((p.pace.since(), c.id)),
                _ => None,
            });
            writing.min().map(|(_, id)| id)
        });
        match victim.and_then(|id| self.conns.remove(&id)) {
            Some(c) => {
                self.abort(c);
                true
            }
            None => false,
        }
    }

    /// A connection the list reported ready.
    fn ready(&mut self, id: u64, flags: EventFlags) {
        let Some(mut conn) = self.conns.remove(&id) else {
            return; // closed since, or with a worker
        };
        if let Phase::Write(_) = conn.phase {
            return self.write_on(conn);
        }
        match conn.read_some(&mut self.scratch) {
            Got::Bytes(n) => {
                if let Phase::Drain(_, drained) = &mut conn.phase {
                    conn.buf.clear();
                    *drained += n;
                    if *drained > DRAIN_MAX {
                        return self.close(conn);
                    }
                }
                if let Phase::Body(b) = &mut conn.phase {
                    b.pace.got += n as u64;
                }
                self.advance(conn)
            }
            Got::Nothing if flags.intersects(EventFlags::HUP | EventFlags::ERR) => self.close(conn),
            Got::Nothing => self.rewatch(conn),
            Got::Closed => self.close(conn),
        }
    }

    /// A connection a worker handed back (`watched`: parked in the readiness list already).
    fn returned(&mut self, mut conn: Conn, watched: bool) {
        self.admit.give_bytes(std::mem::take(&mut conn.holds));
        match conn.phase {
            Phase::Write(_) => self.write_on(conn),
            Phase::Idle(_) if conn.buf.is_empty() => {
                if self.closing() {
                    return self.close(conn);
                }
                if !watched {
                    return self.rewatch(conn);
                }
                self.conns.insert(conn.id, conn);
            }
            Phase::Drain(..) => self.rewatch(conn),
            _ => self.advance(conn),
        }
    }

    /// Answers a refusal, logs it, and ends the connection after a short drain.
    pub(super) fn refuse(&mut self, conn: Conn, r: &Reject, head: Option<&Head>, t0: Instant) {
        crate::metrics::refused(r.status);
        self.answer_then_close(conn, &refusal(r), head, t0)
    }

    /// Answers what the gate decided from a head (its body unread), and ends the connection
    /// after a short drain: what the client sends of its body then is never read as a request.
    pub(super) fn answer_and_close(
        &mut self,
        conn: Conn,
        resp: Response,
        head: &Head,
        t0: Instant,
    ) {
        crate::metrics::refused(resp.status);
        self.answer_then_close(conn, &resp, Some(head), t0)
    }

    fn answer_then_close(
        &mut self,
        mut conn: Conn,
        resp: &Response,
        head: Option<&Head>,
        t0: Instant,
    ) {
        if let Phase::Body(b) = &conn.phase {
            self.admit.done_reading(b.slot, conn.id);
        }
        self.admit.give_bytes(std::mem::take(&mut conn.holds));
        let head_only = head.is_some_and(|h| h.method == "HEAD");
        let out = wire::serialize(resp, true, head_only);
        let (method, path) = match head {
            Some(h) => (h.method.as_str(), h.target.split('?').next().unwrap_or("")),
            None => ("-", "-"),
        };
        log::access(method, path, resp.status, t0.elapsed().as_millis());
        conn.buf = Vec::new();
        conn.phase = Phase::Write(Box::new(pending(&self.settings, out, 0, Then::Close)));
        self.write_on(conn)
    }

    /// Takes a connection out of the loop's hands (to end it).
    pub(super) fn take(&mut self, id: u64) -> Option<Conn> {
        self.conns.remove(&id)
    }

    /// Whether the server is shutting down.
    pub(super) fn closing(&self) -> bool {
        self.hub.closing.load(Ordering::SeqCst)
    }

    /// Writes what the socket takes of a pending answer; once written, what follows.
    fn write_on(&mut self, mut conn: Conn) {
        let Phase::Write(p) = &mut conn.phase else {
            return self.rewatch(conn);
        };
        let before = p.pos;
        let done = conn::write_some(&mut conn.stream, &p.out, &mut p.pos);
        p.pace.got += (p.pos - before) as u64;
        match done {
            Err(_) => self.close(conn),
            Ok(false) => self.rewatch(conn),
            Ok(true) => match p.then {
                Then::Keep if !self.closing() => {
                    conn.to_idle(Instant::now());
                    self.advance(conn)
                }
                _ => self.drain(conn),
            },
        }
    }

    /// Shuts the sending side and reads what the client still sends for a moment.
    fn drain(&mut self, mut conn: Conn) {
        let _ = conn.stream.shutdown(Shutdown::Write);
        conn.buf = Vec::new();
        conn.phase = Phase::Drain(Instant::now() + DRAIN_FOR, 0);
        self.rewatch(conn)
    }

    /// Puts a connection back in the loop's hands, watched for what it waits for.
    pub(super) fn rewatch(&mut self, conn: Conn) {
        let flags = match conn.phase {
            Phase::Write(_) => EventFlags::OUT,
            _ => EventFlags::IN,
        };
        if watch(&self.hub.epoll, &conn.stream, conn.id, flags).is_err() {
            return self.close(conn);
        }
        self.conns.insert(conn.id, conn);
    }

    /// Ends a connection at once, what the kernel still holds to send dropped with it (a
    /// reset): a plain close would let the kernel go on feeding a slow reader its buffered
    /// answer, megabytes of it, for as long as the reader cares to take.
    fn abort(&mut self, conn: Conn) {
        let _ = socket2::SockRef::from(&conn.stream).set_linger(Some(Duration::ZERO));
        self.close(conn)
    }

    /// Ends a connection and gives back what it held.
    pub(super) fn close(&mut self, conn: Conn) {
        if let Phase::Body(b) = &conn.phase {
            self.admit.done_reading(b.slot, conn.id);
        }
        self.admit.give_bytes(conn.holds);
        self.admit.disconnect(conn.counted);
        crate::metrics::connection_closed();
        let _ = epoll::delete(&self.hub.epoll, &conn.stream);
    }

    /// Deadlines: idle connections past `idleTimeout` close silently, heads past
    /// `headerTimeout` and bodies past `bodyTimeout` or under `bodyMinRate` get 408, answers
    /// the client does not read in time and drains that are over end.
    fn sweep(&mut self, now: Instant) {
        let s = &self.settings;
        let mut late = Vec::new();
        for c in self.conns.values() {
            let verdict = match &c.phase {
                Phase::Idle(since) if c.buf.is_empty() => (now >= *since + s.idle).then_some(None),
                Phase::Idle(_) | Phase::Away => None,
                Phase::Head(t0, _) => (now >= *t0 + s.limits.header_timeout).then_some(Some(*t0)),
                Phase::Body(b) => b.pace.check(now).err().map(|_| Some(b.t0)),
                Phase::Write(p) => p.pace.check(now).err().map(|_| None),
                Phase::Drain(until, _) => (now >= *until).then_some(None),
            };
            if let Some(v) = verdict {
                late.push((c.id, v));
            }
        }
        for (id, answer) in late {
            let Some(conn) = self.conns.remove(&id) else {
                continue;
            };
            match (answer, &conn.phase) {
                (Some(t0), Phase::Body(b)) => {
                    let head = b.head.clone();
                    self.refuse(conn, &head::TIMEOUT, Some(&head), t0)
                }
                (Some(t0), _) => self.refuse(conn, &head::TIMEOUT, None, t0),
                (None, Phase::Write(_)) => self.abort(conn),
                (None, _) => self.close(conn),
            }
        }
    }

    /// At shutdown: no more connections, and the idle ones are closed; the others finish the
    /// request they hold.
    fn begin_closing(&mut self) {
        self.hub.closing.store(true, Ordering::SeqCst);
        if let Some(l) = self.listener.take().filter(|_| !self.paused) {
            let _ = epoll::delete(&self.hub.epoll, &l);
        }
        let idle: Vec<u64> = self
            .conns
            .values()
            .filter(|c| c.is_idle())
            .map(|c| c.id)
            .collect();
        for id in idle {
            if let Some(c) = self.conns.remove(&id) {
                self.close(c);
            }
        }
    }
}

/// A connection refused at the door: the answer goes into the socket's buffer at once and
/// the connection is closed; nothing of the client's is read.
fn turn_away(mut stream: TcpStream, r: &Reject) {
    crate::metrics::refused(r.status);
    let _ = stream.set_nonblocking(true);
    let _ = stream.write(&wire::serialize(&refusal(r), true, false));
    let _ = stream.shutdown(Shutdown::Write);
}
