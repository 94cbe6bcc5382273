//! The limits of the fetchers (`server::later`), read from `[portal]` of the INI: the few
//! threads that answer a request waiting on a fetch a client asked for (a request object at a
//! `request_uri`), so that no worker ever waits on another server. Defaults live here and in
//! `conf/limette.ini`.
//!
//! This file owns the keys and their parsing only; the threads are `server::later`.

/// The fetchers' limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchLimits {
    /// `fetchers`: threads that run fetches (each holds one for at most the fetch's timeout).
    pub fetchers: usize,
    /// `fetchQueue`: requests waiting for a fetcher; above, refused at once.
    pub queue: usize,
    /// `fetchesPerClient`: requests of one client (its `client_id`) in hand, waiting or
    /// running; above, refused at once.
    pub per_client: usize,
}

/// Keys of `[portal]` this file reads.
pub const KEYS: &[&str] = &["fetchers", "fetchQueue", "fetchesPerClient"];

impl Default for FetchLimits {
    fn default() -> FetchLimits {
        FetchLimits {
            fetchers: 4,
            queue: 16,
            per_client: 2,
        }
    }
}

impl FetchLimits {
    /// Applies one `[portal]` key of [`KEYS`]; the error says what is wrong with the value.
    pub fn apply(&mut self, key: &str, v: &str) -> Result<(), String> {
        let count = |v: &str, max: u64| match v.trim().parse::<u64>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n as usize),
            _ => Err(format!("expected a number from 1 to {max}, got {v}")),
        };
        match key {
            "fetchers" => self.fetchers = count(v, 256)?,
            "fetchQueue" => self.queue = count(v, 1 << 16)?,
            "fetchesPerClient" => self.per_client = count(v, 1 << 16)?,
            other => return Err(format!("{other} is not a fetcher key")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bounded() {
        let mut f = FetchLimits::default();
        f.apply("fetchers", "8").unwrap();
        f.apply("fetchesPerClient", " 3 ").unwrap();
        assert_eq!((f.fetchers, f.per_client, f.queue), (8, 3, 16));
        for (k, v) in [("fetchers", "0"), ("fetchers", "257"), ("fetchQueue", "x")] {
            assert!(f.apply(k, v).is_err(), "{k} = {v}");
        }
    }
}
