//! Notification storage trait and backends (built by the notification-server issue).
use crate::config::local::LocalConf;
use crate::config::Conf;
use crate::error::Result;
use std::sync::Arc;

/// A notification store.
pub trait NotificationStore: Send + Sync {
    /// A short description.
    fn describe(&self) -> String;
}

struct Unconfigured;

impl NotificationStore for Unconfigured {
    fn describe(&self) -> String {
        "none".into()
    }
}

/// Opens the store named by the configuration.
pub fn open(_local: &LocalConf, _conf: &Conf) -> Result<Arc<dyn NotificationStore>> {
    Ok(Arc::new(Unconfigured))
}
