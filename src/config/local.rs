//! Local settings: the INI file (`limette.ini`, LemonLDAP::NG's `lemonldap-ng.ini` layout) or
//! the embedded default, parsed once into typed values. Errors name the file and the key.
use super::ini;
use super::values::secs;
use crate::config::stores::StorageSpec;
pub use crate::error::ConfError;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where numbered configurations live.
#[derive(Debug, Clone)]
pub enum ConfBackend {
    /// A folder of `lmConf-N.json`.
    File { dir: PathBuf },
    /// A SQLite file with an `lmConfig`-like table.
    Sqlite { path: PathBuf, table: String },
    /// LemonLDAP::NG's `CDBI` layout on PostgreSQL: `lmConfig(cfgNum, data)`.
    Pg {
        source: crate::config::stores::PgSource,
        table: String,
    },
    /// A remote `/config` (read-only).
    Rest {
        base_url: String,
        user: Option<String>,
        password: Option<String>,
        timeout: Duration,
    },
}

/// Everything read from the local file.
#[derive(Debug, Clone)]
pub struct LocalConf {
    /// The file this came from (for messages).
    pub source: String,
    /// Data folder for the embedded default and generated files (the `key`).
    pub data_dir: PathBuf,
    /// The configuration backend.
    pub conf_backend: ConfBackend,
    /// Listen address.
    pub listen: String,
    /// Worker threads.
    pub threads: usize,
    /// Queue length before 503.
    pub queue: usize,
    /// Largest body accepted.
    pub max_body: usize,
    /// Idle/silent connection timeout.
    pub idle_timeout: Duration,
    /// Time allowed for a whole body.
    pub body_timeout: Duration,
    /// Requests per keep-alive connection.
    pub max_requests: u32,
    /// Period of the check for a newer configuration.
    pub check_interval: Duration,
    /// Prefix in front of `/sessions` and `/config`.
    pub path_prefix: String,
    /// SSO (and internal) session storage.
    pub global_storage: StorageSpec,
    /// Persistent session storage.
    pub persistent_storage: StorageSpec,
    /// The INI named `globalStorage` / `persistentStorage` (else the main configuration's, if it
    /// has one, is used, as LemonLDAP::NG does).
    pub storage_set: (bool, bool),
    /// Main-configuration keys set in `[portal]`, overriding the stored ones.
    pub overrides: Map<String, Value>,
    /// Log level name.
    pub log_level: String,
    /// Findings on the file itself (unknown keys, overrides that replace a hash), for the log
    /// at start-up and `config check`.
    pub warnings: Vec<String>,
    /// Debug routes for the test-suite (`LIMETTE_TEST_HOOKS=1`).
    pub test_hooks: bool,
    /// The reading stage's limits (header deadline, body rate, per-address caps).
    pub limits: super::server::ServerLimits,
    /// The fetchers' limits (threads, queue, per-client share).
    pub fetch: super::fetch::FetchLimits,
    /// Who may call the REST session, configuration and notification servers.
    pub access: super::access::ServerAccess,
    /// `outboundAllowTo`: blocks a client-chosen URL may reach although the outbound guard
    /// refuses them (loopback, private...); none by default.
    pub outbound_allow_to: Vec<super::values::IpRange>,
}

/// Keys of `[portal]` that are local settings, not main-configuration overrides.
const LOCAL_KEYS: &[&str] = &[
    "listen",
    "threads",
    "queue",
    "maxBodySize",
    "idleTimeout",
    "bodyTimeout",
    "maxRequestsPerConnection",
    "checkInterval",
    "pathPrefix",
    "globalStorage",
    "globalStorageOptions",
    "persistentStorage",
    "persistentStorageOptions",
    "outboundAllowTo",
];

/// Keys of `[configuration]` Limette reads.
const CONFIGURATION_KEYS: &[&str] = &[
    "type",
    "dirName",
    "dbiChain",
    "dbiTable",
    "dbiUser",
    "dbiPassword",
    "baseUrl",
    "User",
    "Password",
    "proxyOptions",
];

