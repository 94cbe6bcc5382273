//! The command line, parsed in two stages: global options (getopts), then the subcommand.
//! `limette [serve] [-c FILE] [-l ADDR:PORT] [-t N] [--data DIR]`, and the administration
//! subcommands `config`, `sessions`, `notifications`, `db`. The command is read whole before
//! anything is opened or written. Bad flags or a bad configuration: one clear line on stderr
//! and exit code 2. Output goes through `out`, which never panics on a closed pipe. The verbs
//! of each subcommand live in `config`, `sessions` and `notifications` below.
pub mod config;
pub mod db;
pub mod notifications;
pub mod out;
mod reloader;
pub mod sessions;
pub mod users_2f;

use crate::app::App;
use crate::config::local::LocalConf;
use crate::log;
use crate::server::Server;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const USAGE: &str = "Usage: limette [serve] [-c FILE] [-l ADDR:PORT] [-t N] [--data DIR]
       limette config [-yes 0|1] [-log TEXT] [-cfgNum N] [-sep CHAR] [-safe 1] [-force 0] VERB
         VERB: check [--json] | info | get KEY... | set KEY VALUE... | addKey KEY SUBKEY VALUE... |
               delKey KEY SUBKEY... | save | restore FILE|- | list | export [N] | import FILE|-
         limette config VERB --help: the usage of one verb
       limette sessions list|get ID|delete ID|purge|offline [USER]|offline-revoke ID
       limette notifications add FILE|-|list [UID]|delete UID REF|purge-done --before DATE
       limette db init
       limette users 2f list USER|remove USER TYPE EPOCH";

/// Parsed global options.
#[derive(Debug, Default)]
pub struct Options {
    /// `-c FILE`
    pub config: Option<PathBuf>,
    /// `-l ADDR:PORT`
    pub listen: Option<String>,
    /// `-t N`
    pub threads: Option<usize>,
    /// `--data DIR`
    pub data: Option<PathBuf>,
    /// `--log TEXT` (config verbs that save)
    pub log: Option<String>,
    /// `--before DATE` (notifications purge-done)
    pub before: Option<String>,
    /// `--json` (config check)
    pub json: bool,
    /// The subcommand and its arguments.
    pub free: Vec<String>,
}

/// Runs the command line; returns the exit code.
pub fn main(args: Vec<String>) -> i32 {
    let mut o = getopts::Options::new();
    o.optopt(
        "c",
        "config",
        "local configuration file (limette.ini)",
        "FILE",
    );
    o.optopt("l", "listen", "listen address", "ADDR:PORT");
    o.optopt("t", "threads", "worker threads", "N");
    o.optopt(
        "",
        "data",
        "data folder of the embedded default (./limette-data)",
        "DIR",
    );
    o.optopt("", "log", "log text of a saved configuration", "TEXT");
    o.optopt(
        "",
        "before",
        "date limit for purge-done (YYYY-MM-DD)",
        "DATE",
    );
    o.optflag("", "json", "config check: findings as JSON");
    o.optflag("h", "help", "print this help");
    o.optflag(
        "V",
        "version",
        "print the version, build target and features",
    );
    // Stage one stops at the subcommand: what follows `config` is `lemonldap-ng-cli`'s syntax
    // (`-yes 1 set KEY VALUE`), read by `cli::config::args`. Other subcommands take the global
    // options anywhere, so their arguments are parsed again with floating options.
    o.parsing_style(getopts::ParsingStyle::StopAtFirstFree);
    let mut parsed = o.parse(&args);
    if !matches!(&parsed, Ok(m) if m.free.first().map(String::as_str) == Some("config")) {
        o.parsing_style(getopts::ParsingStyle::FloatingFrees);
        parsed = o.parse(&args);
    }
    let m = match parsed {
        Ok(m) => m,
        Err(e) => {
            out::err(&format!("limette: {e}\n{USAGE}"));
            return 2;
        }
    };
    if m.opt_present("h") {
        out::line(&o.usage(USAGE));
        return 0;
    }
    if m.opt_present("V") {
        out::text(&version_text());
        return 0;
    }
    let threads = match m.opt_str("t").map(|t| t.parse::<usize>()) {
        Some(Ok(n)) if (1..=1024).contains(&n) => Some(n),
        Some(_) => {
            out::err("limette: --threads: expected a number from 1 to 1024");
            return 2;
        }
        None => None,
    };
    let opts = Options {
        config: m.opt_str("c").map(PathBuf::from),
        listen: m.opt_str("l"),
        threads,
        data: m.opt_str("data").map(PathBuf::from),
        log: m.opt_str("log"),
        before: m.opt_str("before"),
        json: m.opt_present("json"),
        free: m.free.clone(),
    };
    run(opts)
}

/// What the command line asks for, read whole before anything is opened or written: an
/// unknown command or bad arguments leave no data folder and no saved configuration behind.
enum Cmd {
    /// `config ...`: its own syntax, read by `config::args`; it opens only the store.
    Config,
    /// `db init`: creates the PostgreSQL tables the settings name.
    Db,
    /// A command that opens the whole application.
    App(AppCmd),
}

