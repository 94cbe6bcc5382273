//! The README's Install section, run as written against a bundle made by `conf/dist.sh` from
//! the binary under test, inside a scratch root: absolute paths (`/usr/...`, `/etc/...`) are
//! taken under that root and the archive name follows the binary's own target; `systemctl` and
//! `journalctl` need a running systemd, so they are only checked to name the `limette` unit
//! (the unit's own command line is started by `tests/suite/dist.rs`).
use super::common::{bin, TempDir};
use std::path::Path;
use std::process::Command;

/// Runs the install commands; panics with the failing command and its output.
pub fn run(commands: &[&str]) {
    assert!(!commands.is_empty(), "the README lost its Install commands");
    let tmp = TempDir::new("readme-install");
    let (work, root) = (tmp.path().join("work"), tmp.path().join("root"));
    std::fs::create_dir_all(&work).unwrap();
    // Folders every systemd machine has; the README's commands create the others (`-D`).
    for d in ["usr/local/bin", "etc/systemd/system"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let archive = bundle(&work);
    let built = archive.split("limette-").nth(1).unwrap_or_default();
    let shown = "x86_64-linux-musl";
    let actual = built
        .trim_end_matches(".tar.gz")
        .split_once('-')
        .map_or(shown, |(_, rest)| rest);
    let mut script = String::from("set -e\n");
    for c in commands {
        let program = c.split_whitespace().next().unwrap_or_default();
        if program == "systemctl" || program == "journalctl" {
            let reload = c.trim() == "systemctl daemon-reload";
            assert!(
                reload || c.contains("limette"),
                "{c} does not name the limette unit"
            );
            continue;
        }
        let c = c
            .replace(shown, actual)
            .replace(" /usr/", &format!(" {}/usr/", root.display()))
            .replace(" /etc/", &format!(" {}/etc/", root.display()));
        script.push_str(&c);
        script.push('\n');
    }
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(&work)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the Install commands failed:\n{script}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let installed = root.join("usr/local/bin/limette");
    let v = Command::new(&installed).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("limette "));
    for f in [
        "etc/systemd/system/limette.service",
        "etc/limette/limette.ini",
    ] {
        assert!(root.join(f).is_file(), "{f} not installed");
    }
}

/// The bundle of the binary under test, in `dir`; returns its file name.
fn bundle(dir: &Path) -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(repo.join("conf/dist.sh"))
        .arg(bin())
        .arg(dir)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".tar.gz"))
        .expect("conf/dist.sh wrote no archive")
}