/// Keys of LemonLDAP::NG's `lemonldap-ng.ini` that are not main-configuration keys (its
/// components' local settings); Limette reads none of them.
const LLNG_INI_KEYS: &[&str] = &[
    "checkTime",
    "prettyPrint",
    "localStorage",
    "localStorageOptions",
    "templateDir",
    "languages",
    "staticPrefix",
    "status",
    "useRedirectOnError",
    "protection",
    "docPrefix",
    "enabledModules",
    "logger",
    "userLogger",
    "configStorage",
];

impl LocalConf {
    /// The embedded default: everything under `data_dir`.
    pub fn embedded(data_dir: &Path) -> LocalConf {
        let dir = |s: &str| data_dir.join(s).display().to_string();
        let file_spec = |d: String| StorageSpec {
            kind: "File".into(),
            options: [("Directory".to_string(), Value::from(d))]
                .into_iter()
                .collect(),
        };
        LocalConf {
            source: "embedded default".into(),
            data_dir: data_dir.to_path_buf(),
            conf_backend: ConfBackend::File {
                dir: data_dir.join("conf"),
            },
            listen: "127.0.0.1:8080".into(),
            threads: default_threads(),
            queue: 256,
            max_body: 8 << 20,
            idle_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(10),
            max_requests: 100,
            check_interval: Duration::from_secs(1),
            path_prefix: String::new(),
            global_storage: file_spec(dir("sessions")),
            persistent_storage: file_spec(dir("psessions")),
            storage_set: (false, false),
            overrides: Map::new(),
            log_level: "notice".into(),
            warnings: Vec::new(),
            test_hooks: std::env::var("LIMETTE_TEST_HOOKS")
                .map(|v| v == "1")
                .unwrap_or(false),
            limits: super::server::ServerLimits::default(),
            fetch: super::fetch::FetchLimits::default(),
            access: super::access::ServerAccess::default(),
            outbound_allow_to: Vec::new(),
        }
    }

    /// Reads an INI file; relative paths in it are taken as they are (from the working folder).
    pub fn from_file(path: &Path, data_dir: &Path) -> Result<LocalConf, ConfError> {
        let file = path.display().to_string();
        let err = |key: &str, msg: String| ConfError {
            file: file.clone(),
            key: key.into(),
            msg,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| err("", format!("cannot read: {e}")))?;
        let ini = ini::parse(&text).map_err(|e| err("", e))?;
        let mut lc = LocalConf::embedded(data_dir);
        lc.source = file.clone();
        let section = |name: &str| ini.get(name).cloned().unwrap_or_default();
        for (k, v) in section("all") {
            if k == "logLevel" {
                if !crate::log::set_level(&v) {
                    return Err(err("logLevel", format!("unknown level {v}")));
                }
                lc.log_level = v;
            } else {
                lc.note_unread("all", &k, &["logLevel"]);
            }
        }
        let conf_section = section("configuration");
        lc.conf_backend = conf_backend(&conf_section, &err)?;
        for (k, _) in &conf_section {
            if !CONFIGURATION_KEYS.contains(&k.as_str()) {
                lc.note_unread("configuration", k, CONFIGURATION_KEYS);
            }
        }
        for (k, v) in section("portal") {
            lc.apply_portal_key(&k, &v).map_err(|m| {
                let line = ini::line_of(&text, "portal", &k).unwrap_or(0);
                err(&k, format!("line {line}: {m}"))
            })?;
        }
        lc.access.finish().map_err(|(k, m)| err(k, m))?;
        lc.warnings.extend(lc.access.warnings());
        Ok(lc)
    }