enum AppCmd {
    Serve,
    Sessions(sessions::Cmd),
    Notifications(notifications::Cmd),
    Users2f(users_2f::Cmd),
}

fn command(opts: &Options) -> Result<Cmd, String> {
    let rest = opts.free.get(1..).unwrap_or_default();
    let in_context = |what: &str, e: String| format!("limette {what}: {e}");
    match opts.free.first().map(String::as_str) {
        None | Some("serve") if rest.is_empty() => Ok(Cmd::App(AppCmd::Serve)),
        None | Some("serve") => Err(format!("limette: unexpected argument {}", rest[0])),
        Some("config") => Ok(Cmd::Config),
        Some("db") => db::parse(rest)
            .map(|_| Cmd::Db)
            .map_err(|e| in_context("db", e)),
        Some("sessions") => sessions::parse(rest)
            .map(|c| Cmd::App(AppCmd::Sessions(c)))
            .map_err(|e| in_context("sessions", e)),
        Some("notifications") => notifications::parse(rest, opts)
            .map(|c| Cmd::App(AppCmd::Notifications(c)))
            .map_err(|e| in_context("notifications", e)),
        Some("users") if rest.first().map(String::as_str) == Some("2f") => users_2f::parse(rest)
            .map(|c| Cmd::App(AppCmd::Users2f(c)))
            .map_err(|e| in_context("users", e)),
        Some(other) => Err(format!("limette: unknown command {other}\n{USAGE}")),
    }
}

fn run(opts: Options) -> i32 {
    let cmd = match command(&opts) {
        Ok(c) => c,
        Err(e) => {
            out::err(&e);
            return 2;
        }
    };
    let local = match load_local(&opts) {
        Ok(l) => l,
        Err(e) => {
            out::err(&format!("limette: {e}"));
            return 2;
        }
    };
    if local.test_hooks {
        // The test-suite runs administration commands at the time it moved a server to.
        if let Some(secs) = std::env::var("LIMETTE_TEST_CLOCK_SKEW")
            .ok()
            .and_then(|v| v.parse::<i64>().ok())
        {
            crate::util::advance_clock(secs);
        }
    }
    // The configuration commands need only the store: they work on an empty or broken one.
    let cmd = match cmd {
        Cmd::Config => {
            let rest: Vec<String> = opts.free.iter().skip(1).cloned().collect();
            return config::run(&local, &rest, &opts);
        }
        Cmd::Db => return db::run(&local),
        Cmd::App(c) => c,
    };
    let checks = crate::app::Checks {
        areas: crate::router::area_settings,
        at_start: config::check::at_start,
        ended: crate::oidc::channels::session_ended,
    };
    // The signing keys a relying party needs and the latest configuration lacks are saved as a
    // new number before it is loaded (what the generation says is said once the load succeeds).
    let (opened, lines) = log::collect(|| {
        crate::app::Opening::begin(local).and_then(|opening| {
            let save = || crate::oidc::keygen::save_missing(opening.confs.as_ref());
            let ((), keygen) = log::collect(save);
            App::open(opening, checks, &keygen)
        })
    });
    // The warnings and errors of a configuration that opens (demo accounts, a disabled
    // relying party, ...) concern a running portal: an administration command keeps only
    // what it did (a first configuration saved, keys generated); `config check` lists them.
    let said = |l: &&log::Line| matches!(cmd, AppCmd::Serve) || l.level >= 3;
    let lines: Vec<log::Line> = lines.iter().filter(said).cloned().collect();
    log::replay(&lines);
    let app = match opened {
        Ok(a) => Arc::new(a),
        Err(e) => {
            out::err(&e.to_string());
            return 2;
        }
    };
    match cmd {
        AppCmd::Serve => serve(app),
        AppCmd::Sessions(c) => {
            let code = sessions::run(&app, &c);
            // The sessions it ended told their back-channel relying parties through the queue.
            crate::oidc::channels::flush(FLUSH);
            code
        }
        AppCmd::Notifications(c) => notifications::run(&app, &c),
        AppCmd::Users2f(c) => users_2f::run(&app, &c),
    }
}

/// The local settings: the `-c` file, or the embedded default; then `-l`, `-t`.
pub fn load_local(opts: &Options) -> Result<LocalConf, String> {
    let data = opts
        .data
        .clone()
        .unwrap_or_else(|| PathBuf::from("limette-data"));
    let mut local = match &opts.config {
        Some(path) => LocalConf::from_file(path, &data).map_err(|e| e.to_string())?,
        None => LocalConf::embedded(&data),
    };
    if let Some(l) = &opts.listen {
        local.listen = l.clone();
    }
    if let Some(t) = opts.threads {
        local.threads = t;
    }
    Ok(local)
}

