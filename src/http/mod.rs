//! Our own HTTP types. `adapter` is the only file that names tiny_http. Turning an `Error` into a
//! `Response` is the router's (`router::errors`).
pub mod adapter;
pub mod request;
pub mod response;

pub use request::{Method, Request};
pub use response::Response;