    /// Records a key of the INI that Limette does not read: ignored when LemonLDAP::NG knows
    /// it, unknown (with the closest known key) otherwise.
    fn note_unread(&mut self, section: &str, key: &str, ours: &[&str]) {
        let llng = super::support::support(key).is_some() || LLNG_INI_KEYS.contains(&key);
        let msg = if llng {
            format!("[{section}] {key} is ignored by Limette")
        } else {
            let known = ours
                .iter()
                .copied()
                .chain(LOCAL_KEYS.iter().copied().filter(|_| section == "portal"))
                .chain(
                    super::server::KEYS
                        .iter()
                        .chain(super::access::KEYS)
                        .chain(super::fetch::KEYS)
                        .copied()
                        .filter(|_| section == "portal"),
                )
                .chain(super::support::llng_keys().keys());
            let hint = super::support::closest(key, known)
                .map(|k| format!(" (did you mean {k}?)"))
                .unwrap_or_default();
            format!("[{section}] {key} is not a known key{hint}")
        };
        self.warnings.push(msg);
    }

    fn apply_portal_key(&mut self, k: &str, v: &str) -> Result<(), String> {
        let num = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("expected a number, got {v}"))
        };
        match k {
            "listen" => self.listen = v.to_string(),
            "threads" => self.threads = num(v)?.clamp(1, 1024) as usize,
            "queue" => self.queue = num(v)?.clamp(1, 1 << 20) as usize,
            "maxBodySize" => self.max_body = num(v)? as usize,
            "idleTimeout" => self.idle_timeout = secs(v)?,
            "bodyTimeout" => self.body_timeout = secs(v)?,
            "maxRequestsPerConnection" => self.max_requests = num(v)?.max(1) as u32,
            "checkInterval" => self.check_interval = secs(v)?,
            "pathPrefix" => self.path_prefix = v.trim_end_matches('/').to_string(),
            "globalStorage" => {
                self.global_storage.kind = v.to_string();
                self.storage_set.0 = true;
            }
            "persistentStorage" => {
                self.persistent_storage.kind = v.to_string();
                self.storage_set.1 = true;
            }
            "globalStorageOptions" => {
                self.global_storage.options = json_object(v)?;
                self.storage_set.0 = true;
            }
            "persistentStorageOptions" => {
                self.persistent_storage.options = json_object(v)?;
                self.storage_set.1 = true;
            }
            "outboundAllowTo" => self.outbound_allow_to = super::values::parse_ranges(v)?,
            other if super::server::KEYS.contains(&other) => self.limits.apply(other, v)?,
            other if super::access::KEYS.contains(&other) => self.access.apply(other, v)?,
            other if super::fetch::KEYS.contains(&other) => self.fetch.apply(other, v)?,
            other if super::support::is_known_key(other) => {
                debug_assert!(!LOCAL_KEYS.contains(&other));
                self.overrides.insert(other.to_string(), override_value(v)?);
            }
            other => self.note_unread("portal", other, LOCAL_KEYS),
        }
        Ok(())
    }

    /// Refusals of the session stores this INI (with what it took from the main configuration)
    /// names: `(key, line)` (`gate::session_storage`).
    pub fn store_refusals(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        for (key, spec) in [
            ("globalStorage", &self.global_storage),
            ("persistentStorage", &self.persistent_storage),
        ] {
            let opts = Value::Object(spec.options.clone());
            if let Err(e) = super::gate::session_storage(key, &spec.kind, Some(&opts)) {
                out.push((key, e));
            }
        }
        out
    }

    /// Takes the main configuration's `globalStorage` / `persistentStorage` (with their
    /// options) where the INI names none, as LemonLDAP::NG reads them from there.
    pub fn adopt_conf_storage(&mut self, stored: &Map<String, Value>) {
        let from_conf = |key: &str| {
            let kind = stored.get(key).map(super::value_string)?;
            let options = match stored.get(&format!("{key}Options")) {
                Some(Value::Object(m)) => m.clone(),
                _ => Map::new(),
            };
            Some(StorageSpec { kind, options })
        };
        if !self.storage_set.0 {
            if let Some(spec) = from_conf("globalStorage") {
                self.global_storage = spec;
            }
        }
        if !self.storage_set.1 {
            if let Some(spec) = from_conf("persistentStorage") {
                self.persistent_storage = spec;
            }
        }
    }
}

