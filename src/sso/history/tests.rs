//! The lock computed as LemonLDAP::NG's plugin computes it, on plain values.
use super::*;
use crate::config::AreaSettings;

fn failures(times: &[i64]) -> Vec<Value> {
    times
        .iter()
        .map(|t| json!({"_utime": t, "ipAddr": "127.0.0.1", "error": 5}))
        .collect()
}

#[test]
fn defaults_are_those_of_2_16() {
    let s = Settings::from_conf(&Map::new()).unwrap();
    assert_eq!((s.enabled, s.success_max, s.failed_max), (false, 5, 5));
    assert_eq!(s.lock, None);
    let on = json!({"bruteForceProtection": 1, "loginHistoryEnabled": 1});
    let s = Settings::from_conf(on.as_object().unwrap()).unwrap();
    let lock = s.lock.unwrap();
    // MaxFailed 3, Tempo 30, MaxAge 300 counted over (1 + MaxFailed) periods.
    assert_eq!(
        (
            lock.max_failed,
            lock.tempo,
            lock.max_age,
            lock.max_lock_time
        ),
        (3, 30, 1200, 900)
    );
    assert_eq!(lock.steps, None);
}

#[test]
fn a_non_integer_setting_is_refused_by_name() {
    let bad = json!({"bruteForceProtection": 1, "bruteForceProtectionTempo": "soon"});
    let e = Settings::from_conf(bad.as_object().unwrap()).unwrap_err();
    assert!(e.starts_with("bruteForceProtectionTempo = soon"), "{e}");
}

#[test]
fn fixed_tempo_locks_after_max_failed_failures() {
    let lock = Lock::new(3, 30, 300, 900, None, 5);
    let now = 10_000;
    // Two failures: may try.
    assert_eq!(lock.wait(&failures(&[now - 5, now - 8]), now), None);
    // Three, the last 5 s ago: 25 s left, the refused attempt not recorded.
    let w = lock
        .wait(&failures(&[now - 5, now - 8, now - 9]), now)
        .unwrap();
    assert_eq!((w.seconds, w.record), (25, false));
    // Tempo over: may try again.
    assert_eq!(
        lock.wait(&failures(&[now - 30, now - 31, now - 32]), now),
        None
    );
    // Failures older than the window do not count.
    assert_eq!(
        lock.wait(&failures(&[now - 1, now - 1300, now - 1400]), now),
        None
    );
}

#[test]
fn incremental_tempo_walks_the_lock_times() {
    // MaxFailed 3 puts two free steps before the list: 0, 0, 15, 30, 60, 300, 600.
    let lock = Lock::new(3, 30, 300, 900, Some("15, 30, 60, 300, 600"), 10);
    let steps = lock.steps.clone().unwrap();
    assert_eq!(steps, vec![0, 0, 15, 30, 60, 300, 600]);
    // Window: 300 * (1 + 10 - 7) + 1005.
    assert_eq!(lock.max_age, 300 * 4 + 1005);
    let now = 50_000;
    assert_eq!(lock.wait(&failures(&[now - 1, now - 2]), now), None);
    let w = lock
        .wait(&failures(&[now - 1, now - 2, now - 3]), now)
        .unwrap();
    assert_eq!((w.seconds, w.record), (14, true));
    let w = lock
        .wait(&failures(&[now, now - 2, now - 3, now - 4]), now)
        .unwrap();
    assert_eq!((w.seconds, w.record), (30, true));
    // The last step: waited, not recorded any more.
    let seven: Vec<i64> = (0..7).map(|i| now - 10 - i).collect();
    let w = lock.wait(&failures(&seven), now).unwrap();
    assert_eq!((w.seconds, w.record), (590, false));
    assert_eq!(lock.wait(&failures(&[]), now), None);
}

#[test]
fn lock_times_are_read_as_perl_reads_them() {
    // Not numbers dropped, values from MaxLockTime on dropped, sorted.
    let lock = Lock::new(1, 30, 300, 100, Some("60,x, 5s ,-20, 100, 2000"), 10);
    assert_eq!(lock.steps.unwrap(), vec![5, 20, 60]);
    // Nothing usable: the built-in list. Cut to failedLoginNumber.
    let lock = Lock::new(3, 30, 300, 900, Some("none"), 4);
    assert_eq!(lock.steps.unwrap(), vec![0, 0, 15, 30]);
}

#[test]
fn history_lists_are_cut_to_their_number() {
    let mut h = Map::new();
    for t in 0..7 {
        let mut e = Map::new();
        e.insert("_utime".into(), json!(t));
        push(&mut h, "failedLogin", e, 3);
    }
    let list = h["failedLogin"].as_array().unwrap();
    let times: Vec<i64> = list.iter().map(|e| e["_utime"].as_i64().unwrap()).collect();
    assert_eq!(times, vec![6, 5, 4], "newest first, at most 3");
}
