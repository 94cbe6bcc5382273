//! Drop-in configurations, fail-closed: a configuration that names a module, a store, a
//! database driver or a setting Limette does not implement stops start-up with one line per
//! key (exit 2) and nothing listens; `limette config check` lists errors, ignored keys and
//! warnings for LemonLDAP::NG's own default configuration and for an LDAP one; INI keys are
//! checked; a newer configuration that the gate refuses leaves the old one in force.
use super::common::{self, default_conf, Portal, TempDir};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// A data folder with `lmConf-1.json` and an INI naming it; `portal` lines go to `[portal]`.
fn setup(conf: &Map<String, Value>, portal: &str) -> (TempDir, PathBuf) {
    setup_stored(conf, portal, |dir| {
        format!(
            "globalStorage = File\nglobalStorageOptions = {{\"Directory\": \"{}\"}}",
            dir.join("sessions").display()
        )
    })
}

/// [`setup`] with the session store's lines made from the data folder.
fn setup_stored(
    conf: &Map<String, Value>,
    portal: &str,
    storage: impl Fn(&Path) -> String,
) -> (TempDir, PathBuf) {
    let dir = TempDir::new("check");
    let conf_dir = dir.path().join("conf");
    std::fs::create_dir_all(&conf_dir).unwrap();
    std::fs::write(
        conf_dir.join("lmConf-1.json"),
        serde_json::to_vec_pretty(&Value::Object(conf.clone())).unwrap(),
    )
    .unwrap();
    let ini = dir.path().join("limette.ini");
    std::fs::write(
        &ini,
        format!(
            "[configuration]\ntype = File\ndirName = {}\n[portal]\nlisten = 127.0.0.1:0\n{}\n{portal}\n",
            conf_dir.display(),
            storage(dir.path())
        ),
    )
    .unwrap();
    (dir, ini)
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(ini: &Path, data: &Path, args: &[&str]) -> Out {
    let o = common::command(ini, data, args).output().unwrap();
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn with(pairs: &[(&str, Value)]) -> Map<String, Value> {
    let mut c = default_conf();
    for (k, v) in pairs {
        c.insert(k.to_string(), v.clone());
    }
    c
}

/// LemonLDAP::NG's own default configuration, from its Debian package.
fn debian_default() -> Map<String, Value> {
    let path = "/var/lib/lemonldap-ng/conf/lmConf-1.json";
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!("{path}: {e}: install the Debian package lemonldap-ng (.ci/setup.d)")
    });
    serde_json::from_str(&text).unwrap()
}

#[test]
fn an_ldap_configuration_refuses_to_start_naming_each_key() {
    let conf = with(&[
        ("authentication", json!("LDAP")),
        ("userDB", json!("Same")),
        ("passwordDB", json!("LDAP")),
        ("ldapServer", json!("ldap://127.0.0.1:389")),
    ]);
    let (dir, ini) = setup(&conf, "");
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, "", "nothing may listen");
    assert_eq!(
        o.stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect::<Vec<_>>(),
        vec![
            "error: authentication = LDAP is not supported (supported: Demo, REST)",
            "error: passwordDB = LDAP is not supported (supported: Demo, REST, Null)",
        ],
        "{}",
        o.stderr
    );
}

