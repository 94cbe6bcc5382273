//! The login history and the brute-force lock, as LemonLDAP::NG 2.16 keeps and computes them.
//!
//! With `loginHistoryEnabled`, every login of a known user is recorded in the user's persistent
//! session under `_loginHistory`: `successLogin` and `failedLogin`, newest first, each entry
//! `{_utime, ipAddr}` (`error` added to a failure: the portal error it got), cut to
//! `successLoginNumber` and `failedLoginNumber` entries (`registerLogin` in `Main/Run.pm`).
//!
//! With `bruteForceProtection`, the failed logins of that history decide whether the user may
//! try at all ([`Settings::wait`], the plugin's `run`): after `MaxFailed` failures, the user
//! waits `Tempo` seconds after the last one; with `IncrementalTempo`, the wait grows with the
//! number of failures through `LockTimes` (capped by `MaxLockTime`). The start-up gate refuses
//! the plugin without the history it reads (`config::gate`). No HTTP here.
use crate::app::App;
use crate::config::{as_i64, truthy};
use crate::error::Result;
use crate::storage::{Kind, Session};
use serde_json::{json, Map, Value};
use std::sync::Mutex;

/// The key of the history in the persistent (and SSO) session.
pub const KEY: &str = "_loginHistory";
/// PE_WAIT, the error a login refused by the lock records in the incremental mode.
const PE_WAIT: i64 = 86;

/// The history and lock settings (`Conf::area`), checked when a configuration is loaded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settings {
    /// `loginHistoryEnabled`.
    pub enabled: bool,
    /// `successLoginNumber`: successful logins kept.
    pub success_max: usize,
    /// `failedLoginNumber`: failed logins kept.
    pub failed_max: usize,
    /// `bruteForceProtection`, when on.
    pub lock: Option<Lock>,
}

/// The brute-force lock, its values computed as the plugin's `init` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    /// `abs(bruteForceProtectionMaxFailed)`.
    pub max_failed: i64,
    /// `bruteForceProtectionTempo`: the wait after `max_failed` failures.
    pub tempo: i64,
    /// The window in which failures count (derived from `bruteForceProtectionMaxAge`).
    pub max_age: i64,
    /// `bruteForceProtectionMaxLockTime`.
    pub max_lock_time: i64,
    /// With `bruteForceProtectionIncrementalTempo`: the wait after the n-th failure, the
    /// first `max_failed - 1` being 0.
    pub steps: Option<Vec<i64>>,
}

impl crate::config::AreaSettings for Settings {
    fn from_conf(raw: &Map<String, Value>) -> std::result::Result<Self, String> {
        let int = |key: &str, default: i64| -> std::result::Result<i64, String> {
            match raw.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(default),
                Some(v) => as_i64(v).ok_or_else(|| {
                    format!(
                        "{key} = {} is not an integer",
                        crate::config::value_string(v)
                    )
                }),
            }
        };
        let count = |key: &str| -> std::result::Result<usize, String> {
            Ok(usize::try_from(int(key, 5)?.max(0)).unwrap_or(0))
        };
        let lock = if truthy(raw.get("bruteForceProtection")) {
            let failed_max = int("failedLoginNumber", 5)?;
            let lock_times = raw
                .get("bruteForceProtectionLockTimes")
                .map(crate::config::value_string)
                .unwrap_or_else(|| "15, 30, 60, 300, 600".into());
            Some(Lock::new(
                int("bruteForceProtectionMaxFailed", 3)?,
                int("bruteForceProtectionTempo", 30)?,
                int("bruteForceProtectionMaxAge", 300)?,
                int("bruteForceProtectionMaxLockTime", 900)?,
                truthy(raw.get("bruteForceProtectionIncrementalTempo")).then_some(&*lock_times),
                failed_max,
            ))
        } else {
            None
        };
        Ok(Settings {
            enabled: truthy(raw.get("loginHistoryEnabled")),
            success_max: count("successLoginNumber")?,
            failed_max: count("failedLoginNumber")?,
            lock,
        })
    }
}

