//! Our own HTTP types: the request handlers see, the response they build, and `wire`, which
//! writes a response as bytes. Reading requests off sockets is the server's (`server`);
//! turning an `Error` into a `Response` is the router's (`router::errors`).
pub mod request;
pub mod response;
pub mod wire;

pub use request::{Method, Request};
pub use response::Response;