#[test]
fn unsupported_stores_and_drivers_are_refused_by_name() {
    // A PostgreSQL session store named in the main configuration.
    let conf = with(&[
        (
            "globalStorage",
            json!("Apache::Session::Browseable::Postgres"),
        ),
        (
            "globalStorageOptions",
            json!({"DataSource": "DBI:Pg:database=sso"}),
        ),
    ]);
    let (dir, ini) = setup(&conf, "");
    // The INI names its own store: the main configuration's is not used, nor refused.
    assert_ne!(run(&ini, dir.path(), &["config", "check"]).code, Some(2));
    let ini_text = std::fs::read_to_string(&ini).unwrap();
    std::fs::write(&ini, ini_text.replace("globalStorage = File\n", "")).unwrap();
    let text = std::fs::read_to_string(&ini).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("globalStorageOptions"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&ini, text).unwrap();
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("error: globalStorage = Apache::Session::Browseable::Postgres is not supported (supported: Apache::Session::File,"),
        "{}",
        o.stderr
    );

    // LemonLDAP::NG's one-row-a-key layout on PostgreSQL: refused by name, not read as the
    // one-document layout (CDBI, which is implemented: tests/suite/cluster.rs).
    let dir = TempDir::new("pgconf");
    let ini = dir.path().join("limette.ini");
    std::fs::write(
        &ini,
        "[configuration]\ntype = RDBI\ndbiChain = DBI:Pg:database=lemonldap-ng;host=127.0.0.1\n",
    )
    .unwrap();
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("type: RDBI is not supported on PostgreSQL"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("bad request"), "{}", o.stderr);
    // A TLS-only connection is refused, never made in clear.
    std::fs::write(
        &ini,
        "[configuration]\ntype = CDBI\ndbiChain = DBI:Pg:dbname=sso;host=db.example;sslmode=require\n",
    )
    .unwrap();
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    let why = if cfg!(feature = "postgres") {
        "sslmode=require is not supported"
    } else {
        "this build has no PostgreSQL client"
    };
    assert!(o.stderr.contains(why), "{}", o.stderr);
}

#[test]
fn refused_keys_stop_start_up_only_when_set() {
    let (dir, ini) = setup(&with(&[("singleSession", json!(0))]), "");
    assert_eq!(run(&ini, dir.path(), &["config", "check"]).code, Some(1));
    let conf = with(&[
        ("mail2fActivation", json!(1)),
        (
            "grantSessionRules",
            json!({"only dwho": "$uid eq \"dwho\""}),
        ),
    ]);
    let (dir, ini) = setup(&conf, "");
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains(
            "error: mail2fActivation = 1 is not supported (second factor: mail is not implemented)"
        ),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("error: grantSessionRules = "),
        "{}",
        o.stderr
    );
}

/// Cookie and header settings Limette cannot honour stop start-up naming key and value:
/// double cookies (securedCookie 2 and 3), a SameSite=None cookie browsers would drop for
/// want of Secure, and an HSTS age that is not a number of seconds.
#[test]
fn cookie_and_header_values_it_cannot_honour_stop_start_up() {
    for (pairs, line) in [
        (
            vec![("securedCookie", json!(2))],
            "error: securedCookie = 2 is not supported (supported: 0, 1)",
        ),
        (
            vec![("securedCookie", json!(3))],
            "error: securedCookie = 3 is not supported (supported: 0, 1)",
        ),
        (
            vec![("sameSite", json!("None"))],
            "error: sameSite = None is not supported with securedCookie = 0 (None requires securedCookie = 1)",
        ),
        (
            vec![("sameSite", json!("Loose")), ("securedCookie", json!(1))],
            "error: sameSite = Loose is not supported (supported: Strict, Lax, None, or empty for Lax)",
        ),
        (
            vec![("strictTransportSecurityMax_Age", json!("one year"))],
            "strictTransportSecurityMax_Age = one year is not supported (expected seconds)",
        ),
    ] {
        let (dir, ini) = setup(&with(&pairs), "");
        let o = run(&ini, dir.path(), &[]);
        assert_eq!(o.code, Some(2), "{pairs:?}: {}", o.stderr);
        assert_eq!(o.stdout, "", "nothing may listen");
        assert!(o.stderr.contains(line), "{pairs:?}: {}", o.stderr);
    }
}

