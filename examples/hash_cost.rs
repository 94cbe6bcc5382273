//! The floor of a login on the DBI user store: each password scheme's check alone, on one
//! thread, through the library's `Hashing` (the code a login runs: `Hashing::verify` on the
//! stored value), with the configuration `make bench`'s DBI instances use. `make bench` runs
//! it in the same run as the login rows (bench/dbi.sh) and reports each login against it.
//!
//! `cargo run --release --example hash_cost -- SECONDS SCHEME...`, a scheme being `clear`
//! (clear text) or a `dbiDynamicHashNewPasswordScheme` value (`sha256`, `ssha512`,
//! `unixcrypt5`, `unixcrypt6`, `argon2id`...). Prints one line a scheme:
//! `SCHEME|CPU MICROSECONDS PER CHECK|CHECKS PER SECOND OF ONE CORE|WALL MICROSECONDS PER CHECK`.
//! The CPU time is the thread's own (user and system, from `/proc/thread-self/stat`), which
//! hardly moves when other processes share the cores, like the server's CPU time a login that
//! `make bench` reads beside it; on a quiet machine both columns agree.
use limette::Hashing;
use std::time::{Duration, Instant};

/// The lists of valid schemes of the bench's DBI instances (bench/dbi.sh says the same).
const VALID: &str = "sha256 sha512";
const SALTED: &str = "ssha256 ssha512 unixcrypt5 unixcrypt6 argon2id";
/// The password of every bench user.
const PASSWORD: &str = "bench-Passw0rd";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((seconds, schemes)) = args.split_first() else {
        fail("usage: hash_cost SECONDS SCHEME...");
    };
    let seconds: f64 = seconds
        .parse()
        .ok()
        .filter(|s: &f64| *s > 0.0 && s.is_finite())
        .unwrap_or_else(|| fail(&format!("{seconds} is not a number of seconds")));
    for scheme in schemes {
        let (cpu_us, wall_us) = measure(scheme, Duration::from_secs_f64(seconds));
        println!(
            "{scheme}|{cpu_us:.2}|{:.0}|{wall_us:.2}",
            1e6 / cpu_us.max(1e-3)
        );
    }
}

fn fail(what: &str) -> ! {
    eprintln!("hash_cost: {what}");
    std::process::exit(2);
}

/// Checks of the right password against a value of `scheme` for about `time`: the CPU time
/// and the wall time a check takes (µs).
fn measure(scheme: &str, time: Duration) -> (f64, f64) {
    let new = if scheme == "clear" { "" } else { scheme };
    let hashing = Hashing::parse(true, "", VALID, SALTED, new)
        .unwrap_or_else(|e| fail(&format!("{scheme}: {e}")));
    let stored = hashing
        .hash_new(PASSWORD)
        .unwrap_or_else(|| fail(&format!("{scheme}: no hash")));
    if !hashing.verify(&stored, PASSWORD) || hashing.verify(&stored, "wrong") {
        fail(&format!(
            "{scheme}: the check does not tell right from wrong"
        ));
    }
    // Batches sized so that reading the clock costs nothing next to them.
    let mut batch = 1u64;
    let mut checks = 0u64;
    let cpu0 = cpu_ticks();
    let start = Instant::now();
    while start.elapsed() < time {
        let t = Instant::now();
        for _ in 0..batch {
            std::hint::black_box(hashing.verify(std::hint::black_box(&stored), PASSWORD));
        }
        checks += batch;
        if t.elapsed() < Duration::from_millis(10) {
            batch *= 2;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, cpu_ticks()) {
        (Some(a), Some(b)) => (b - a) as f64 / TICKS_PER_S,
        _ => wall,
    };
    (cpu * 1e6 / checks as f64, wall * 1e6 / checks as f64)
}

/// The kernel's clock ticks of /proc (USER_HZ, 100 on Linux whatever the kernel's own rate).
const TICKS_PER_S: f64 = 100.0;

/// This thread's CPU time so far (user + system), in clock ticks.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command name (which may hold spaces) in parentheses: utime and
    // stime are the 12th and 13th.
    let rest = stat.rsplit_once(") ")?.1;
    let f: Vec<&str> = rest.split(' ').collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}
