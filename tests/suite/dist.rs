//! The shipped artifact: `limette --version`, the systemd unit and the release bundle. The
//! bundle script (`conf/dist.sh`, which `make dist` runs on the static build) is run here on the
//! binary under test into a temp folder: the archive must hold the expected files, pass
//! `sha256sum -c` and carry the hardened unit. The unit's own command line is started as
//! systemd would start it, in an empty state directory, to show what a first start does.
use crate::common;

use common::{bin, Client, TempDir};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A file of the repository.
fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `limette --version`, as `name: value` pairs after the first line.
fn version_fields() -> (String, BTreeMap<String, String>) {
    let out = run(Command::new(bin()).arg("--version"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = text(&out.stdout);
    let mut lines = out.lines();
    let first = lines.next().unwrap_or_default().to_string();
    let fields = lines
        .map(|l| {
            let (k, v) = l.split_once(": ").unwrap_or_else(|| panic!("line {l:?}"));
            (k.to_string(), v.to_string())
        })
        .collect();
    (first, fields)
}

#[test]
fn version_names_the_target_profile_features_and_allocator() {
    let (first, fields) = version_fields();
    assert_eq!(first, format!("limette {VERSION}"));
    let names: Vec<&str> = fields.keys().map(String::as_str).collect();
    assert_eq!(names, ["allocator", "features", "profile", "target"]);
    let target = &fields["target"];
    assert!(
        target.starts_with(std::env::consts::ARCH) && target.contains(std::env::consts::OS),
        "target {target}"
    );
    assert!(["debug", "release"].contains(&fields["profile"].as_str()));
    assert!(!fields["features"].is_empty());
    assert!(fields["allocator"].starts_with("system") || fields["features"] != "none");
    let long = run(Command::new(bin()).arg("--version")).stdout;
    let short = run(Command::new(bin()).arg("-V"));
    assert!(short.status.success());
    assert_eq!(text(&short.stdout), text(&long));
}

#[test]
fn the_man_page_names_every_option_of_the_help() {
    let help = text(&run(Command::new(bin()).arg("--help")).stdout);
    let man = std::fs::read_to_string(repo("conf/limette.1")).unwrap();
    let options: Vec<&str> = help
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("--"))
        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    assert!(options.contains(&"version") && options.contains(&"data"));
    for o in options {
        assert!(
            man.contains(&format!("\\-\\-{}", o.replace('-', "\\-"))),
            "limette.1 lacks --{o}"
        );
    }
}

/// The keys of a systemd unit file, by `Section/Key`, each with its values in order.
fn unit_keys(unit: &str) -> BTreeMap<String, Vec<String>> {
    let mut keys: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut section = String::new();
    for line in unit.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_string();
        } else if let Some((k, v)) = line.split_once('=') {
            let key = format!("{section}/{}", k.trim());
            keys.entry(key).or_default().push(v.trim().to_string());
        } else {
            panic!("not a unit line: {line:?}");
        }
    }
    keys
}

/// What a unit lacks of the hardening the bundle promises; empty when it has it all.
fn hardening_gaps(unit: &str) -> Vec<String> {
    let keys = unit_keys(unit);
    let last = |k: &str| keys.get(k).and_then(|v| v.last()).map(String::as_str);
    let mut gaps = Vec::new();
    for (key, want) in [
        ("Service/StateDirectory", "limette"),
        ("Service/WorkingDirectory", "/var/lib/limette"),
        ("Service/ProtectSystem", "strict"),
        ("Service/ProtectHome", "yes"),
        ("Service/PrivateTmp", "yes"),
        ("Service/NoNewPrivileges", "yes"),
        ("Install/WantedBy", "multi-user.target"),
    ] {
        if last(key) != Some(want) {
            gaps.push(format!("{key}={want} (found {:?})", last(key)));
        }
    }
    // Its own user: a dynamic one, or a named one other than root.
    let own_user = last("Service/DynamicUser") == Some("yes")
        || last("Service/User").is_some_and(|u| u != "root" && u != "0");
    if !own_user {
        gaps.push("DynamicUser=yes or User=limette".into());
    }
    if !matches!(
        last("Service/Restart"),
        Some("on-failure" | "always" | "on-abnormal")
    ) {
        gaps.push(format!(
            "a restart policy (found {:?})",
            last("Service/Restart")
        ));
    }
    let exec = last("Service/ExecStart").unwrap_or_default();
    if !exec.starts_with("/usr/local/bin/limette ") || !exec.contains(" -c /etc/limette/") {
        gaps.push(format!(
            "ExecStart=/usr/local/bin/limette ... -c /etc/limette/... ({exec:?})"
        ));
    }
    gaps
}