#[test]
fn config_check_on_the_debian_default_gives_warnings_only() {
    let (dir, ini) = setup(&debian_default(), "");
    let o = run(&ini, dir.path(), &["config", "check"]);
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert!(!o.stdout.contains("error:"), "{}", o.stdout);
    for line in [
        "warning: passwordDB = Demo: Limette has no password-change page",
        "warning: registerDB = Demo: Limette has no registration page",
    ] {
        assert!(
            o.stdout.lines().any(|l| l == line),
            "{line} in {}",
            o.stdout
        );
    }
    let j = run(&ini, dir.path(), &["config", "check", "--json"]);
    assert_eq!(j.code, Some(1));
    let v: Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["result"], 1);
    let levels: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["level"].as_str().unwrap())
        .collect();
    assert!(!levels.is_empty() && levels.iter().all(|l| *l == "warning"));
}

#[test]
fn config_check_on_an_ldap_configuration_gives_errors() {
    let mut conf = debian_default();
    conf.insert("authentication".into(), json!("LDAP"));
    conf.insert("userDB".into(), json!("LDAP"));
    conf.insert("passwordDB".into(), json!("LDAP"));
    conf.insert("ldapServer".into(), json!("ldaps://ldap.example.com"));
    conf.insert("portalSkn".into(), json!("x"));
    let (dir, ini) = setup(&conf, "");
    let o = run(&ini, dir.path(), &["config", "check"]);
    assert_eq!(o.code, Some(2), "{}", o.stdout);
    let first: Vec<&str> = o.stdout.lines().take(3).collect();
    assert_eq!(
        first,
        vec![
            "error: authentication = LDAP is not supported (supported: Demo, REST)",
            "error: userDB = LDAP is not supported (supported: Same, Demo, REST)",
            "error: passwordDB = LDAP is not supported (supported: Demo, REST, Null)",
        ],
        "{}",
        o.stdout
    );
    assert!(o
        .stdout
        .contains("warning: ldapServer = ldaps://ldap.example.com is ignored by Limette"));
    assert!(o
        .stdout
        .contains("warning: portalSkn is not a LemonLDAP::NG 2.16 key (did you mean portalSkin?)"));
}

#[test]
fn ini_keys_are_checked() {
    let (dir, ini) = setup(&default_conf(), "timout = 60\nthreds = 4");
    let o = run(&ini, dir.path(), &["config", "check"]);
    assert!(
        o.stdout
            .contains("[portal] timout is not a known key (did you mean timeout?)"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("[portal] threds is not a known key (did you mean threads?)"),
        "{}",
        o.stdout
    );
    // A value that looks like JSON and does not parse stops start-up, naming file and line.
    let (dir, ini) = setup(&default_conf(), "locationRules = {\"a\": ");
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2));
    let line = o.stderr.lines().next().unwrap_or("");
    assert!(
        line.starts_with("limette: ")
            && line.contains(
                "limette.ini: locationRules: line 8: value looks like JSON and does not parse"
            ),
        "{}",
        o.stderr
    );
    // An override that replaces a hash says what it takes away.
    let (dir, ini) = setup(&default_conf(), "oidcRPMetaDataOptions = {}");
    let o = run(&ini, dir.path(), &["config", "check"]);
    assert!(
        o.stdout.contains(
            "[portal] oidcRPMetaDataOptions replaces the stored value; no longer in force: demo"
        ),
        "{}",
        o.stdout
    );
}

#[test]
fn demo_logins_are_announced_only_with_demo() {
    let p = Portal::builder()
        .conf("authentication", json!("REST"))
        .conf("restAuthUrl", json!("http://127.0.0.1:9/auth"))
        .conf("restUserDBUrl", json!("http://127.0.0.1:9/user"))
        .start();
    let r = p.client().post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho")],
        &[("Accept", "application/json")],
    );
    assert_eq!(r.json()["result"], 0, "{}", r.text());
    let page = p.client().get("/", &[]).text();
    assert!(!page.contains("dwho"), "{page}");
}

#[test]
fn a_newer_configuration_refused_by_the_gate_leaves_the_old_in_force() {
    newer_refused_old_in_force(
        "authentication",
        json!("LDAP"),
        "authentication = LDAP is not supported",
    );
}

