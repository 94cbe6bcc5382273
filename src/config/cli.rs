//! `limette config ...` (built by the configuration issue).
use crate::app::App;

/// Runs a `config` subcommand; returns the process exit code.
pub fn run(_app: &App, args: &[String], _opts: &crate::cli::Options) -> i32 {
    eprintln!(
        "limette config: unknown subcommand {}",
        args.first().map(String::as_str).unwrap_or("")
    );
    2
}
