//! File modes in the data folder, whatever the umask: folders 0700, the key and every session,
//! token, grant and notification file 0600; a data folder others may write stops the start.
use super::common::{embedded, oidc, TempDir};
use super::{scratch, start_with};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every entry below `root` with its mode (permission bits), `skip` (relative paths) left out.
fn modes(root: &Path, skip: &[&str]) -> Vec<(PathBuf, u32)> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(root).unwrap();
            if skip.iter().any(|s| rel == Path::new(s)) {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            out.push((rel.to_path_buf(), meta.permissions().mode() & 0o7777));
            if meta.is_dir() {
                todo.push(path);
            }
        }
    }
    out
}

/// Asserts folders are 0700 and files 0600; returns the files seen.
fn assert_private(root: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (rel, mode) in modes(root, skip) {
        let want = if root.join(&rel).is_dir() {
            0o700
        } else {
            files.push(rel.clone());
            0o600
        };
        assert_eq!(mode, want, "{}: mode {mode:o}", rel.display());
    }
    files
}

#[test]
fn a_first_start_makes_a_private_data_folder_whatever_the_umask() {
    let dir = TempDir::new("modes-first");
    let data = dir.path().join("data");
    let (p, _) = embedded::start_umask(dir, &data, "022", &[]);
    let id = p.login("dwho");
    let mode = std::fs::metadata(&data).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o700, "the data folder");
    let files = assert_private(&data, &[]);
    for want in ["key", "conf/lmConf-1.json"] {
        assert!(files.contains(&PathBuf::from(want)), "{want} in {files:?}");
    }
    assert!(
        files.iter().any(|f| f.ends_with(&id)),
        "the session file in {files:?}"
    );
}

#[test]
fn sessions_tokens_grants_and_notifications_are_private_whatever_the_umask() {
    let p = oidc::builder(&[(
        "rp1",
        oidc::rp("rp1", json!({"RefreshToken": 1, "IDTokenSignAlg": "HS256"})),
    )])
    .conf("notificationServer", json!(1))
    .umask("022")
    .start();
    let sid = p.login("dwho");
    let code = oidc::code(&p, &sid, "rp1", "");
    let r = oidc::redeem(&p, "rp1", &code);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["refresh_token"].is_string());
    let note = json!({"uid": "dwho", "date": "2024-01-02", "reference": "R1", "text": "t"});
    let r = p.client().send_json("POST", "/notifications", &note);
    assert_eq!(r.status, 200, "{}", r.text());
    // What the test harness wrote itself (the configuration, the INI, the log) is not
    // Limette's; everything else is.
    let harness = ["conf", "limette.ini", "server.log"];
    let files = assert_private(p.data(), &harness);
    let under = |dir: &str| files.iter().filter(|f| f.starts_with(dir)).count();
    assert!(
        under("sessions/oidc") >= 2,
        "access and refresh tokens: {files:?}"
    );
    assert!(
        files.contains(&Path::new("sessions").join(&sid)),
        "the SSO session: {files:?}"
    );
    assert!(under("notifications") >= 1, "the notification: {files:?}");
    assert!(files.contains(&PathBuf::from("key")), "{files:?}");
}

#[test]
fn a_data_folder_others_may_write_stops_the_start() {
    for mode in [0o777, 0o770, 0o702] {
        let dir = scratch("modes-open");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        let o = start_with(dir.path(), "");
        assert_eq!(o.code, Some(2), "{mode:o}: {}", o.stderr);
        assert_eq!(o.stdout, "", "nothing listens");
        let lines: Vec<&str> = o.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line: {}", o.stderr);
        assert!(
            lines[0].contains(&dir.path().display().to_string())
                && lines[0].contains(&format!("{mode:o}")),
            "{}",
            o.stderr
        );
    }
    // Readable by others but not writable: started (its files stay 0600 all the same).
    let dir = scratch("modes-755");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (p, _) = embedded::start(dir, "127.0.0.1:0", &[]);
    assert!(p.child.is_some());
}

#[test]
fn a_sqlite_session_store_is_private_with_its_journal() {
    let dir = TempDir::new("modes-sqlite");
    let db = dir.path().join("db").join("sessions.db");
    let p = super::common::Portal::builder()
        .data(dir)
        .ini("globalStorage = SQLite")
        .ini(&format!(
            "globalStorageOptions = {{\"DataSource\": \"dbi:SQLite:dbname={}\"}}",
            db.display()
        ))
        .umask("022")
        .start();
    p.login("dwho");
    let files = assert_private(&p.data().join("db"), &[]);
    assert!(files.len() >= 2, "the database and its journal: {files:?}");
}
