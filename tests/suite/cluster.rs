//! Two Limette nodes on one PostgreSQL database (a throw-away cluster, `common::pg`), as a
//! site scaled out or mixed with LemonLDAP::NG nodes runs them: the tables made by
//! `limette db init`, the configuration in the CDBI table, sessions in the PgJSON table,
//! notifications in the DBI table. A login on one node is valid on the other and a logout on
//! either ends it everywhere; a code redeemed on both at once is redeemed once; a notification
//! inserted through one holds the login on the other; a configuration saved through one is in
//! force on the other within the reload interval; a database stopped for ten seconds answers
//! 503 quickly where it is needed and nothing else, and all works again when it is back;
//! LemonLDAP::NG's own PgJSON module reads Limette's sessions and the reverse.
#![cfg(feature = "postgres")]
use crate::common;

use common::config::poll;
use common::oidc::{code, redeem, rp};
use common::pg::{Cluster, USER};
use common::{command, default_conf, Portal, TempDir};
use serde_json::{json, Map, Value};
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const JSON: (&str, &str) = ("Accept", "application/json");

/// The INI of a node on the cluster (also what `limette db init` reads).
fn ini_lines(c: &Cluster) -> (String, Vec<String>) {
    let chain = c.chain();
    let configuration = format!("type = CDBI\ndbiChain = {chain}\ndbiUser = {USER}");
    let portal = vec![
        "globalStorage = Apache::Session::Browseable::PgJSON".to_string(),
        format!(
            r#"globalStorageOptions = {{"DataSource": "{chain}", "UserName": "{USER}", "TableName": "sessions"}}"#
        ),
        "persistentStorage = Apache::Session::Browseable::PgJSON".to_string(),
        format!(
            r#"persistentStorageOptions = {{"DataSource": "{chain}", "UserName": "{USER}", "TableName": "psessions"}}"#
        ),
    ];
    (configuration, portal)
}

/// The site's main configuration: one relying party, notifications in the database, the REST
/// servers on, one shared key.
fn site_conf(c: &Cluster) -> Map<String, Value> {
    let mut conf = default_conf();
    let set = |m: &mut Map<String, Value>, k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    set(
        &mut conf,
        "key",
        json!("a-key-every-node-shares-0123456789"),
    );
    set(&mut conf, "portal", json!("http://127.0.0.1:1/"));
    set(
        &mut conf,
        "oidcRPMetaDataOptions",
        json!({"rp1": rp("rp1", json!({"RefreshToken": 1}))}),
    );
    set(
        &mut conf,
        "oidcRPMetaDataExportedVars",
        json!({"rp1": {"email": "mail", "name": "cn"}}),
    );
    set(&mut conf, "notificationStorage", json!("DBI"));
    set(
        &mut conf,
        "notificationStorageOptions",
        json!({"dbiChain": c.chain(), "dbiUser": USER, "dbiTable": "notifications"}),
    );
    for k in [
        "notificationServer",
        "restSessionServer",
        "restConfigServer",
    ] {
        set(&mut conf, k, json!(1));
    }
    conf
}

