//! Helpers of the hostile-input and fault tests: raw requests that may fail without panicking,
//! and what /proc says about the server (resident memory, open descriptors, the fd limit).
use super::http::{read_response, Resp};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Sends raw bytes on a fresh connection and reads one response; `Err` when the server closed
/// the connection without answering or the connection failed.
pub fn raw(port: u16, bytes: &[u8]) -> std::io::Result<Resp> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.set_write_timeout(Some(Duration::from_secs(10)))?;
    // The server may answer (and close) before it has read everything: ignore write errors.
    let _ = s.write_all(bytes);
    read_response(&mut BufReader::new(s), false)
}

/// Whether a read failed because its timeout ran out (the peer kept the connection open),
/// as opposed to an end of stream or a reset (the peer closed it).
pub fn timed_out(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// A request with the given method, target (sent as is), extra header lines and body;
/// `Connection: close` and the JSON `Accept` are added.
pub fn request(
    port: u16,
    method: &str,
    target: &str,
    headers: &str,
    body: &[u8],
) -> std::io::Result<Resp> {
    let mut bytes = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    raw(port, &bytes)
}

/// One `Name: value` field of /proc/<pid>/status, as a number (kB for memory fields). A read
/// that fails is a failed test, never a zero that passes every limit.
fn status_field(pid: u32, name: &str) -> u64 {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{path} has no number for {name}"))
}

/// Resident memory of a process in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    status_field(pid, "VmRSS")
}

/// Threads of a process.
pub fn threads(pid: u32) -> u64 {
    status_field(pid, "Threads")
}

/// Open file descriptors of a process (a failed read fails the test).
pub fn fds(pid: u32) -> usize {
    let path = format!("/proc/{pid}/fd");
    std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .count()
}

/// The soft limit of open files of this process (the server inherits it).
pub fn nofile_limit() -> usize {
    let text = std::fs::read_to_string("/proc/self/limits")
        .unwrap_or_else(|e| panic!("/proc/self/limits: {e}"));
    let line = text
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap_or_else(|| panic!("no open-files limit in /proc/self/limits"));
    match line.split_whitespace().nth(3) {
        Some("unlimited") => usize::MAX,
        v => v
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("unreadable open-files limit: {line}")),
    }
}

/// Waits up to `limit` for `f` to hold, polling every 50 ms.
pub fn wait_for(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let t0 = std::time::Instant::now();
    while t0.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// A connection from another loopback address (127.0.0.2, 127.0.0.3): another client as far
/// as the server can tell.
pub fn connect_from(from: &str, port: u16) -> std::io::Result<TcpStream> {
    use socket2::{Domain, Socket, Type};
    let ip: std::net::IpAddr = from.parse().expect("a test address");
    let sock = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    sock.bind(&std::net::SocketAddr::new(ip, 0).into())?;
    sock.connect(&std::net::SocketAddr::from(([127, 0, 0, 1], port)).into())?;
    let s: TcpStream = sock.into();
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.set_write_timeout(Some(Duration::from_secs(10)))?;
    Ok(s)
}

/// [`raw`] from another loopback address.
pub fn raw_from(from: &str, port: u16, bytes: &[u8]) -> std::io::Result<Resp> {
    let mut s = connect_from(from, port)?;
    let _ = s.write_all(bytes);
    read_response(&mut BufReader::new(s), false)
}

/// Everything the server sends on a connection until it closes it; `Err` when it kept the
/// connection open past the read timeout (10 s).
pub fn read_until_closed(s: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Ok(all),
            Ok(n) => all.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(all),
            Err(e) => return Err(e),
        }
    }
}
