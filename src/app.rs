//! The application state every handler reads: local settings, the configuration in force
//! (swapped when a newer one is saved) and the stores. It also seeds an empty local store at
//! first start, and keeps what the node brings to every configuration it loads: the
//! listening address (the portal URL when the configuration sets none) and its own key.
use crate::config::local::LocalConf;
use crate::config::{self, Conf};
use crate::error::{ConfError, Error, Result, StartError};
use crate::log;
use crate::storage::{self, ConfStore, Kind, Session, SessionStore};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Shared state of a running portal.
pub struct App {
    /// Local settings.
    pub local: LocalConf,
    /// The configuration store.
    pub confs: Arc<dyn ConfStore>,
    conf: RwLock<Arc<Conf>>,
    global: Arc<dyn SessionStore>,
    persistent: Arc<dyn SessionStore>,
    /// Notification storage.
    pub notifications: Arc<dyn storage::notifications::NotificationStore>,
    data_key: String,
    /// The address the default portal URL follows: `listen`, then the bound one (port 0).
    listen: RwLock<String>,
    /// The `__secret` key the REST session stores were opened with.
    store_key: String,
    /// The areas' settings parsers (the top's list), run on every configuration loaded.
    areas: config::CheckAreas,
    /// Tells the relying parties a session ended (the top's hook).
    ended: SessionEnded,
}

/// Who can still be told, where a session ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The user's browser shows the page that ends it: front-channel iframes can load there.
    Browser,
    /// No browser (an administrator, the REST server, the expiry purge): server to server only.
    ServerOnly,
}

/// The hook run once for every SSO session that ended, with the record as it was: it tells
/// the relying parties the session used (`oidc::channels::session_ended`) and returns the
/// front-channel logout URLs the page must load in iframes (none without a browser).
pub type SessionEnded = fn(&App, &Conf, &Session, Reach) -> Vec<String>;

/// What the top gives `App::open`: the checks that know the areas.
#[derive(Clone, Copy)]
pub struct Checks {
    /// Parses every area's settings (`router::area_settings`): on every configuration loaded.
    pub areas: config::CheckAreas,
    /// The start-up findings (`cli::config::check::at_start`): the lines that refuse the start;
    /// it logs the warnings itself.
    pub at_start: fn(&LocalConf, &Conf) -> Result<(), Vec<String>>,
    /// Runs when an SSO session ends, however it ends (`oidc::channels::session_ended`).
    pub ended: SessionEnded,
}

/// A node half opened: its data folder checked, its own key read and its configuration store
/// opened (seeded when empty), before any configuration is loaded. The top completes the
/// latest stored configuration here (the OpenID Connect signing keys a relying party needs,
/// `oidc::keygen::save_missing`), then `App::open` loads it.
pub struct Opening {
    local: LocalConf,
    data_key: String,
    /// The configuration store.
    pub confs: Arc<dyn ConfStore>,
}

impl Opening {
    /// Checks the data folder, reads this node's key, opens and seeds the configuration store.
    pub fn begin(local: LocalConf) -> Result<Opening, StartError> {
        crate::metrics::mark_start();
        crate::upstream::allow_to(&local.outbound_allow_to);
        let src = local.source.clone();
        let err = |key: &str, e: Error| ConfError {
            file: src.clone(),
            key: key.into(),
            msg: e.to_string(),
        };
        if let Err(msg) = crate::storage::file::check_private_dir(&local.data_dir) {
            let key = "data".into();
            return Err(ConfError {
                file: src,
                key,
                msg,
            }
            .into());
        }
        if let Err(e) = crate::storage::file::ensure_dir(&local.data_dir) {
            return Err(err("data", e).into());
        }
        let data_key = data_key(&local).map_err(|e| err("key", e))?;
        let confs = storage::open::open_conf(&local).map_err(|e| err("configuration", e))?;
        seed(&local, confs.as_ref()).map_err(|e| err("configuration", e))?;
        Ok(Opening {
            local,
            data_key,
            confs,
        })
    }
}

impl App {
    /// Loads the latest configuration and opens the stores. A configuration that names what
    /// Limette does not implement is refused whole (`StartError::Refused`), before any store
    /// of it is opened. `prepared` is what the top logged while it completed the configuration
    /// (`Opening`): a stored configuration too broken to load fails that first, and the load
    /// error names the real problem, so those lines are said only when the load succeeds.
    pub fn open(
        opening: Opening,
        checks: Checks,
        prepared: &[log::Line],
    ) -> Result<App, StartError> {
        let Opening {
            mut local,
            data_key,
            confs,
        } = opening;
        let areas = checks.areas;
        let src = local.source.clone();
        let err = |key: &str, e: Error| ConfError {
            file: src.clone(),
            key: key.into(),
            msg: e.to_string(),
        };
        let node = config::Node {
            listen: &local.listen,
            data_key: &data_key,
        };
        let conf = load_latest(confs.as_ref(), &local, &node, areas).map_err(|msg| ConfError {
            file: src.clone(),
            key: "configuration".into(),
            msg,
        })?;
        log::replay(prepared);
        local.adopt_conf_storage(&conf.stored);
        (checks.at_start)(&local, &conf).map_err(StartError::Refused)?;
        warn_if_keyless(&conf);
        let store_key = conf.crypto_key.clone();
        let storage::open::Stores {
            global,
            persistent,
            notifications,
        } = storage::open::open_stores(&local, &conf.raw, &store_key)
            .map_err(|(k, e)| err(k, e))?;
        Ok(App {
            listen: RwLock::new(local.listen.clone()),
            store_key,
            local,
            confs,
            conf: RwLock::new(Arc::new(conf)),
            global,
            persistent,
            notifications,
            data_key,
            areas,
            ended: checks.ended,
        })
    }

