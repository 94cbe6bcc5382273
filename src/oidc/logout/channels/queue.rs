//! The back-channel logout notices, sent off the request path: the end of a session only
//! queues them (`push`), and a couple of sender threads (`SENDERS`, started at the first
//! notice) POST them through the guarded outbound client, each try bounded by `EACH`.
//!
//! - A notice that fails (no answer, refused, 5xx) is tried again after `BACKOFF` (three
//!   tries: at once, 5 s later, 30 s after that); a 4xx is the RP's refusal of the token
//!   (Back-Channel Logout 1.0, section 2.8) and is not tried again. Every failure is a warn
//!   line with the RP's name, the last one an error line; never the token.
//! - At most `CAP` notices wait at once (tries due later included), `CAP_PER_RP` for one
//!   relying party; past either a notice is dropped with an error line naming its RP, so a
//!   relying party that never answers costs bounded memory, never a worker, and cannot take
//!   the others' room.
//! - One relying party is sent one notice at a time: a silent one holds one sender at most,
//!   and the others' notices go on through the other.
//! - A command that ends sessions and then exits (`limette sessions delete`, `purge`) and the
//!   server when it stops call [`flush`]: they wait, at most the time given, for the queue to
//!   empty; what is left is named in one warn line.
use crate::log;
use crate::upstream::{self, Call};
use crate::util;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Sender threads.
const SENDERS: usize = 2;
/// The most notices waiting at once (due now or later).
pub const CAP: usize = 1024;
/// The most notices waiting at once for one relying party.
pub const CAP_PER_RP: usize = 256;
/// The longest one try may take (connection included).
pub const EACH: Duration = Duration::from_millis(1500);
/// The wait before each try: the first at once, then 5 s, then 30 s (three tries in all).
pub const BACKOFF: [Duration; 3] = [
    Duration::ZERO,
    Duration::from_secs(5),
    Duration::from_secs(30),
];

/// One logout token to POST.
pub struct Notice {
    /// The relying party's configuration name (for the log).
    pub rp: String,
    /// Its back-channel logout URL.
    pub url: String,
    /// The signed logout token.
    pub token: String,
}

/// A notice with the number of tries it had.
struct Pending {
    notice: Notice,
    tries: usize,
}

#[derive(Default)]
struct State {
    /// By due time (then arrival, for ties).
    waiting: BTreeMap<(Instant, u64), Pending>,
    /// Notices waiting, by relying party.
    per_rp: HashMap<String, usize>,
    /// The relying parties a sender is posting to now.
    busy: Vec<String>,
    /// Arrival counter.
    seq: u64,
    /// Sender threads running.
    senders: usize,
}

struct Queue {
    state: Mutex<State>,
    /// Signalled (to all: senders and `flush` wait on it) when a notice is queued or a try
    /// ends.
    changed: Condvar,
}

static QUEUE: OnceLock<Queue> = OnceLock::new();

/// The queue, its senders started on first use.
fn queue() -> &'static Queue {
    QUEUE.get_or_init(|| {
        // The threads wait for this initialisation to end before they use the queue.
        let mut senders = 0;
        for i in 0..SENDERS {
            match std::thread::Builder::new()
                .name(format!("backchannel-{i}"))
                .spawn(serve)
            {
                Ok(_) => senders += 1,
                Err(e) => log::error(&format!("back-channel logout: no sender thread: {e}")),
            }
        }
        Queue {
            state: Mutex::new(State {
                senders,
                ..State::default()
            }),
            changed: Condvar::new(),
        }
    })
}

/// The state, a poisoned lock taken over (the state stays consistent: every change is one
/// map operation or counter update).
fn lock(q: &Queue) -> MutexGuard<'_, State> {
    q.state.lock().unwrap_or_else(|p| p.into_inner())
}

/// Queues a notice to be sent at once; never waits for it.
pub fn push(notice: Notice) {
    let q = queue();
    let mut s = lock(q);
    if s.senders == 0 {
        log::error(&format!(
            "back-channel logout of relying party {} dropped: no sender thread",
            notice.rp
        ));
        return;
    }
    let full = if s.waiting.len() >= CAP {
        Some(CAP)
    } else if s.per_rp.get(&notice.rp).copied().unwrap_or(0) >= CAP_PER_RP {
        Some(CAP_PER_RP)
    } else {
        None
    };
    if let Some(n) = full {
        log::error(&format!(
            "back-channel logout of relying party {} dropped: {n} notices already waiting",
            notice.rp
        ));
        return;
    }
    schedule(&mut s, Pending { notice, tries: 0 });
    drop(s);
    q.changed.notify_all();
}

/// Waits until no notice is waiting or being sent, at most `limit`; names what is left.
pub fn flush(limit: Duration) {
    let Some(q) = QUEUE.get() else { return };
    let deadline = Instant::now() + limit;
    let mut s = lock(q);
    while !(s.waiting.is_empty() && s.busy.is_empty()) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let names: BTreeSet<&str> = s
                .waiting
                .values()
                .map(|p| p.notice.rp.as_str())
                .chain(s.busy.iter().map(String::as_str))
                .collect();
            log::warn(&format!(
                "back-channel logout: {} notices not sent as the process ends (relying parties: {})",
                s.waiting.len() + s.busy.len(),
                names.into_iter().collect::<Vec<_>>().join(", ")
            ));
            return;
        }
        s = match q.changed.wait_timeout(s, left) {
            Ok((s, _)) => s,
            Err(p) => p.into_inner().0,
        };
    }
}