/// `limette db init` on the cluster, then the site's configuration saved as number 2 (the
/// way another node, or LemonLDAP::NG's manager, would write it).
fn init_site(c: &Cluster) {
    let dir = TempDir::new("dbinit");
    let (configuration, portal) = ini_lines(c);
    let ini = dir.path().join("limette.ini");
    std::fs::write(
        &ini,
        format!(
            "[configuration]\n{configuration}\n[portal]\n{}\n",
            portal.join("\n")
        ),
    )
    .unwrap();
    let out = command(&ini, dir.path(), &["db", "init"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("globalStorage: table sessions"), "{said}");
    assert!(
        said.contains("configuration: the embedded default saved as number 1"),
        "{said}"
    );
    let mut conf = site_conf(c);
    conf.insert("cfgNum".into(), json!(2));
    let text = serde_json::to_string(&conf).unwrap();
    c.psql(&format!(
        "INSERT INTO lmConfig (cfgNum, data) VALUES (2, $j${text}$j$)"
    ));
    // A second run changes nothing.
    let again = command(&ini, dir.path(), &["db", "init"]).output().unwrap();
    assert!(again.status.success());
    assert_eq!(c.psql("SELECT count(*) FROM lmConfig"), "2");
    // `config check` accepts the PostgreSQL settings (CDBI, PgJSON, DBI notifications).
    let check = command(&ini, dir.path(), &["config", "check"])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert_ne!(check.status.code(), Some(2), "{text}");
    assert!(!text.contains("not supported"), "{text}");
}

fn node(c: &Cluster) -> Portal {
    let (configuration, portal) = ini_lines(c);
    let mut b = Portal::builder().ini_configuration(&configuration);
    for l in &portal {
        b = b.ini(l);
    }
    b.start()
}

fn site() -> (Cluster, Portal, Portal) {
    let c = Cluster::start();
    init_site(&c);
    let a = node(&c);
    let b = node(&c);
    (c, a, b)
}

fn home(p: &Portal, sid: &str) -> u16 {
    let cookie = format!("lemonldap={sid}");
    p.client().get("/", &[JSON, ("Cookie", &cookie)]).status
}

#[test]
fn a_login_on_one_node_is_valid_on_the_other_and_a_logout_ends_it_on_both() {
    let (c, a, b) = site();
    let sid = a.login("dwho");
    assert_eq!(home(&b, &sid), 200);
    // Stored as LemonLDAP::NG's PgJSON module stores it: one JSON row, id as the key.
    let uid = c.psql(&format!(
        "SELECT a_session ->> 'uid' FROM sessions WHERE id = '{sid}'"
    ));
    assert_eq!(uid, "dwho");
    let cookie = format!("lemonldap={sid}");
    let out = b.client().get("/?logout=1", &[JSON, ("Cookie", &cookie)]);
    assert_eq!(out.status, 200, "{}", out.text());
    assert_eq!(home(&a, &sid), 401);
    assert_eq!(c.psql("SELECT count(*) FROM sessions"), "0");
}

#[test]
fn a_code_redeemed_on_both_nodes_at_once_succeeds_exactly_once() {
    let (_c, a, b) = site();
    let (a, b) = (Arc::new(a), Arc::new(b));
    for round in 0..5 {
        let sid = a.login("dwho");
        let code = code(&a, &sid, "rp1", "");
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = [a.clone(), b.clone()]
            .into_iter()
            .map(|p| {
                let (barrier, code) = (barrier.clone(), code.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let r = redeem(&p, "rp1", &code);
                    (r.status, r.text())
                })
            })
            .collect();
        let answers: Vec<(u16, String)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let ok = answers.iter().filter(|(s, _)| *s == 200).count();
        assert_eq!(ok, 1, "round {round}: {answers:?}");
        let refused = answers.iter().find(|(s, _)| *s != 200).unwrap();
        assert_eq!(refused.0, 400, "{answers:?}");
        assert!(refused.1.contains("invalid_grant"), "{answers:?}");
    }
}

#[test]
fn a_notification_inserted_through_one_node_holds_the_login_on_the_other() {
    let (_c, a, b) = site();
    let body = json!({"uid": "rtyler", "date": "2024-01-01", "reference": "CLUSTER1",
        "title": "Read me", "check": "I have"});
    let r = a.client().send_json("POST", "/notifications", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = b
        .client()
        .post_form("/", &[("user", "rtyler"), ("password", "rtyler")], &[JSON]);
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("36")),
        "{}",
        r.text()
    );
    // The other users are not held.
    assert_eq!(home(&b, &b.login("dwho")), 200);
}

#[test]
fn a_configuration_saved_through_one_node_is_in_force_on_the_other() {
    let (c, a, b) = site();
    let latest = |p: &Portal| p.client().get_json("/config/latest").json()["cfgNum"].clone();
    assert_eq!(latest(&b), json!(2));
    // Saved as LemonLDAP::NG's manager would: a new row.
    let mut conf = site_conf(&c);
    conf.insert("cfgNum".into(), json!(3));
    conf.insert("portalMainLogo".into(), json!("common/logos/cluster.png"));
    let text = serde_json::to_string(&conf).unwrap();
    c.psql(&format!(
        "INSERT INTO lmConfig (cfgNum, data) VALUES (3, $j${text}$j$)"
    ));
    for p in [&a, &b] {
        assert!(
            poll(Duration::from_secs(5), || latest(p) == json!(3)),
            "not reloaded within the interval"
        );
    }
}

#[test]
fn a_database_stopped_for_ten_seconds_answers_503_then_everything_works_again() {
    let (c, a, _b) = site();
    let sid = a.login("dwho");
    c.down();
    let stopped = Instant::now();
    while stopped.elapsed() < Duration::from_secs(10) {
        let t = Instant::now();
        let cookie = format!("lemonldap={sid}");
        let r = a.client().get("/", &[JSON, ("Cookie", &cookie)]);
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "took {:?}",
            t.elapsed()
        );
        assert_eq!(r.status, 503, "{}", r.text());
        assert_eq!(r.header("retry-after"), Some("5"));
        let text = r.text();
        assert!(
            !text.contains("PostgreSQL") && !text.contains("db error"),
            "{text}"
        );
        // What needs no database is served.
        let d = a.client().get_json("/.well-known/openid-configuration");
        assert_eq!(d.status, 200);
        // The outage lasts ten seconds of real time: the probes are paced through it.
        std::thread::sleep(Duration::from_millis(500));
    }
    c.up();
    assert!(
        poll(Duration::from_secs(5), || home(&a, &sid) == 200),
        "the session is back, with no restart"
    );
    assert!(a.log().contains("PostgreSQL"), "the cause is in the log");
}

