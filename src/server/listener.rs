//! The listening socket, made by hand so that accepted sockets inherit what the standard
//! library never sets (Linux copies it from the listener at accept time): TCP_NODELAY, without
//! which any response over about 1 KiB waits for the client's delayed ACK (40 ms).
//!
//! Deadlines are the reading stage's (`stage`): sockets are non-blocking and never wait.
use socket2::{Domain, Protocol, Socket, Type};
use std::net::{TcpListener, ToSocketAddrs};

/// Binds `addr` with TCP_NODELAY set and a backlog of 1024.
pub fn bind(addr: &str) -> std::io::Result<TcpListener> {
    let sa = addr
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address"))?;
    let sock = Socket::new(Domain::for_address(sa), Type::STREAM, Some(Protocol::TCP))?;
    sock.set_reuse_address(true)?;
    sock.set_nodelay(true)?;
    sock.bind(&sa.into())?;
    sock.listen(1024)?;
    Ok(sock.into())
}
