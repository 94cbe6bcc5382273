//! `limette notifications ...` (built by the notification-server issue).
use crate::app::App;
use crate::cli::Options;

/// Runs a `notifications` subcommand; returns the exit code.
pub fn run(_app: &App, args: &[String], _opts: &Options) -> i32 {
    eprintln!(
        "limette notifications: unknown subcommand {}",
        args.first().map(String::as_str).unwrap_or("")
    );
    2
}