impl Lock {
    /// The plugin's `init`: `lock_times` is `bruteForceProtectionLockTimes` when the tempo is
    /// incremental; `failed_max` is `failedLoginNumber`.
    pub fn new(
        max_failed: i64,
        tempo: i64,
        max_age: i64,
        max_lock_time: i64,
        lock_times: Option<&str>,
        failed_max: i64,
    ) -> Lock {
        let max_failed = max_failed.abs();
        let max_age_conf = if max_age == 0 { 300 } else { max_age };
        let Some(list) = lock_times else {
            return Lock {
                max_failed,
                tempo,
                max_age: max_age_conf * (1 + max_failed),
                max_lock_time,
                steps: None,
            };
        };
        let mut steps: Vec<i64> = list
            .split(',')
            .map(str::trim)
            .filter(|s| s.bytes().any(|b| b.is_ascii_digit()))
            .map(perl_lock_time)
            .filter(|t| *t < max_lock_time)
            .collect();
        crate::util::sort::sort(&mut steps);
        if steps.is_empty() {
            steps = vec![15, 30, 60, 300, 600];
        }
        for _ in 1..max_failed {
            steps.insert(0, 0);
        }
        if steps.len() as i64 > failed_max {
            crate::log::warn(&format!(
                "failedLoginNumber ({failed_max}) should be at least the number of lock times \
                 plus the failures allowed ({}): the lock times are cut",
                steps.len()
            ));
            steps.truncate(usize::try_from(failed_max.max(0)).unwrap_or(0));
        }
        let kept = steps.len() as i64;
        let max_age = max_age_conf * (1 + failed_max - kept) + steps.iter().sum::<i64>();
        Lock {
            max_failed,
            tempo,
            max_age,
            max_lock_time,
            steps: Some(steps),
        }
    }

    /// The plugin's `run`: given the failed logins (newest first) and the time, how long the
    /// user must still wait (`None`: may try), and whether this refused attempt is itself
    /// recorded as a failure (the incremental mode records it, until its last step).
    pub fn wait(&self, failed: &[Value], now: i64) -> Option<Wait> {
        let recent: Vec<i64> = failed
            .iter()
            .filter_map(|f| f.get("_utime").and_then(as_i64))
            .filter(|t| now - t <= self.max_age)
            .collect();
        let count = recent.len();
        let last = recent.first().copied();
        if let Some(steps) = &self.steps {
            let last = last?;
            let delta = now - last;
            let final_step = steps.last().copied().unwrap_or(0);
            let waiting = if count >= steps.len() {
                final_step
            } else {
                steps
                    .get(count.wrapping_sub(1))
                    .copied()
                    .unwrap_or(self.max_lock_time)
            };
            if waiting != 0 && delta < waiting {
                return Some(Wait {
                    seconds: waiting - delta,
                    record: waiting < self.max_lock_time && waiting < final_step,
                });
            }
            return None;
        }
        if (count as i64) < self.max_failed {
            return None;
        }
        let delta = last.map_or(0, |l| now - l);
        (delta < self.tempo && count > 0).then_some(Wait {
            seconds: self.tempo - delta,
            record: false,
        })
    }
}

/// A lock in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    /// Seconds left (LemonLDAP::NG's `lockTime`).
    pub seconds: i64,
    /// Whether the refused attempt is recorded as a failure (error 86).
    pub record: bool,
}

/// What a login attempt of a known user comes to, once the lock is consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Go on (the password was right).
    Pass,
    /// Refused by the directory: recorded with this portal error.
    Failed(i64),
    /// Refused by the lock, right password or not.
    Locked(Wait),
}

/// One lock for the read-decide-write of histories in this process, so that parallel attempts
/// are counted one after the other instead of all reading the same history.
static HISTORY: Mutex<()> = Mutex::new(());