#[test]
fn the_unit_is_hardened() {
    let unit = std::fs::read_to_string(repo("conf/limette.service")).unwrap();
    assert_eq!(hardening_gaps(&unit), Vec::<String>::new());
    // The check sees a weakened unit: a later key overrides an earlier one, as in systemd.
    let weak = unit.replace("ProtectSystem=strict", "ProtectSystem=full")
        + "\n[Service]\nNoNewPrivileges=no\nRestart=no\n";
    let gaps = hardening_gaps(&weak);
    assert_eq!(gaps.len(), 3, "{gaps:?}");
    assert!(
        gaps[0].starts_with("Service/ProtectSystem=strict"),
        "{gaps:?}"
    );
}

/// Runs the bundle script on `binary` into `out`.
fn dist(binary: &Path, out: &Path) -> Output {
    run(Command::new("bash")
        .arg(repo("conf/dist.sh"))
        .arg(binary)
        .arg(out))
}

/// The files of the bundle, below its top folder.
const BUNDLE: [&str; 8] = [
    "README",
    "SHA256SUMS",
    "conf/limette.ini",
    "conf/lmConf-1.json",
    "conf/nginx-tls.conf",
    "limette",
    "limette.1",
    "limette.service",
];

/// The bundle files that are copies of repository files, with their source.
const COPIES: [(&str, &str); 6] = [
    ("limette.service", "conf/limette.service"),
    ("limette.1", "conf/limette.1"),
    ("README", "conf/bundle-README"),
    ("conf/limette.ini", "conf/limette.ini"),
    ("conf/lmConf-1.json", "conf/lmConf-1.json"),
    ("conf/nginx-tls.conf", "conf/nginx-tls.conf"),
];

#[test]
fn the_bundle_holds_binary_conf_unit_man_page_and_checksums() {
    let tmp = TempDir::new("dist");
    let out = dist(Path::new(bin()), &tmp.path().join("out"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (_, fields) = version_fields();
    let target = fields["target"].replace("-unknown-", "-");
    let name = format!("limette-{VERSION}-{target}");
    let archive = tmp.path().join("out").join(format!("{name}.tar.gz"));
    assert_eq!(text(&out.stdout).trim(), archive.display().to_string());

    let mut want: Vec<String> = BUNDLE.iter().map(|f| format!("{name}/{f}")).collect();
    want.extend([format!("{name}/"), format!("{name}/conf/")]);
    want.sort();
    assert_eq!(tar_listing(&archive), want);

    let dir = extract(&archive, &tmp.path().join("x")).join(&name);
    let others: Vec<&str> = BUNDLE.into_iter().filter(|f| *f != "SHA256SUMS").collect();
    assert_eq!(summed_files(&dir), others);
    let ok = sha256sum_check(&dir);
    assert!(ok.status.success(), "{}", text(&ok.stdout));
    for (inside, source) in COPIES {
        let a = std::fs::read(dir.join(inside)).unwrap();
        assert_eq!(a, std::fs::read(repo(source)).unwrap(), "{inside}");
    }
    let unit = std::fs::read_to_string(dir.join("limette.service")).unwrap();
    assert_eq!(hardening_gaps(&unit), Vec::<String>::new());
    let shipped = run(Command::new(dir.join("limette")).arg("--version")).stdout;
    let built = run(Command::new(bin()).arg("--version")).stdout;
    assert_eq!(text(&shipped), text(&built));

    // A file changed after packaging is caught by the checksums.
    std::fs::write(dir.join("README"), "changed\n").unwrap();
    let bad = sha256sum_check(&dir);
    assert!(!bad.status.success());
    let report = text(&bad.stdout);
    assert!(report.contains("README: FAILED"), "{report}");
}

/// The entries of a `.tar.gz`, sorted.
fn tar_listing(archive: &Path) -> Vec<String> {
    let listing = run(Command::new("tar").arg("-tzf").arg(archive));
    assert!(listing.status.success(), "{}", text(&listing.stderr));
    let mut entries: Vec<String> = text(&listing.stdout).lines().map(String::from).collect();
    entries.sort();
    entries
}

/// Extracts a `.tar.gz` into a new folder `into`; returns `into`.
fn extract(archive: &Path, into: &Path) -> PathBuf {
    std::fs::create_dir(into).unwrap();
    let untar = run(Command::new("tar")
        .arg("-xzf")
        .arg(archive)
        .arg("-C")
        .arg(into));
    assert!(untar.status.success(), "{}", text(&untar.stderr));
    into.to_path_buf()
}

/// The file names listed in `dir/SHA256SUMS`, sorted.
fn summed_files(dir: &Path) -> Vec<String> {
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).unwrap();
    let mut names: Vec<String> = sums
        .lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(_, name)| name.to_string())
        .collect();
    names.sort();
    names
}