/// Puts a notice in line, due after the wait its next try has.
fn schedule(s: &mut State, p: Pending) {
    let wait = BACKOFF.get(p.tries).copied().unwrap_or(Duration::ZERO);
    s.seq += 1;
    let key = (Instant::now() + wait, s.seq);
    *s.per_rp.entry(p.notice.rp.clone()).or_default() += 1;
    s.waiting.insert(key, p);
}

/// The notice due first among the relying parties no sender is posting to, taken out of line
/// and its RP marked busy; else how long to wait for one (`None`: until told).
fn take(s: &mut State, now: Instant) -> Result<Pending, Option<Duration>> {
    let first = s
        .waiting
        .iter()
        .find(|(_, p)| !s.busy.contains(&p.notice.rp))
        .map(|(k, _)| *k);
    let key = match first {
        Some(k) if k.0 <= now => k,
        Some(k) => return Err(Some(k.0 - now)),
        None => return Err(None),
    };
    let p = s.waiting.remove(&key).ok_or(None)?;
    if let Some(n) = s.per_rp.get_mut(&p.notice.rp) {
        *n -= 1;
        if *n == 0 {
            s.per_rp.remove(&p.notice.rp);
        }
    }
    s.busy.push(p.notice.rp.clone());
    Ok(p)
}

/// A sender thread: takes the notice due first, tries it, puts it back on a failure that
/// deserves another try.
fn serve() {
    let q = queue();
    loop {
        let mut s = lock(q);
        let p = loop {
            let wait = match take(&mut s, Instant::now()) {
                Ok(p) => break p,
                Err(wait) => wait.unwrap_or(Duration::from_secs(3600)),
            };
            s = match q.changed.wait_timeout(s, wait) {
                Ok((s, _)) => s,
                Err(p) => p.into_inner().0,
            };
        };
        drop(s);
        let again = deliver(&p);
        let mut s = lock(q);
        s.busy.retain(|rp| *rp != p.notice.rp);
        let tries = p.tries + 1;
        if again && tries < BACKOFF.len() {
            schedule(&mut s, Pending { tries, ..p });
        } else if again {
            log::error(&format!(
                "back-channel logout of relying party {} given up after {tries} tries",
                p.notice.rp
            ));
        }
        drop(s);
        q.changed.notify_all();
    }
}

/// One POST (section 2.5); logs what went wrong, never the token. Whether to try again.
fn deliver(p: &Pending) -> bool {
    let n = &p.notice;
    let form = format!("logout_token={}", util::url_encode(&n.token));
    let call = Call {
        method: "POST",
        url: &n.url,
        basic: None,
        json: None,
        form: Some(&form),
        timeout: EACH,
    };
    let try_no = p.tries + 1;
    match upstream::send(&call) {
        Ok(r) if (200..300).contains(&r.status) => {
            log::debug(&format!(
                "back-channel logout of relying party {} delivered",
                n.rp
            ));
            false
        }
        Ok(r) if (400..500).contains(&r.status) => {
            log::warn(&format!(
                "back-channel logout of relying party {} refused: HTTP {}",
                n.rp, r.status
            ));
            false
        }
        Ok(r) => {
            log::warn(&format!(
                "back-channel logout of relying party {} failed (try {try_no}): HTTP {}",
                n.rp, r.status
            ));
            true
        }
        Err(e) => {
            log::warn(&format!(
                "back-channel logout of relying party {} failed (try {try_no}): {e}",
                n.rp
            ));
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(rp: &str, tries: usize) -> Pending {
        Pending {
            notice: Notice {
                rp: rp.into(),
                url: format!("http://{rp}/bc"),
                token: "t".into(),
            },
            tries,
        }
    }

    #[test]
    fn one_notice_at_a_time_per_relying_party_in_due_order() {
        let mut s = State::default();
        for rp in ["a", "a", "b"] {
            schedule(&mut s, pending(rp, 0));
        }
        assert_eq!(s.per_rp.get("a"), Some(&2));
        let now = Instant::now();
        let first = take(&mut s, now).ok().unwrap();
        assert_eq!(first.notice.rp, "a");
        // `a` is being sent: its second notice waits, `b` goes first.
        assert_eq!(take(&mut s, now).ok().unwrap().notice.rp, "b");
        assert!(matches!(take(&mut s, now), Err(None)));
        s.busy.retain(|rp| rp != "a");
        assert_eq!(take(&mut s, now).ok().unwrap().notice.rp, "a");
        assert!(s.per_rp.is_empty() && s.waiting.is_empty());
    }

    #[test]
    fn a_second_try_waits_its_back_off() {
        let mut s = State::default();
        schedule(&mut s, pending("a", 1));
        let now = Instant::now();
        match take(&mut s, now) {
            Err(Some(wait)) => assert!(wait > Duration::from_secs(4) && wait <= BACKOFF[1]),
            _ => panic!("a retry is not due at once"),
        }
        assert!(take(&mut s, now + BACKOFF[1]).is_ok());
    }
}
