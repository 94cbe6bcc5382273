//! Portals on the embedded default local configuration (no `-c`): what `cargo run` starts, in
//! a temp data folder, listening where the test says.
use super::{bin, Portal, TempDir};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// Starts `limette --data <dir> -l <listen> <args>` and waits for its listening line, which
/// it returns with the portal.
pub fn start(dir: TempDir, listen: &str, args: &[&str]) -> (Portal, String) {
    let data = dir.path().to_path_buf();
    start_with(dir, &data, Command::new(bin()), listen, args)
}

/// [`start`] with the data folder `data` (which the server creates when absent), through
/// `sh -c 'umask <mask>; exec ...'`; the log stays in `dir`.
pub fn start_umask(dir: TempDir, data: &Path, mask: &str, args: &[&str]) -> (Portal, String) {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("umask {mask} && exec \"$0\" \"$@\""))
        .arg(bin());
    start_with(dir, data, sh, "127.0.0.1:0", args)
}

fn start_with(
    dir: TempDir,
    data: &Path,
    mut cmd: Command,
    listen: &str,
    args: &[&str],
) -> (Portal, String) {
    cmd.arg("--data").arg(data).arg("-l").arg(listen).args(args);
    spawn_listening(dir, cmd).unwrap_or_else(|e| panic!("no listening line; {e}"))
}

/// Runs `cmd` in `dir` (its log in `dir/server.log`) and waits for its listening line,
/// which it returns with the portal; the line and the log when it has none (it exited).
pub fn spawn_listening(dir: TempDir, mut cmd: Command) -> Result<(Portal, String), String> {
    let log = dir.path().join("server.log");
    let mut child = cmd
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start limette");
    let mut line = String::new();
    let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
    let port = line
        .split("listening on http://")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|addr| addr.rsplit(':').next())
        .and_then(|p| p.parse().ok());
    let portal = Portal {
        child: Some(child),
        port: port.unwrap_or(0),
        dir: Some(dir),
        log,
    };
    match port {
        Some(_) => Ok((portal, line)),
        None => Err(format!("got {line:?}; log: {}", portal.log())),
    }
}
