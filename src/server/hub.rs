//! What the reading stage and the workers share: the kernel's readiness list (epoll), the way
//! to wake the stage, and the connections workers hand back; and the clock of an answer left
//! to finish. A worker never touches the stage's own book of connections: it parks a
//! connection in the list or hands it back here.
use super::conn::{Conn, Pace, Pending, Then};
use super::Settings;
use crate::config::server::RATE_GRACE;
use rustix::event::epoll::{self, EventData, EventFlags};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::OwnedFd;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Instant;

/// The key of the wake-up source in the readiness list.
pub const WAKE: u64 = u64::MAX;

/// What the loop and the workers share: the readiness list, the way to wake the loop, and
/// the connections workers hand back.
pub struct Hub {
    /// The readiness list.
    pub epoll: OwnedFd,
    /// The wake-up source (an eventfd).
    pub wake: std::fs::File,
    back: Mutex<Vec<Back>>,
    /// Set at shutdown: answers say `Connection: close`.
    pub closing: AtomicBool,
}

impl Hub {
    /// A readiness list with the wake-up source on it.
    pub fn new() -> std::io::Result<Hub> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        let flags = rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK;
        let wake = std::fs::File::from(rustix::event::eventfd(0, flags)?);
        epoll::add(&epoll, &wake, EventData::new_u64(WAKE), EventFlags::IN)?;
        Ok(Hub {
            epoll,
            wake,
            back: Mutex::new(Vec::new()),
            closing: AtomicBool::new(false),
        })
    }

    /// Wakes the loop.
    pub fn wake(&self) {
        let _ = (&self.wake).write(&1u64.to_ne_bytes());
    }

    /// A worker hands back an idle connection with nothing pending: it waits in the readiness
    /// list. It is put back before it is watched again, under the lock the loop takes before
    /// it looks at what the list reported, so the loop always has it when its bytes come.
    pub fn park(&self, conn: Conn) {
        let mut back = self.back.lock().unwrap_or_else(|p| p.into_inner());
        let watched = watch(&self.epoll, &conn.stream, conn.id, EventFlags::IN).is_ok();
        back.push(Back { conn, watched });
        if !watched {
            drop(back);
            self.wake(); // the loop watches it itself
        }
    }

    /// A worker hands back a connection the loop must act on now (pipelined bytes, an answer
    /// to finish, a connection to close). The loop is woken every time: a wake-up already
    /// pending may be one the loop is about to consume before it looks at this list.
    pub fn give_back(&self, conn: Conn) {
        let mut back = self.back.lock().unwrap_or_else(|p| p.into_inner());
        back.push(Back {
            conn,
            watched: false,
        });
        drop(back);
        self.wake();
    }

    /// Consumes the wake-ups so far (the loop does, before it takes what was handed back).
    pub fn woken(&self) {
        let mut b = [0u8; 8];
        let _ = (&self.wake).read(&mut b);
    }

    /// The connections handed back since the last call.
    pub fn take_back(&self) -> Vec<Back> {
        std::mem::take(&mut *self.back.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// A connection a worker handed back, and whether it is watched already (parked).
pub struct Back {
    /// The connection.
    pub conn: Conn,
    /// It waits in the readiness list: the loop only keeps it.
    pub watched: bool,
}

/// Re-arms a connection in the readiness list for one event of `flags`.
pub fn watch(ep: &OwnedFd, s: &TcpStream, id: u64, flags: EventFlags) -> rustix::io::Result<()> {
    epoll::modify(ep, s, EventData::new_u64(id), flags | EventFlags::ONESHOT)
}

/// An answer to write, with its clock: the whole of it within `bodyTimeout`, at no less than
/// `bodyMinRate` once the grace has passed, however the client spreads its reads.
pub fn pending(s: &Settings, out: Vec<u8>, pos: usize, then: Then) -> Pending {
    let now = Instant::now();
    let mut pace = Pace::rated(now, s.body_timeout, s.limits.body_min_rate, RATE_GRACE);
    pace.got = pos as u64;
    Pending {
        out,
        pos,
        pace,
        then,
    }
}
