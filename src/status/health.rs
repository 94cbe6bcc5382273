//! Whether the node can serve, for load balancers: a configuration is in force and the
//! session stores answer. Each store is asked as a login would ask it: the SSO session store
//! reads (a REST-backed store calls its server), and the store of logins in progress takes a
//! write and its removal (a File store whose folder went away, a full or read-only disk). The
//! configuration store is not asked: the node serves with the configuration it holds while
//! that store is away. A failure's detail goes to the log (once, when the state changes); the
//! answer names the check only.
use crate::app::App;
use crate::config::Conf;
use crate::storage::Kind;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};

/// One check and its outcome (`Err`: the detail, for the log).
#[derive(Debug, Clone)]
pub struct Check {
    /// Its name in the answer.
    pub name: &'static str,
    /// Its outcome.
    pub outcome: Result<(), String>,
}

impl Check {
    /// Whether it passed.
    pub fn ok(&self) -> bool {
        self.outcome.is_ok()
    }
}

/// The checks of one health request.
#[derive(Debug, Clone)]
pub struct Health {
    /// The number of the configuration in force.
    pub config: u64,
    /// Every check, in order.
    pub checks: Vec<Check>,
}

/// Whether the last health answered was a failure: state changes are logged once.
static WAS_DOWN: AtomicBool = AtomicBool::new(false);

/// Runs the checks.
pub fn check(app: &App, conf: &Conf) -> Health {
    let probe = format!("health-probe-{}", crate::util::random_hex(8));
    let config = Check {
        name: "configuration",
        outcome: (conf.num > 0)
            .then_some(())
            .ok_or_else(|| "no configuration in force".to_string()),
    };
    let read = |kind: Kind| {
        app.sessions(kind)
            .get(kind, &probe)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let write = || {
        let store = app.sessions(Kind::Pending);
        let mut data = Map::new();
        data.insert("_utime".into(), json!(crate::util::now()));
        store
            .put(Kind::Pending, &probe, &data)
            .and_then(|()| store.delete(Kind::Pending, &probe).map(|_| ()))
            .map_err(|e| e.to_string())
    };
    let h = Health {
        config: conf.num,
        checks: vec![
            config,
            Check {
                name: "globalStorage",
                outcome: read(Kind::Global),
            },
            Check {
                name: "persistentStorage",
                outcome: read(Kind::Persistent),
            },
            Check {
                name: "pendingStorage",
                outcome: write(),
            },
        ],
    };
    log_change(&h);
    h
}

impl Health {
    /// Whether every check passed.
    pub fn ok(&self) -> bool {
        self.checks.iter().all(Check::ok)
    }

    /// The answer: `{"status":"ok"|"unavailable","configuration":N,"checks":{name:"ok"|
    /// "failed"}}`, and `reason` naming the first failed check.
    pub fn to_json(&self) -> Value {
        let checks: Map<String, Value> = self
            .checks
            .iter()
            .map(|c| {
                (
                    c.name.to_string(),
                    json!(if c.ok() { "ok" } else { "failed" }),
                )
            })
            .collect();
        let mut out = json!({
            "status": if self.ok() { "ok" } else { "unavailable" },
            "configuration": self.config,
            "checks": checks,
        });
        if let (Some(failed), Some(o)) = (self.checks.iter().find(|c| !c.ok()), out.as_object_mut())
        {
            o.insert(
                "reason".into(),
                json!(format!("{} unreachable", failed.name)),
            );
        }
        out
    }
}

/// Logs the failures when the node turns unhealthy, and its return.
fn log_change(h: &Health) {
    let down = !h.ok();
    if WAS_DOWN.swap(down, Ordering::Relaxed) == down {
        return;
    }
    if down {
        for c in &h.checks {
            if let Err(e) = &c.outcome {
                crate::log::error(&format!("health: {} failed: {e}", c.name));
            }
        }
    } else {
        crate::log::notice("health: every check passes again");
    }
}