    /// The configuration in force.
    pub fn conf(&self) -> Arc<Conf> {
        match self.conf.read() {
            Ok(c) => c.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// Runs the session-end hook for a session that just ended (`Checks::ended`); returns the
    /// front-channel logout URLs to load in iframes.
    pub fn session_ended(&self, s: &Session, reach: Reach) -> Vec<String> {
        (self.ended)(self, &self.conf(), s, reach)
    }

    /// The store of a session kind: persistent sessions have their own.
    pub fn sessions(&self, kind: Kind) -> &dyn SessionStore {
        match kind {
            Kind::Persistent => self.persistent.as_ref(),
            _ => self.global.as_ref(),
        }
    }

    /// The areas' settings parsers this node checks every configuration with (what a writer
    /// passes to `storage::save::check`, so that it refuses what a reload would).
    pub fn areas(&self) -> config::CheckAreas {
        self.areas
    }

    /// Whether the store holds a configuration newer than the one in force.
    pub fn newer_waiting(&self) -> Result<bool> {
        Ok(self.confs.latest()?.unwrap_or(0) > self.conf().num)
    }

    /// Loads the latest configuration if it is newer than the one in force. A broken one is
    /// logged and the old one stays. (`oidc::keygen::reload` completes it first.)
    pub fn reload_if_newer(&self) -> Result<bool> {
        let latest = self.confs.latest()?.unwrap_or(0);
        let current = self.conf().num;
        if latest <= current {
            return Ok(false);
        }
        let listen = self.listen();
        let node = config::Node {
            listen: &listen,
            data_key: &self.data_key,
        };
        let loaded = load_num(self.confs.as_ref(), latest, &self.local, &node, self.areas)
            .and_then(|conf| match config::gate::refusals(&conf.raw).as_slice() {
                [] => self.same_stores(&conf).map(|()| conf),
                refused => Err(refused.join("; ")),
            })
            .and_then(|conf| {
                let dbi = conf.area::<crate::directory::dbi::Settings>();
                match crate::directory::dbi::refusals(&dbi).as_slice() {
                    [] => Ok(conf),
                    refused => Err(refused.join("; ")),
                }
            })
            .and_then(|conf| self.same_store_key(conf));
        match loaded {
            Ok(conf) => {
                warn_if_keyless(&conf);
                audit_save(&conf);
                crate::metrics::config_reloaded();
                log::notice(&format!("configuration {latest} is now in force"));
                if let Ok(mut w) = self.conf.write() {
                    *w = Arc::new(conf);
                }
                Ok(true)
            }
            Err(e) => {
                log::error(&format!(
                    "configuration {latest} rejected, {current} stays in force: {e}"
                ));
                Ok(false)
            }
        }
    }

    /// The session stores are opened once: a configuration that names other ones needs a
    /// restart, and is not put in force meanwhile.
    fn same_stores(&self, conf: &Conf) -> Result<(), String> {
        let mut wanted = self.local.clone();
        wanted.adopt_conf_storage(&conf.stored);
        for (key, now, next) in [
            (
                "globalStorage",
                &self.local.global_storage,
                &wanted.global_storage,
            ),
            (
                "persistentStorage",
                &self.local.persistent_storage,
                &wanted.persistent_storage,
            ),
        ] {
            if now.kind != next.kind || now.options != next.options {
                return Err(format!(
                    "{key} changed: restart Limette to use the new store"
                ));
            }
        }
        Ok(())
    }

    /// Tells the application the address actually bound. With port 0 the portal URL of a
    /// configuration that sets none is only known now: the one in force is rebuilt with it
    /// (before the listening line is printed, so before anybody can know the port).
    pub fn bound(&self, addr: std::net::SocketAddr) -> Result<()> {
        if !config::defaults::listen_port_zero(&self.local.listen) {
            return Ok(());
        }
        match self.listen.write() {
            Ok(mut l) => *l = addr.to_string(),
            Err(_) => return Err(Error::internal("listen lock poisoned")),
        }
        let current = self.conf();
        if current.portal_set {
            return Ok(());
        }
        let listen = self.listen();
        let node = config::Node {
            listen: &listen,
            data_key: &self.data_key,
        };
        let conf = Conf::build_on(
            current.stored.clone(),
            &self.local.overrides,
            &node,
            self.areas,
        )
        .map_err(Error::internal)?;
        match self.conf.write() {
            Ok(mut w) => *w = Arc::new(conf),
            Err(_) => return Err(Error::internal("configuration lock poisoned")),
        }
        Ok(())
    }

    /// The address the default portal URL follows.
    pub fn listen(&self) -> String {
        match self.listen.read() {
            Ok(l) => l.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// A REST session store keeps the `__secret` key it was opened with: a configuration
    /// with another one cannot be honoured without a restart, so it is refused.
    fn same_store_key(&self, conf: Conf) -> Result<Conf, String> {
        let rest = [&self.local.global_storage, &self.local.persistent_storage]
            .iter()
            .any(|s| storage::normalize_kind(&s.kind) == "rest");
        if rest && conf.crypto_key != self.store_key {
            return Err(
                "key: differs from the one the REST session storage uses; restart to apply it"
                    .into(),
            );
        }
        Ok(conf)
    }
}

/// Rounds of the reloader done since start. Only the test hook `/__test/reloads` reads it, so
/// that a test waits for rounds of the reloader instead of guessing how long they take.
static RELOAD_ROUNDS: AtomicU64 = AtomicU64::new(0);

/// One more round of the reloader done.
pub fn count_reload_round() {
    RELOAD_ROUNDS.fetch_add(1, Ordering::SeqCst);
}

/// How many rounds the reloader has done (see `RELOAD_ROUNDS`).
pub fn reload_rounds() -> u64 {
    RELOAD_ROUNDS.load(Ordering::SeqCst)
}

/// Writes configuration 1 into an empty local store (File or SQLite; a REST store is never
/// written): the first start runs the embedded default instead of refusing.
fn seed(local: &LocalConf, store: &dyn ConfStore) -> Result<()> {
    use config::local::ConfBackend;
    if !matches!(
        local.conf_backend,
        ConfBackend::File { .. } | ConfBackend::Sqlite { .. } | ConfBackend::Pg { .. }
    ) {
        return Ok(());
    }
    if storage::save::seed_if_empty(store)? {
        log::notice(&format!(
            "first start: the embedded default configuration, with a random key, saved as number 1 in {}",
            store.describe()
        ));
    }
    Ok(())
}

/// Says what a configuration without `key` means, each time one is loaded.
fn warn_if_keyless(conf: &Conf) {
    if !conf.key_set {
        log::warn(&format!(
            "configuration {} has no key: as in LemonLDAP::NG, the REST session secret (__secret) is keyed with the empty string, which anybody can forge, and form tokens use this node's own key, so other nodes refuse them; set a random key",
            conf.num
        ));
    }
}

fn load_latest(
    store: &dyn ConfStore,
    local: &LocalConf,
    node: &config::Node,
    areas: config::CheckAreas,
) -> Result<Conf, String> {
    let latest = store
        .latest()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no configuration found in {}", store.describe()))?;
    load_num(store, latest, local, node, areas)
}

fn load_num(
    store: &dyn ConfStore,
    num: u64,
    local: &LocalConf,
    node: &config::Node,
    areas: config::CheckAreas,
) -> Result<Conf, String> {
    let stored = store.load(num).map_err(|e| e.to_string())?;
    Conf::build_on(stored, &local.overrides, node, areas).map_err(|e| format!("lmConf-{num}: {e}"))
}

/// This node's own key, for the tokens it issues when the configuration sets no `key` (never
/// for anything another node must verify): generated once, kept in the data folder.
fn data_key(local: &LocalConf) -> Result<String> {
    let path = local.data_dir.join("key");
    if let Some(bytes) = crate::storage::file::read_opt(&path)? {
        let k = String::from_utf8_lossy(&bytes).trim().to_string();
        if !k.is_empty() {
            return Ok(k);
        }
    }
    let k = crate::util::random_hex(32);
    crate::storage::file::create_atomic(
        &path,
        k.as_bytes(),
        crate::storage::file::Durability::Synced,
    )?;
    // Another process may have won the race: read back what is there.
    let bytes = crate::storage::file::read_opt(&path)?.unwrap_or_default();
    Ok(String::from_utf8_lossy(&bytes).trim().to_string())
}

/// The audit line of a configuration save, written by the server that takes it up (whoever
/// saved it: the command line, another node, LemonLDAP::NG's manager on a shared store), from
/// the metadata the save stamped. The command line keeps its own output as LemonLDAP::NG's.
fn audit_save(conf: &Conf) {
    let meta = |k: &str| match conf.raw.get(k) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) if !v.is_null() => v.to_string(),
        _ => String::new(),
    };
    log::audit(
        "config_save",
        &[
            ("num", &conf.num.to_string()),
            ("author", &meta("cfgAuthor")),
            ("address", &meta("cfgAuthorIP")),
            ("log", &meta("cfgLog")),
        ],
    );
}
