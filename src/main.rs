//! Thin entry point: parse the command line, run it, exit with its code.
#![forbid(unsafe_code)]

/// The static (musl) build allocates through mimalloc: musl's allocator serialises and
/// returns memory eagerly, which cost the static binary half its throughput on
/// allocation-heavy requests (see docs/benchmarks.md). The glibc build keeps glibc's.
#[cfg(target_env = "musl")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(limette::cli::main(std::env::args().skip(1).collect()));
}