/// A running portal given configuration 2 with `key` = `value`: the reloader rejects it with
/// `line` in the log, and configuration 1 still logs users in.
fn newer_refused_old_in_force(key: &str, value: Value, line: &str) {
    let p = Portal::start();
    let mut next = default_conf();
    next.insert("cfgNum".into(), json!(2));
    next.insert(key.into(), value);
    std::fs::write(
        p.data().join("conf").join("lmConf-2.json"),
        serde_json::to_vec(&Value::Object(next)).unwrap(),
    )
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !p.log().contains("configuration 2 rejected") {
        assert!(std::time::Instant::now() < deadline, "{}", p.log());
        // Polls the log for the reloader's round (no fixed wait: it ends at the line).
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(p.log().contains(line), "{}", p.log());
    p.login("dwho");
}

/// An area's value that does not parse refuses the configuration where it is loaded: start-up
/// stops (exit 2, one line naming the key and the value), a newer one is rejected and the old
/// one stays; neither runs with the area's defaults in its place.
#[test]
fn a_bad_area_value_is_refused_at_load_not_defaulted() {
    let (dir, ini) = setup(&with(&[("restTimeout", json!("soon"))]), "");
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("restTimeout = soon is not an integer"),
        "{}",
        o.stderr
    );
    newer_refused_old_in_force(
        "timeoutActivity",
        json!("soon"),
        "timeoutActivity = soon is not an integer",
    );
}

