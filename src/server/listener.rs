//! The listening socket, made by hand so that accepted sockets inherit what tiny_http never
//! sets (Linux copies these options from the listener at accept time):
//! - TCP_NODELAY, without which any response over about 1 KiB waits for the client's delayed
//!   ACK (40 ms);
//! - receive and send timeouts, so an idle keep-alive or silent client is dropped after
//!   `idle_timeout` and can never hold a connection thread for ever.
//!
//! The receive timeout also applies to `accept` itself, and tiny_http's accept thread gives
//! up on any accept error; a heartbeat thread therefore connects to the listener at a third of
//! the timeout, so that `accept` never sits idle that long.
use socket2::{Domain, Protocol, Socket, Type};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Binds `addr` with TCP_NODELAY and the idle timeouts set.
pub fn bind(addr: &str, idle_timeout: Duration) -> std::io::Result<TcpListener> {
    let sa = addr
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address"))?;
    let sock = Socket::new(Domain::for_address(sa), Type::STREAM, Some(Protocol::TCP))?;
    sock.set_reuse_address(true)?;
    sock.set_nodelay(true)?;
    sock.set_read_timeout(Some(idle_timeout))?;
    sock.set_write_timeout(Some(idle_timeout))?;
    sock.bind(&sa.into())?;
    sock.listen(1024)?;
    Ok(sock.into())
}

/// Keeps `accept` from timing out (see the module doc); ends when `stop` is set.
pub fn spawn_heartbeat(addr: SocketAddr, idle: Duration, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    let period = (idle / 3).max(Duration::from_millis(50));
    let target = if addr.ip().is_unspecified() {
        SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), addr.port())
    } else {
        addr
    };
    std::thread::spawn(move || {
        let tick = Duration::from_millis(50);
        let mut waited = Duration::ZERO;
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(tick);
            waited += tick;
            if waited >= period {
                waited = Duration::ZERO;
                let _ = TcpStream::connect_timeout(&target, Duration::from_secs(1));
            }
        }
        // One last connection unblocks tiny_http's accept so its thread can see the end.
        let _ = TcpStream::connect_timeout(&target, Duration::from_secs(1));
    })
}
