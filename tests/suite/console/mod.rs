//! Operating a node: `/portalStatus`, the health path and `/metrics` (status.rs), and the
//! administration console under `/manager/`, tried against the real server.
use crate::common;
use crate::python;

mod conf;
mod conf_domain;
mod conf_secrets;
mod editor;
mod feedback;
mod manager;
mod old_forms;
mod page_rules;
mod status;
mod time_and_titles;
mod users;