/// The server checks for a newer configuration every `checkInterval`: one refused says so once,
/// not every round, and once more when the situation changes (another newer number refused, then
/// one accepted). The test counts the reloader's rounds (`/__test/reloads`) instead of sleeping
/// through them, with rounds of 200 ms instead of the default second.
#[test]
fn a_refused_configuration_is_logged_once_while_it_stays() {
    let p = Portal::builder()
        .test_hooks()
        .ini("checkInterval = 0.2")
        .start();
    let save = |num: u64, auth: &str| {
        let mut next = default_conf();
        next.insert("cfgNum".into(), json!(num));
        next.insert("authentication".into(), json!(auth));
        std::fs::write(
            p.data().join("conf").join(format!("lmConf-{num}.json")),
            serde_json::to_vec(&Value::Object(next)).unwrap(),
        )
        .unwrap();
    };
    let count = |text: &str| p.log().matches(text).count();
    let wait_for = |text: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while count(text) == 0 {
            assert!(std::time::Instant::now() < deadline, "{}", p.log());
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let rounds = || {
        let r = p.client().get("/__test/reloads", &[]);
        assert_eq!(r.status, 200, "reloads hook (test hooks on?): {}", r.text());
        r.json()["rounds"].as_u64().unwrap()
    };
    let more_rounds = |n: u64| {
        let until = rounds() + n;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while rounds() < until {
            assert!(std::time::Instant::now() < deadline, "{}", p.log());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    save(2, "LDAP");
    wait_for("configuration 2 rejected");
    // Three more rounds of the reload loop.
    more_rounds(3);
    assert_eq!(count("configuration 2 rejected"), 1, "{}", p.log());
    assert_eq!(count("authentication = LDAP is not supported"), 1);
    save(3, "Kerberos");
    wait_for("configuration 3 rejected");
    more_rounds(2);
    assert_eq!(count("configuration 3 rejected"), 1, "{}", p.log());
    assert_eq!(count("configuration 2 rejected"), 1, "{}", p.log());
    save(4, "Demo");
    wait_for("configuration 4 is now in force");
    assert_eq!(count("rejected"), 2, "{}", p.log());
}

#[test]
fn config_check_names_disabled_relying_parties() {
    let mut conf = default_conf();
    conf["oidcRPMetaDataOptions"]["demo"]["oidcRPMetaDataOptionsIDTokenSignAlg"] = json!("RS256");
    let (dir, ini) = setup(&conf, "");
    let o = run(&ini, dir.path(), &["config", "check"]);
    assert_eq!(o.code, Some(1), "{}", o.stdout);
    let line = o
        .stdout
        .lines()
        .find(|l| l.starts_with("disabled: "))
        .unwrap_or_else(|| panic!("{}", o.stdout));
    assert!(
        line.starts_with("disabled: relying party demo: oidcRPMetaDataOptionsIDTokenSignAlg = RS256 is not supported"),
        "{line}"
    );
}

/// `userControl`, with LemonLDAP::NG's default and with a site's own pattern.
#[test]
fn login_names_follow_user_control() {
    let login = |p: &Portal, user: &str| {
        let r = p.client().post_form(
            "/",
            &[("user", user), ("password", user)],
            &[("Accept", "application/json")],
        );
        (
            r.status,
            r.json()["error"].clone(),
            r.header("set-cookie").is_some(),
        )
    };
    let p = Portal::start();
    assert_eq!(login(&p, "dwho").0, 200);
    assert_eq!(login(&p, "dwho'or'1"), (401, json!("40"), false));
    let p = Portal::builder()
        .conf("userControl", json!("^dwho$"))
        .start();
    assert_eq!(login(&p, "dwho").0, 200);
    assert_eq!(login(&p, "rtyler"), (401, json!("40"), false));
    let (dir, ini) = setup(&with(&[("userControl", json!("^(dwho"))]), "");
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .contains("error: userControl = ^(dwho is not supported"),
        "{}",
        o.stderr
    );
}

#[test]
fn brute_force_protection_without_login_history_refuses_start_naming_both_keys() {
    let (dir, ini) = setup(&with(&[("bruteForceProtection", json!(1))]), "");
    let o = run(&ini, dir.path(), &[]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "bruteForceProtection = 1 requires loginHistoryEnabled = 1 (it is 0): the failed \
             logins are counted in the login history"
        ),
        "{}",
        o.stderr
    );
    let conf = with(&[
        ("bruteForceProtection", json!(1)),
        ("loginHistoryEnabled", json!(1)),
        ("failedLoginNumber", json!(2)),
    ]);
    let (dir, ini) = setup(&conf, "");
    let o = run(&ini, dir.path(), &["config", "check"]);
    assert!(
        o.stdout
            .contains("failedLoginNumber = 2 is below bruteForceProtectionMaxFailed = 3"),
        "{}",
        o.stdout
    );
}

/// A LemonLDAP::NG site's relying parties as they come, with every option issue 26 made
/// Limette honour (claims, grants, logout channels, request objects, per-RP hashes) and the
/// service's switches: `config check` disables none of them and refuses no key.
#[test]
fn config_check_keeps_every_relying_party_of_a_full_llng_site() {
    let o = |pairs: Value| {
        let mut m = Map::new();
        for (k, v) in pairs.as_object().unwrap() {
            m.insert(format!("oidcRPMetaDataOptions{k}"), v.clone());
        }
        Value::Object(m)
    };
    let rps = json!({
        "webapp": o(json!({"ClientID": "webapp", "ClientSecret": "s1", "IDTokenSignAlg": "HS256",
            "RedirectUris": "https://app.example/cb", "AdditionalAudiences": "api.example",
            "IDTokenForceClaims": 1, "UserIDAttr": "mail", "AllowOffline": 1,
            "OfflineSessionExpiration": 86400, "LogoutUrl": "https://app.example/fc",
            "LogoutType": "front", "LogoutSessionRequired": 1,
            "RequestUris": "https://app.example/req/*", "RefreshToken": 1,
            "DisplayName": "Web app"})),
        "backend": o(json!({"ClientID": "backend", "ClientSecret": "s2", "IDTokenSignAlg": "HS512",
            "RedirectUris": "https://backend.example/cb", "AllowClientCredentialsGrant": 1,
            "AllowPasswordGrant": 1, "LogoutUrl": "https://backend.example/bc",
            "LogoutType": "back", "AuthMethod": "client_secret_jwt"})),
    });
    let conf = with(&[
        ("oidcRPMetaDataOptions", rps),
        (
            "oidcRPMetaDataExportedVars",
            json!({"webapp": {"email": "mail", "groups": "groups;string;always"},
                "backend": {"email": "mail"}}),
        ),
        (
            "oidcRPMetaDataOptionsExtraClaims",
            json!({"webapp": {"groups": "groups"}}),
        ),
        (
            "oidcRPMetaDataMacros",
            json!({"webapp": {"fullname": "$cn . \" (\" . $uid . \")\""}}),
        ),
        (
            "oidcRPMetaDataScopeRules",
            json!({"webapp": {"admin": "$requested and $uid eq \"dwho\""}}),
        ),
        ("oidcServiceAllowImplicitFlow", json!(1)),
        ("oidcServiceAllowHybridFlow", json!(1)),
        ("oidcServiceAllowDynamicRegistration", json!(1)),
        ("oidcServiceAllowOnlyDeclaredScopes", json!(1)),
        ("oidcServiceMetaDataIssuer", json!("https://auth.example")),
        ("issuerDBOpenIDConnectRule", json!("$uid ne \"guest\"")),
    ]);
    let (dir, ini) = setup(&conf, "");
    let out = run(&ini, dir.path(), &["config", "check"]);
    assert!(
        !out.stdout.contains("disabled:") && !out.stderr.contains("disabled"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    for key in [
        "oidcServiceAllowImplicitFlow",
        "oidcServiceAllowHybridFlow",
        "oidcServiceAllowDynamicRegistration",
        "oidcServiceAllowOnlyDeclaredScopes",
        "oidcServiceMetaDataIssuer",
        "issuerDBOpenIDConnectRule",
    ] {
        assert!(!out.stdout.contains(key), "{key}: {}", out.stdout);
    }
    assert_ne!(out.code, Some(2), "{}", out.stdout);
}

#[test]
fn a_utf16_sqlite_session_database_is_refused_by_name() {
    // The shipped SQLite is built without UTF-16 (the Makefile's LIBSQLITE3_FLAGS, which
    // `make test` passes on): the refusal is this build's.
    assert!(
        option_env!("LIBSQLITE3_FLAGS").is_some_and(|f| f.contains("-DSQLITE_OMIT_UTF16")),
        "this test checks the SQLite that the Makefile builds: run it through `make test`"
    );
    // A real UTF-16 database, made by the system's SQLite (Python's sqlite3 module).
    let sqlite = |dir: &Path| {
        format!(
            "globalStorage = SQLite\nglobalStorageOptions = {{\"DataSource\": \"{}\"}}",
            dir.join("sessions.db").display()
        )
    };
    let (dir, ini) = setup_stored(&default_conf(), "", sqlite);
    let db = dir.path().join("sessions.db");
    let made = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); \
             c.execute(\"PRAGMA encoding = 'UTF-16le'\"); \
             c.execute('CREATE TABLE sessions (id TEXT PRIMARY KEY, a_session TEXT)'); \
             c.commit(); \
             assert c.execute('PRAGMA encoding').fetchone()[0] == 'UTF-16le'",
        )
        .arg(&db)
        .status()
        .expect("python3 (with its sqlite3 module) makes the UTF-16 database");
    assert!(made.success());
    // Spawned and waited for with a deadline: a portal that opened the database would listen.
    let mut child = common::command(&ini, dir.path(), &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if !common::config::poll(std::time::Duration::from_secs(20), || {
        child.try_wait().unwrap().is_some()
    }) {
        let _ = child.kill();
    }
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert_eq!(stdout, "", "nothing may listen");
    assert!(
        stderr.contains(&format!(
            "{}: the database's text is UTF-16le; Limette reads UTF-8 SQLite databases",
            db.display()
        )),
        "{stderr}"
    );
}
