//! `limette sessions ...` (built by the sessions issue).
use crate::app::App;

/// Runs a `sessions` subcommand; returns the exit code.
pub fn run(_app: &App, args: &[String]) -> i32 {
    eprintln!(
        "limette sessions: unknown subcommand {}",
        args.first().map(String::as_str).unwrap_or("")
    );
    2
}