/// LemonLDAP::NG's own session module on the same table: it reads a session Limette made, and
/// Limette serves one it made.
#[test]
fn lemonldap_ng_pgjson_reads_limettes_sessions_and_the_reverse() {
    let has = |m: &str| {
        Command::new("perl")
            .args([&format!("-M{m}"), "-e1"])
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    // The project's setup installs them (.ci/setup.d/postgres.sh): without them this test
    // cannot say anything, and says so by failing.
    assert!(
        has("Apache::Session::Browseable::PgJSON") && has("DBD::Pg"),
        "LemonLDAP::NG's PgJSON module or DBD::Pg is not installed: run make test-tools"
    );
    let (c, a, b) = site();
    let sid = a.login("dwho");
    let script = r#"
use strict; use Apache::Session::Browseable::PgJSON;
my ($op, $dsn, $user, $id) = @ARGV;
my %o = (DataSource => $dsn, UserName => $user, Password => '', TableName => 'sessions', Commit => 1);
my %h;
if ($op eq 'read') { tie %h, 'Apache::Session::Browseable::PgJSON', $id, \%o; print "$h{uid} $h{_session_kind}\n"; }
else { tie %h, 'Apache::Session::Browseable::PgJSON', undef, \%o;
  $h{uid} = 'rtyler'; $h{_session_kind} = 'SSO'; $h{_utime} = time; $h{_lastSeen} = time;
  $h{_whatToTrace} = 'rtyler'; print "$h{_session_id}\n"; }
untie %h;
"#;
    let perl = |args: &[&str]| {
        let out = Command::new("perl")
            .args(["-e", script])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let chain = c.chain();
    assert_eq!(perl(&["read", &chain, USER, &sid]), "dwho SSO");
    let theirs = perl(&["create", &chain, USER]);
    let r = b.client().get_json(&format!("/sessions/global/{theirs}"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["uid"], "rtyler");
    // Limette's search index is LemonLDAP::NG's: the row is found by `_whatToTrace`.
    let n = c.psql("SELECT count(*) FROM sessions WHERE a_session ->> '_whatToTrace' = 'rtyler'");
    assert_eq!(n, "1");
}

/// LemonLDAP::NG's own configuration module (`CDBI`) on the same table: it reads the
/// configuration Limette saved, and a configuration it saves is in force on a Limette node.
#[test]
fn lemonldap_ng_cdbi_reads_limettes_configuration_and_the_reverse() {
    let (c, a, _b) = site();
    let script = r#"
use strict; use Lemonldap::NG::Common::Conf;
my ($op, $dsn, $user) = @ARGV;
my $conf = Lemonldap::NG::Common::Conf->new({type => 'CDBI', dbiChain => $dsn,
    dbiUser => $user, dbiPassword => '', dbiTable => 'lmConfig'}) or die $Lemonldap::NG::Common::Conf::msg;
my $c = $conf->getConf({noCache => 1}) or die "getConf: $Lemonldap::NG::Common::Conf::msg";
if ($op eq 'read') { print "$c->{cfgNum} $c->{portal}\n"; }
else { $c->{cfgLog} = 'saved by LemonLDAP::NG'; $c->{timeout} = 7200;
  my $n = $conf->saveConf($c, force => 1, cfgNumFixed => 0);
  die "saveConf: $n $Lemonldap::NG::Common::Conf::msg" unless $n > 0; print "$n\n"; }
"#;
    let perl = |op: &str| {
        let out = Command::new("perl")
            .args(["-e", script, op, &c.chain(), USER])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let latest = a.client().get_json("/config/latest").json();
    let num = latest["cfgNum"].as_i64().unwrap();
    let read = perl("read");
    assert!(read.starts_with(&format!("{num} ")), "{read}");
    let saved: i64 = perl("save").parse().unwrap();
    assert_eq!(saved, num + 1);
    // The node takes it up within its reload interval.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let l = a.client().get_json("/config/latest").json();
        let in_force = a
            .log()
            .contains(&format!("configuration {saved} is now in force"));
        if l["cfgNum"].as_i64() == Some(saved) && in_force {
            assert_eq!(l["cfgLog"], "saved by LemonLDAP::NG");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "configuration {saved} never seen: {l}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
