//! The listening socket, made by hand so that accepted sockets inherit what the standard
//! library never sets (Linux copies these options from the listener at accept time):
//! - TCP_NODELAY, without which any response over about 1 KiB waits for the client's delayed
//!   ACK (40 ms);
//! - a send timeout of `idle_timeout`, so a client that stops reading its answers is dropped.
//!
//! Read deadlines are the reading stage's (`front`), set before every read.
use socket2::{Domain, Protocol, Socket, Type};
use std::net::{TcpListener, ToSocketAddrs};
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
