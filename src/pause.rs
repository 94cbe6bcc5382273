//! Test-only pause points: named places in the middle of a write where the test suite can hold a
//! process, so that its crash tests kill it exactly there (a transaction begun and not
//! committed, a configuration written and not yet published) instead of hoping a timed kill
//! lands somewhere useful.
//!
//! A point holds only when all three are true, so production cannot enable one by accident:
//! the binary is a debug build (`cfg(debug_assertions)`; release builds, the shipped artifact,
//! compile [`point`] to nothing), `LIMETTE_TEST_HOOKS=1`, and `LIMETTE_TEST_PAUSE=<point>@<hold
//! file>` names this point. The process then writes `paused at <point>` on stderr and waits
//! while the hold file exists (at most 60 s). When off, a point costs one load of a value read
//! once from the environment.

/// Holds here while the test suite asks for it (see the module documentation).
#[inline]
pub fn point(name: &str) {
    #[cfg(debug_assertions)]
    armed::hold(name);
    #[cfg(not(debug_assertions))]
    let _ = name;
}

#[cfg(debug_assertions)]
mod armed {
    use std::path::PathBuf;
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    /// The armed point and its hold file, read once.
    fn armed() -> Option<&'static (String, PathBuf)> {
        static ARMED: OnceLock<Option<(String, PathBuf)>> = OnceLock::new();
        ARMED
            .get_or_init(|| {
                if std::env::var("LIMETTE_TEST_HOOKS").as_deref() != Ok("1") {
                    return None;
                }
                let spec = std::env::var("LIMETTE_TEST_PAUSE").ok()?;
                let (point, hold) = spec.split_once('@')?;
                Some((point.to_string(), PathBuf::from(hold)))
            })
            .as_ref()
    }

    pub fn hold(name: &str) {
        let Some((point, hold)) = armed() else {
            return;
        };
        if point != name {
            return;
        }
        eprintln!("[test] paused at {name}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while hold.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
