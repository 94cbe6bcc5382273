//! Our own HTTP types. `adapter` is the only file that names tiny_http; `errors` is the only
//! place that turns an `Error` into a `Response`.
pub mod adapter;
pub mod errors;
pub mod request;
pub mod response;

pub use request::{Method, Request};
pub use response::Response;