fn conf_backend(
    sec: &[(String, String)],
    err: &dyn Fn(&str, String) -> ConfError,
) -> Result<ConfBackend, ConfError> {
    let get = |k: &str| sec.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let ty = get("type").ok_or_else(|| err("type", "missing in [configuration]".into()))?;
    match ty.as_str() {
        "File" => {
            let dir =
                get("dirName").ok_or_else(|| err("dirName", "required for type File".into()))?;
            Ok(ConfBackend::File { dir: dir.into() })
        }
        "SQLite" | "CDBI" | "RDBI" => {
            let chain = get("dbiChain")
                .ok_or_else(|| err("dbiChain", format!("required for type {ty}")))?;
            let table = get("dbiTable").unwrap_or_else(|| "lmConfig".into());
            if crate::config::stores::is_dbi_pg(&chain) && ty != "SQLite" {
                return pg_conf(&ty, &chain, table, &get, err);
            }
            let path =
                crate::config::stores::dbi_sqlite_path(&chain).map_err(|e| err("dbiChain", e))?;
            Ok(ConfBackend::Sqlite {
                path: path.into(),
                table,
            })
        }
        "REST" => {
            let base_url =
                get("baseUrl").ok_or_else(|| err("baseUrl", "required for type REST".into()))?;
            if !base_url.starts_with("http://") && !base_url.starts_with("https://") {
                return Err(err("baseUrl", format!("not an http URL: {base_url}")));
            }
            super::gate::plain_http("baseUrl", &base_url).map_err(|e| err("baseUrl", e))?;
            let timeout = match get("proxyOptions") {
                Some(v) => {
                    let o = json_object(&v).map_err(|m| err("proxyOptions", m))?;
                    o.get("timeout").and_then(Value::as_f64).unwrap_or(10.0)
                }
                None => 10.0,
            };
            Ok(ConfBackend::Rest {
                base_url: base_url.trim_end_matches('/').to_string(),
                user: get("User"),
                password: get("Password"),
                timeout: Duration::from_secs_f64(timeout.clamp(0.1, 600.0)),
            })
        }
        other => Err(err(
            "type",
            format!(
                "{other} is not supported (supported: {})",
                crate::config::gate::CONF_TYPES.join(", ")
            ),
        )),
    }
}

/// `[configuration]` on PostgreSQL: LemonLDAP::NG's `CDBI` layout, one JSON document a row.
/// `RDBI` (one row a key, whose values LemonLDAP::NG decodes by knowing each key's type) is
/// refused rather than read as something else.
fn pg_conf(
    ty: &str,
    chain: &str,
    table: String,
    get: &dyn Fn(&str) -> Option<String>,
    err: &dyn Fn(&str, String) -> ConfError,
) -> Result<ConfBackend, ConfError> {
    if ty == "RDBI" {
        return Err(err(
            "type",
            "RDBI is not supported on PostgreSQL (one row a key; use CDBI, one JSON document \
             a configuration: `lemonldap-ng-cli` can copy a configuration from one to the other)"
                .into(),
        ));
    }
    if !crate::util::is_sql_name(&table) {
        return Err(err(
            "dbiTable",
            format!("{table}: letters, digits and _ only"),
        ));
    }
    let source = crate::config::stores::dbi_pg_source(
        chain,
        get("dbiUser").as_deref(),
        get("dbiPassword").as_deref(),
    )
    .map_err(|e| err("dbiChain", e))?;
    Ok(ConfBackend::Pg { source, table })
}

/// An override's value: JSON when it parses, text otherwise; text that looks like JSON (an
/// object or a list) and does not parse is refused rather than kept as a string.
fn override_value(v: &str) -> Result<Value, String> {
    match serde_json::from_str(v) {
        Ok(value) => Ok(value),
        Err(e) if v.trim_start().starts_with(['{', '[']) => {
            Err(format!("value looks like JSON and does not parse: {e}"))
        }
        Err(_) => Ok(Value::from(v)),
    }
}

fn json_object(v: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str(v) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("expected a JSON object".into()),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get() * 4)
        .unwrap_or(8)
        .clamp(4, 64)
}