/// The longest a process about to exit waits for its back-channel logout notices.
const FLUSH: std::time::Duration = std::time::Duration::from_secs(3);

fn serve(app: Arc<App>) -> i32 {
    let listen = app.local.listen.clone();
    let server = match Server::start(app.clone(), &listen) {
        Ok(s) => s,
        Err(e) => {
            out::err(&format!("limette: cannot listen on {listen}: {e}"));
            return 2;
        }
    };
    if let Err(e) = app.bound(server.addr) {
        out::err(&format!("limette: {e}"));
        server.shutdown();
        return 2;
    }
    let stop = server.stop_flag();
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        if let Err(e) = signal_hook::flag::register(sig, stop.clone()) {
            out::err(&format!("limette: cannot handle signals: {e}"));
            return 1;
        }
    }
    let reloader = reloader::spawn(&app, stop.clone());
    let janitor = crate::sessions::purge::spawn(app.clone(), stop.clone());
    let conf = app.conf();
    // The demo accounts exist only when the configuration says `Demo`.
    let demo = if conf.area::<crate::directory::Settings>().is_demo() {
        "; log in as dwho/dwho, rtyler/rtyler or msmith/msmith"
    } else {
        ""
    };
    out::line(&format!(
        "limette {} listening on http://{} ({}){demo}",
        env!("CARGO_PKG_VERSION"),
        server.addr,
        portal_note(&conf, &app.listen())
    ));
    if conf.portal_set && !crate::config::defaults::portal_matches(&conf.portal, &app.listen()) {
        log::notice(&format!(
            "the configuration sets portal {0}, which is not the listening address {1}: the portal announces {0} (issuer, links, cookies)",
            conf.portal,
            app.listen()
        ));
    }
    log::notice(&format!(
        "configuration {} from {}",
        conf.num,
        app.confs.describe()
    ));
    server.wait();
    let _ = reloader.join();
    let _ = janitor.join();
    crate::oidc::channels::flush(FLUSH);
    log::notice("stopped");
    0
}

/// What the start-up line says of the portal URL: where it comes from, and whether other
/// machines can reach it.
fn portal_note(conf: &crate::config::Conf, listen: &str) -> String {
    if conf.portal_set {
        return format!("portal {}", conf.portal);
    }
    if crate::config::defaults::listen_unspecified(listen) {
        return format!(
            "portal {}, from the listening address {listen} with loopback for any address; set portal to the URL users reach",
            conf.portal
        );
    }
    format!("portal {}, from the listening address", conf.portal)
}

/// What `limette --version` prints: the version on the first line (`limette X.Y.Z`, as scripts
/// expect), then one `name: value` line each for the build target, the Cargo profile, the
/// enabled Cargo features (`none` when there is none) and the memory allocator.
pub fn version_text() -> String {
    let features: Vec<&str> = env!("LIMETTE_BUILD_FEATURES")
        .split(',')
        .filter(|f| !f.is_empty())
        .collect();
    format!(
        "limette {}\ntarget: {}\nprofile: {}\nfeatures: {}\nallocator: {}\n",
        env!("CARGO_PKG_VERSION"),
        env!("LIMETTE_BUILD_TARGET"),
        env!("LIMETTE_BUILD_PROFILE"),
        if features.is_empty() {
            "none".to_string()
        } else {
            features.join(" ")
        },
        allocator(&features)
    )
}

/// Cargo features that install a `#[global_allocator]`: a build with one of them enabled runs
/// on that allocator rather than the C library's malloc. A new allocator feature adds its name
/// here so that `--version` tells which allocator a binary carries.
const ALLOCATOR_FEATURES: &[&str] = &["mimalloc", "jemalloc", "snmalloc"];

/// The allocator of this build, from its enabled features and its C library.
fn allocator(features: &[&str]) -> String {
    if let Some(f) = features.iter().find(|f| ALLOCATOR_FEATURES.contains(f)) {
        return (*f).to_string();
    }
    // The static build installs mimalloc for its target (`src/main.rs`), feature or not.
    if cfg!(target_env = "musl") {
        return "mimalloc".to_string();
    }
    let libc = if cfg!(target_env = "gnu") {
        " (glibc malloc)"
    } else {
        ""
    };
    format!("system{libc}")
}

/// A flag that is never set, for commands that run once.
pub fn never() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allocator_feature_names_the_allocator() {
        assert_eq!(allocator(&["sqlite", "mimalloc"]), "mimalloc");
        assert!(allocator(&["sqlite"]).starts_with("system"));
        assert!(allocator(&[]).starts_with("system"));
    }

    #[test]
    fn version_text_has_one_line_per_field() {
        let text = version_text();
        let names: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(": ").map(|(n, _)| n))
            .collect();
        assert_eq!(names, ["target", "profile", "features", "allocator"]);
        assert_eq!(
            text.lines().next(),
            Some(format!("limette {}", env!("CARGO_PKG_VERSION")).as_str())
        );
    }
}