/// `sha256sum -c SHA256SUMS` in `dir`.
fn sha256sum_check(dir: &Path) -> Output {
    run(Command::new("sha256sum")
        .arg("-c")
        .arg("SHA256SUMS")
        .current_dir(dir))
}

#[test]
fn the_bundle_script_refuses_a_binary_of_another_version() {
    let tmp = TempDir::new("dist-stale");
    let fake = tmp.path().join("limette");
    // Written by a child process: a file this multi-threaded test process held open for
    // writing could leak into another test's fork and make running it fail with ETXTBSY.
    let made = run(Command::new("sh").arg("-c").arg(
        "printf '#!/bin/sh\\necho limette 0.0.0-old\\necho target: x86_64-unknown-linux-musl\\n' > \"$0\" && chmod 755 \"$0\"",
    ).arg(&fake));
    assert!(made.status.success());
    let out = dist(&fake, &tmp.path().join("out"));
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("rebuild it"),
        "{}",
        text(&out.stderr)
    );
    // It stops before writing anything.
    let left: Vec<_> = std::fs::read_dir(tmp.path().join("out"))
        .map(|d| d.collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "the script left {left:?}");
}

/// The unit's `ExecStart`, started as systemd would: in the (empty) state directory as working
/// folder, with the bundle's `limette.ini` at the place the unit names; on an ephemeral port.
/// The first start seeds configuration 1 under the working folder and serves the Demo users.
#[test]
fn the_units_command_line_starts_on_an_empty_state_directory() {
    let tmp = TempDir::new("dist-unit");
    let unit = std::fs::read_to_string(repo("conf/limette.service")).unwrap();
    let exec = unit_keys(&unit)["Service/ExecStart"].last().cloned();
    let (etc, state) = (tmp.path().join("etc"), tmp.path().join("state"));
    std::fs::create_dir_all(&etc).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    std::fs::copy(repo("conf/limette.ini"), etc.join("limette.ini")).unwrap();
    let args: Vec<String> = exec
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .map(|a| a.replace("/etc/limette", &etc.display().to_string()))
        .collect();
    let mut service = Service::start(&args, &state, &tmp.path().join("log"));
    let r = Client::new(service.port).post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho")],
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(service.terminate(), Some(0));
    let conf = state.join("limette-data/conf/lmConf-1.json");
    let conf: serde_json::Value = serde_json::from_slice(&std::fs::read(&conf).unwrap()).unwrap();
    assert_eq!(conf["cfgNum"].to_string().trim_matches('"'), "1");
    assert_eq!(conf["key"].as_str().map(str::len), Some(64));
    assert!(state.join("limette-data/sessions").is_dir());
}

/// The binary started with a unit's arguments in a working folder; killed on drop.
struct Service {
    child: Child,
    port: u16,
}