/// Consults the lock for a known user whose password was `right` and records a failure:
/// `session` is the session the login built (its `_whatToTrace`, `ipAddr`).
pub fn judge(app: &App, settings: &Settings, session: &Session, right: bool) -> Result<Verdict> {
    if !settings.enabled {
        return Ok(if right {
            Verdict::Pass
        } else {
            Verdict::Failed(5)
        });
    }
    let Some(trace) = trace_of(session) else {
        return Ok(Verdict::Failed(5));
    };
    let _serial = HISTORY.lock().unwrap_or_else(|p| p.into_inner());
    let (pid, mut ps) = crate::sso::persistent(app, &trace)?;
    let mut history = history_of(&ps);
    let now = crate::util::now();
    let failed = history
        .get("failedLogin")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let (verdict, error) = match settings.lock.as_ref().and_then(|l| l.wait(&failed, now)) {
        Some(w) => (Verdict::Locked(w), w.record.then_some(PE_WAIT)),
        None if right => return Ok(Verdict::Pass),
        None => (Verdict::Failed(5), Some(5)),
    };
    if let Some(error) = error {
        let mut entry = entry_of(session, now);
        entry.insert("error".into(), json!(error));
        push(&mut history, "failedLogin", entry, settings.failed_max);
        ps.insert(KEY.into(), Value::Object(history));
        app.sessions(Kind::Persistent)
            .put(Kind::Persistent, &pid, &ps)?;
    }
    Ok(verdict)
}

/// Records a successful login in the user's persistent session; returns the history to copy
/// into the SSO session (LemonLDAP::NG keeps it in both). `None` when the history is off.
pub fn record_success(app: &App, settings: &Settings, session: &Session) -> Result<Option<Value>> {
    if !settings.enabled {
        return Ok(None);
    }
    let Some(trace) = trace_of(session) else {
        return Ok(None);
    };
    let _serial = HISTORY.lock().unwrap_or_else(|p| p.into_inner());
    let (pid, mut ps) = crate::sso::persistent(app, &trace)?;
    let mut history = history_of(&ps);
    let entry = entry_of(session, crate::util::now());
    push(&mut history, "successLogin", entry, settings.success_max);
    let history = Value::Object(history);
    ps.insert(KEY.into(), history.clone());
    app.sessions(Kind::Persistent)
        .put(Kind::Persistent, &pid, &ps)?;
    Ok(Some(history))
}

fn trace_of(session: &Session) -> Option<String> {
    session
        .get("_whatToTrace")
        .map(crate::config::value_string)
        .filter(|t| !t.is_empty())
}

fn history_of(ps: &Session) -> Map<String, Value> {
    match ps.get(KEY) {
        Some(Value::Object(h)) => h.clone(),
        _ => Map::new(),
    }
}

/// `_sumUpSession` without the user: the time and the address.
fn entry_of(session: &Session, now: i64) -> Map<String, Value> {
    let mut e = Map::new();
    e.insert("_utime".into(), json!(now));
    e.insert(
        "ipAddr".into(),
        session.get("ipAddr").cloned().unwrap_or(Value::Null),
    );
    e
}

/// Puts `entry` first in the `list` of `history`, keeping at most `max` entries.
fn push(history: &mut Map<String, Value>, list: &str, entry: Map<String, Value>, max: usize) {
    let mut entries = match history.remove(list) {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    entries.insert(0, Value::Object(entry));
    entries.truncate(max);
    history.insert(list.into(), Value::Array(entries));
}

/// A lock time as Perl reads `s/\D//; abs $_`: the first non-digit dropped, then the leading
/// number.
fn perl_lock_time(s: &str) -> i64 {
    let mut t = s.to_string();
    if let Some(i) = t.find(|c: char| !c.is_ascii_digit()) {
        t.remove(i);
    }
    let digits: String = t
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<i64>().unwrap_or(0).abs()
}

#[cfg(test)]
mod tests;