impl Service {
    /// Starts it on `127.0.0.1:0` and waits (30 s at most) for its "listening" line.
    fn start(args: &[String], cwd: &Path, log: &Path) -> Service {
        let mut child = Command::new(bin())
            .args(args)
            .args(["-l", "127.0.0.1:0"])
            .current_dir(cwd)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let line = rx.recv_timeout(Duration::from_secs(30));
        let port = line
            .as_deref()
            .ok()
            .and_then(|l| l.split("http://127.0.0.1:").nth(1))
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse::<u16>().ok());
        let mut service = Service { child, port: 0 };
        match port {
            Some(port) => service.port = port,
            None => {
                let log = std::fs::read_to_string(log);
                panic!("no listening line: {line:?}; log {log:?}");
            }
        }
        service
    }

    /// Sends SIGTERM, as `systemctl stop` does, and returns the exit code.
    fn terminate(&mut self) -> Option<i32> {
        let id = self.child.id().to_string();
        let kill = run(Command::new("kill").arg("-TERM").arg(id));
        assert!(kill.status.success());
        self.child.wait().ok().and_then(|s| s.code())
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `conf/link-gcc`, the linker of the release builds, on a small C program whose functions
/// carry Rust-mangled names: the functions its list names come first, in the list's order,
/// matched with their hashes when the link has them (one copy of a generic function, not its
/// other copies), by their bare name when the list's hash is stale, and C functions by name;
/// the rest follows in the compiler's order, and the program still runs.
#[test]
fn the_release_linker_places_the_listed_functions_first() {
    let dir = TempDir::new("link");
    let d = dir.path();
    // In the source, the functions the list leaves out come first: the compiler's order would
    // put them first too.
    let source = r#"
        int other_copy(void) __asm__("_ZN4demo7generic17h1111111111111111E");
        int other_copy(void) { return 1; }
        int cold(void) { return 2; }
        int beta(void) { return 3; }
        int stale(void) __asm__("_ZN4demo5stale17h3333333333333333E");
        int stale(void) { return 4; }
        int listed_copy(void) __asm__("_ZN4demo7generic17h2222222222222222E");
        int listed_copy(void) { return 5; }
        int zeta(void) __asm__("_ZN4demo4zeta17h0123456789abcdefE");
        int zeta(void) { return 6; }
        int main(void) {
            return other_copy() + cold() + beta() + stale() + listed_copy() + zeta() == 21 ? 0 : 1;
        }
    "#;
    std::fs::write(d.join("demo.c"), source).unwrap();
    let out = run(Command::new("cc")
        .args(["-O0", "-ffunction-sections", "-c", "demo.c", "-o", "demo.o"])
        .current_dir(d));
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(
        d.join("order.txt"),
        "# start-up\ndemo::zeta::h0123456789abcdef\ndemo::generic::h2222222222222222\n\
         demo::stale::h9999999999999999\nbeta\n",
    )
    .unwrap();
    let out = run(Command::new("bash")
        .arg(repo("conf/link-gcc"))
        .args(["demo.o", "-o", "demo"])
        .env("LIMETTE_LINK_ORDER", d.join("order.txt"))
        .current_dir(d));
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Linked by rust-lld with the order, not by the fallback (which says so on stderr).
    assert_eq!(text(&out.stderr), "");
    let comment = run(Command::new("readelf")
        .args(["-p", ".comment"])
        .arg(d.join("demo")));
    assert!(
        text(&comment.stdout).contains("LLD"),
        "{}",
        text(&comment.stdout)
    );
    assert!(run(&mut Command::new(d.join("demo"))).status.success());

    let nm = run(Command::new("nm").arg(d.join("demo")));
    let address = |name: &str| {
        text(&nm.stdout)
            .lines()
            .find_map(|l| {
                let mut f = l.split_whitespace();
                let (a, _, n) = (f.next()?, f.next()?, f.next()?);
                (n == name).then(|| u64::from_str_radix(a, 16).unwrap())
            })
            .unwrap_or_else(|| panic!("{name} not in the program"))
    };
    let order = [
        "_ZN4demo4zeta17h0123456789abcdefE",
        "_ZN4demo7generic17h2222222222222222E",
        "_ZN4demo5stale17h3333333333333333E",
        "beta",
    ];
    for pair in order.windows(2) {
        assert!(address(pair[0]) < address(pair[1]), "{pair:?}");
    }
    for unlisted in ["_ZN4demo7generic17h1111111111111111E", "cold", "main"] {
        assert!(address("beta") < address(unlisted), "{unlisted}");
    }
}
